; Tiny domain for FD's treatment of negative preconditions (README question c).
; FD's translator encodes (locked) as a binary FDR variable with values
; {Atom locked, NegatedAtom locked}; the precondition (not (locked)) becomes
; the positive fact "NegatedAtom locked", which only `unlock` (the action
; that deletes locked) achieves. Relaxed heuristics therefore must pay for
; unlock + get-key before open-door / silence become applicable.
(define (domain negpre)
  (:requirements :strips :negative-preconditions)
  (:predicates (locked) (have-key) (open) (done) (quiet))
  (:action get-key
    :parameters ()
    :precondition (and)
    :effect (have-key))
  (:action unlock
    :parameters ()
    :precondition (have-key)
    :effect (not (locked)))
  (:action open-door
    :parameters ()
    :precondition (not (locked))
    :effect (open))
  (:action silence
    :parameters ()
    :precondition (not (locked))
    :effect (quiet))
  (:action finish
    :parameters ()
    :precondition (open)
    :effect (done)))
