; README question (d), second case: relaxed-unreachable only because of a
; negative precondition. FD's translator checks relaxed reachability while
; *ignoring* negative preconditions, and its per-variable DTG filter sees
; both values of (p) reachable, so it keeps the real task. In FDR,
; "NegatedAtom p" needs `release` (pre g) and g needs `grab` (pre not p):
; a cycle, so hmax/hadd/ff/lmcut are infinite at the initial state while
; blind and goalcount are ordinary numbers of the real task.
(define (domain negpre-deadend)
  (:requirements :strips :negative-preconditions)
  (:predicates (p) (g))
  (:action grab
    :parameters ()
    :precondition (not (p))
    :effect (g))
  (:action release
    :parameters ()
    :precondition (g)
    :effect (not (p))))
