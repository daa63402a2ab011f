(define (problem bw-3) (:domain blocksworld)
  (:objects a b c)
  (:init (clear c) (on c a) (on-table a) (clear b) (on-table b) (arm-empty))
  (:goal (and (on a b) (on b c))))
