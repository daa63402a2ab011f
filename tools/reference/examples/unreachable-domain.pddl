; Tiny domain whose goal is unreachable even in the delete relaxation
; (README question d): nothing ever adds (treasure).
(define (domain unreachable)
  (:requirements :strips)
  (:predicates (at-a) (at-b) (treasure))
  (:action move-ab
    :parameters ()
    :precondition (at-a)
    :effect (and (at-b) (not (at-a))))
  (:action move-ba
    :parameters ()
    :precondition (at-b)
    :effect (and (at-a) (not (at-b)))))
