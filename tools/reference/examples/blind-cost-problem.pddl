(define (problem blindcost-1) (:domain blindcost)
  (:init (p0) (= (total-cost) 0))
  (:goal (p2))
  (:metric minimize (total-cost)))
