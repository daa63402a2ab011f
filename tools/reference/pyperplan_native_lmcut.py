"""Worker for tn_lower_bound.py: pyperplan's own LM-cut and Gomoluch
features on one instance's plan states, run as pyperplan runs them.

    PYTHONHASHSEED=S python3 pyperplan_native_lmcut.py OUT DOMAIN NAME [default]

Reads the rows of OUT/DOMAIN.tsv (plan_state_features' output) whose name is
NAME, grounds OUT/NAME.pddl with pyperplan 2.1 and plan.py's flags
(pddlsl_pyperplan.native_task; with `default`, pyperplan's own defaults:
statics and irrelevant operators removed, as its command line grounds),
loads IBM/pddlsl's `custom_pyperplan` lm_cut.py and relaxation.py unedited,
and prints per state, in plan order: the TSV row, LM-cut from one
LmCutHeuristic kept for the whole instance (`shared`: it keeps operator data
from one state to the next, as in a search), LM-cut from a new
LmCutHeuristic (`fresh`), and Gomoluch's four features (goal count, hFF,
its relaxed plan's deletes and their mean, with a new hFFHeuristic per state
as `compute_gomoluch_features` builds one).
Kept apart from tn_lower_bound.py so that a worker imports neither numpy nor
scipy (most of its start-up time: it runs once per instance).
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pddlsl_pyperplan as P  # noqa: E402


def main():
    out, domain, name = sys.argv[1:4]
    from pyperplan.search.searchspace import make_root_node

    P.quiet_logging()
    lm, rel = P.load_module("lm_cut", pinned=False), P.load_module("relaxation", pinned=False)
    rows = [(k, line.rstrip("\n").split("\t")[11]) for k, line in enumerate(open(f"{out}/{domain}.tsv"))
            if line.startswith(name + "\t")]
    if len(sys.argv) > 4 and sys.argv[4] == "default":  # pyperplan's own defaults (its CLI's)
        from pyperplan.planner import _ground, _parse
        task = _ground(_parse(f"{out}/{domain}-domain.pddl", f"{out}/{name}.pddl"))
    else:
        task = P.native_task(f"{out}/{domain}-domain.pddl", f"{out}/{name}.pddl")
    ops = {op.name: op for op in task.operators}
    shared = lm.LmCutHeuristic(task)
    for k, atoms in rows:
        state = frozenset(atoms.split(";"))
        node = make_root_node(state)
        fresh = lm.LmCutHeuristic(task)(node)
        # compute_gomoluch_features (pyperplan_heuristic_gomoluch.py:27-62)
        hff, plan = rel.hFFHeuristic(task).calc_h_with_plan(node)
        dels = [len(ops[o].del_effects) for o in plan]
        print(k, shared(node), fresh, len(task.goals - state), hff, sum(dels),
              sum(dels) / len(dels) if dels else 0.0, sep="\t")


if __name__ == "__main__":
    main()
