(define (problem negpre-multi-1) (:domain negpre-multi)
  (:objects l1 l2 l3 - loc)
  (:init (at l1) (link l1 l2) (link l2 l3))
  (:goal (and (beeped l1) (at l3))))
