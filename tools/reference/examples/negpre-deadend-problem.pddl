(define (problem negpre-deadend-1) (:domain negpre-deadend)
  (:init (p))
  (:goal (g)))
