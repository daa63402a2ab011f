(define (problem negpre-1) (:domain negpre)
  (:init (locked))
  (:goal (and (done) (quiet))))
