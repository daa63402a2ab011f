; README question (a): FD's blind() at a non-goal state returns the minimum
; cost over the operators of the *translated* task. `doodle` (cost 1) only
; touches a variable that is irrelevant to the goal, so FD's translator
; drops it ("1 of 2 variables necessary", "2 of 3 operators necessary") and
; blind() reports 3 (min of step=3, jump=5), not 1.
(define (domain blindcost)
  (:requirements :strips :action-costs)
  (:predicates (p0) (p1) (p2) (doodled))
  (:functions (total-cost) - number)
  (:action step
    :parameters ()
    :precondition (p0)
    :effect (and (p1) (not (p0)) (increase (total-cost) 3)))
  (:action jump
    :parameters ()
    :precondition (p1)
    :effect (and (p2) (not (p1)) (increase (total-cost) 5)))
  (:action doodle
    :parameters ()
    :precondition (and)
    :effect (and (doodled) (increase (total-cost) 1))))
