(define (problem unreachable-1) (:domain unreachable)
  (:init (at-a))
  (:goal (and (at-b) (treasure))))
