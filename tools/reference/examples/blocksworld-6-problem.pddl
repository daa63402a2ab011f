(define (problem bw-6-1) (:domain blocksworld)
  (:objects b1 b2 b3 b4 b5 b6)
  (:init (on-table b3) (on b4 b3) (on b6 b4) (on b5 b6) (clear b5) (on-table b1) (clear b1) (on-table b2) (clear b2) (arm-empty))
  (:goal (and (on b2 b5) (on b3 b2) (on b6 b3))))
