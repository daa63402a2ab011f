; Negative precondition on an atom that FD groups into a multi-valued
; variable (README question c, second case). (at ?l) forms one FDR variable
; {at l1, at l2, at l3}; FD turns (not (at ?x)) for x=l1 into the
; disjunction at=l2 OR at=l3 and "multiplies it out" into one operator per
; alternative (so `beep l1` becomes two FDR operators with the same name).
(define (domain negpre-multi)
  (:requirements :strips :typing :negative-preconditions)
  (:types loc)
  (:predicates (at ?l - loc) (link ?a ?b - loc) (beeped ?l - loc))
  (:action move
    :parameters (?a ?b - loc)
    :precondition (and (at ?a) (link ?a ?b))
    :effect (and (at ?b) (not (at ?a))))
  (:action beep
    :parameters (?l - loc)
    :precondition (not (at ?l))
    :effect (beeped ?l)))
