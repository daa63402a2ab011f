#!/usr/bin/env python3
"""The authors' planning-time hFF and LM-cut on every golden plan state.

For each instance of crates/planner/tests/golden/plan_states.json, evaluates
IBM/pddlsl's custom pyperplan hFF (relaxation.py, hFFHeuristic) and LM-cut
(lm_cut.py, LmCutHeuristic) on the states s_1..s_n in plan order, one
heuristic object per instance (their LM-cut keeps operator data from one
state to the next, as during a search):

  pinned  on hfarm's grounded task (exported by the planner's ignored test
          export_tasks_for_reference), states mapped to it by atom name
          (static atoms dropped), every Python set iteration pinned to
          hfarm's order (see pddlsl_pyperplan.py). These are `ff` and `lmcut`
          in the fixture; crates/planner/tests/pyperplan_reference.rs checks
          ff-pyperplan and lmcut-pyperplan against them on every state.
  native  pyperplan's own grounding and unedited modules under
          PYTHONHASHSEED=0 (`ff_native`, `lmcut_native`; informational: how
          far hash-order tie-breaking moves the values).

Writes crates/planner/fixtures/pyperplan_values.json, one state per line.

  /work/refs/venv/bin/python tools/reference/pyperplan_values.py
Needs pyperplan 2.1 in that interpreter (pip install pyperplan==2.1), the
IBM/pddlsl mirror (PDDLSL_MIRROR) and cargo.
"""

import argparse
import collections
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pddlsl_pyperplan as pp  # noqa: E402

GOLDEN = os.path.join(pp.REPO, "crates", "planner", "tests", "golden")
OUT = os.path.join(pp.REPO, "crates", "planner", "fixtures", "pyperplan_values.json")


class Node:
    """What their heuristics read of a search node."""

    def __init__(self, state):
        self.state = state


def number(v):
    return None if v == float("inf") else int(v) if float(v).is_integer() else v


def main():
    pp.require_hash_seed()
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=OUT)
    ap.add_argument("--tasks", help="an existing export directory (default: export now)")
    args = ap.parse_args()
    pp.quiet_logging()

    tasks_dir = args.tasks or tempfile.mkdtemp(prefix="hfarm-export-")
    index = pp.export_tasks(tasks_dir) if not args.tasks else json.load(open(os.path.join(tasks_dir, "index.json")))
    relax = {p: pp.load_module("relaxation", p) for p in (True, False)}
    lmcut = {p: pp.load_module("lm_cut", p) for p in (True, False)}

    with open(os.path.join(GOLDEN, "plan_states.json")) as f:
        plan_states = json.load(f)["states"]
    by_key = collections.defaultdict(list)
    for s in plan_states:
        by_key[s["key"]].append(s)

    rows, native_equal, dropped = [], collections.Counter(), 0
    for key, states in sorted(by_key.items()):
        domain_name = key.split("/")[0]
        entry = index[f"golden/{key}"]
        with open(os.path.join(tasks_dir, entry["task"])) as f:
            exported = json.load(f)
        task, rank = pp.pinned_task(exported)
        facts, statics = set(exported["facts"]), set(exported["static_atoms"])
        pp.Rank.rank = rank
        deletes = {o.name: o.del_effects for o in task.operators}
        ff_p, lm_p = relax[True].hFFHeuristic(task), lmcut[True].LmCutHeuristic(task)
        native = pp.native_task(os.path.join(GOLDEN, domain_name, "domain.pddl"), os.path.join(GOLDEN, key))
        ff_n, lm_n = relax[False].hFFHeuristic(native), lmcut[False].LmCutHeuristic(native)
        for s in sorted(states, key=lambda s: s["k"]):
            atoms = set(s["atoms"])
            # Atoms hfarm's grounding pruned as irrelevant (neither a goal nor
            # any operator's precondition) are in no task it evaluates.
            dropped += len(atoms - facts - statics)
            ours = frozenset(atoms & facts)
            ff_with_plan, relaxed_plan = ff_p.calc_h_with_plan(Node(ours))
            row = {
                "key": key, "k": s["k"], "h_star": s["h_star"],
                "ff": number(ff_p(Node(ours))), "lmcut": number(lm_p(Node(ours))),
                "ff_with_plan": number(ff_with_plan),
                "plan_deletes": None if relaxed_plan is None else sum(len(deletes[o]) for o in relaxed_plan),
                "ff_native": number(ff_n(Node(frozenset(atoms)))),
                "lmcut_native": number(lm_n(Node(frozenset(atoms)))),
                "fd_ff": s["ff"], "fd_lmcut": s["lmcut"],
            }
            for h in ("ff", "lmcut"):
                native_equal[h] += row[h] == row[f"{h}_native"]
            rows.append(row)
        print(f"{key}: {len(states)} states", file=sys.stderr)

    n = len(rows)
    summary = {h: f"{native_equal[h]} of {n}" for h in ("ff", "lmcut")}
    provenance = (
        "IBM/pddlsl custom pyperplan (commit " + pp.COMMIT + ", pddlsl/custom_pyperplan/relaxation.py "
        "hFFHeuristic and lm_cut.py LmCutHeuristic) on pyperplan 2.1, evaluated on every state of "
        "crates/planner/tests/golden/plan_states.json (k >= 1), in plan order, one heuristic object per "
        "instance. ff, lmcut: on hfarm's grounded task with Python's set iteration pinned to hfarm's order "
        "(tools/reference/pddlsl_pyperplan.py); ff_with_plan, plan_deletes: hFFHeuristic.calc_h_with_plan's value "
        "and the number of delete effects of its relaxed plan's operators (the linear model's features, "
        "pyperplan_heuristic_gomoluch.py:42-57), pinned likewise; ff_native, lmcut_native: pyperplan's own grounding, "
        "unedited modules, PYTHONHASHSEED=" + os.environ.get("PYTHONHASHSEED", "?") + "; fd_ff, fd_lmcut: "
        "Fast Downward's values from plan_states.json, whose atoms give the states (by key and k). null = infinity. Written by "
        "tools/reference/pyperplan_values.py."
    )
    with open(args.out, "w") as f:
        f.write('{"_provenance": ' + json.dumps(provenance) + ',\n')
        f.write(' "native_equal_to_pinned": ' + json.dumps(summary) + ',\n')
        f.write(' "states": [\n')
        f.write(",\n".join("  " + json.dumps(r, separators=(",", ":")) for r in rows))
        f.write("\n]}\n")
    print(f"{n} states ({dropped} atoms hfarm pruned as irrelevant); native equal to pinned: {summary}",
          file=sys.stderr)
    for h in ("ff", "lmcut"):
        fd_equal = sum(r[h] == r[f"fd_{h}"] for r in rows)
        print(f"{h}: pyperplan (pinned) equal to Fast Downward on {fd_equal} of {n}", file=sys.stderr)


if __name__ == "__main__":
    main()
