#!/usr/bin/env python3
"""The authors' GBFS counts with their hFF, on hfarm's grounded tasks.

Runs IBM/pddlsl's `greedy_best_first_search` (pddlsl/custom_pyperplan/
a_star.py, unedited) with their custom hFF (relaxation.py, hFFHeuristic) and
`max_evaluations` 10^4 (plan_all_*.sh) on every golden instance
(crates/planner/tests/golden/<domain>/) and every generated one
(crates/planner/fixtures/pddlsl_gbfs/<domain>/), and records per instance:
solved, evaluations (as a_star.py returns them, before plan.py:316 replaces
an unsolved run's with max_evaluations), expansions, plan length and plan.

  pinned  on hfarm's grounded task (operators in hfarm's order; exported by
          the planner's ignored test export_tasks_for_reference), Python's
          set iteration pinned to hfarm's order (pddlsl_pyperplan.py). The
          fixture's main record; crates/planner/tests/pyperplan_reference.rs
          checks planner::search::gbfs_pddlsl with ff-pyperplan against it.
  native  pyperplan's own grounding (its operator order) and unedited modules
          under PYTHONHASHSEED=0: `native_evaluations` etc., informational.

a_star.py reports expansions only in log lines; here they are the calls to
task.get_successor_states (one per expanded non-goal node) plus one when a
popped node is a goal (only the initial state can be: later goals are caught
when generated); checked against the "%d Nodes expanded" line when there is one.

Writes crates/planner/fixtures/pddlsl_gbfs_counts.json.

  /work/refs/venv/bin/python tools/reference/pddlsl_gbfs_counts.py [--jobs 2]
"""

import argparse
import concurrent.futures
import json
import logging
import os
import re
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pddlsl_pyperplan as pp  # noqa: E402

OUT = os.path.join(pp.REPO, "crates", "planner", "fixtures", "pddlsl_gbfs_counts.json")
MAX_EVALUATIONS = 10000


class ExpansionLog(logging.Handler):
    def __init__(self):
        super().__init__(logging.INFO)
        self.expanded = None

    def emit(self, record):
        m = re.fullmatch(r"(\d+) Nodes expanded", record.getMessage())
        if m:
            self.expanded = int(m.group(1))


def run(task, heuristic, a_star, max_evaluations):
    calls = [0]
    successors = task.get_successor_states

    def counted(state):
        calls[0] += 1
        return successors(state)

    task.get_successor_states = counted
    log = ExpansionLog()
    root = logging.getLogger()
    root.addHandler(log)
    root.setLevel(logging.INFO)
    t0 = time.process_time()
    try:
        plan, evaluations = a_star.greedy_best_first_search(task, heuristic, max_evaluations=max_evaluations)
    finally:
        root.removeHandler(log)
        task.get_successor_states = successors
    seconds = time.process_time() - t0
    expansions = calls[0] + (1 if plan == [] else 0)
    if log.expanded is not None and log.expanded != expansions:
        raise SystemExit(f"expansions: counted {expansions}, a_star.py logged {log.expanded}")
    return {
        "solved": plan is not None,
        "evaluations": evaluations,
        "expansions": expansions,
        "plan_length": len(plan) if plan is not None else -1,
        "plan": [op.name for op in plan] if plan is not None else None,
        "cpu_s": round(seconds, 3),
    }


def one(args):
    key, entry, tasks_dir, max_evaluations = args
    logging.disable(logging.NOTSET)
    logging.getLogger().handlers.clear()
    relax = {p: pp.load_module("relaxation", p) for p in (True, False)}
    a_star = pp.load_module("a_star", False)
    with open(os.path.join(tasks_dir, entry["task"])) as f:
        exported = json.load(f)
    task, rank = pp.pinned_task(exported)
    pp.Rank.rank = rank
    pinned = run(task, relax[True].hFFHeuristic(task), a_star, max_evaluations)
    native_task = pp.native_task(entry["domain"], entry["problem"])
    native = run(native_task, relax[False].hFFHeuristic(native_task), a_star, max_evaluations)
    del pinned["cpu_s"]
    pinned.update({f"native_{k}": v for k, v in native.items() if k != "plan"})
    return key, pinned


def main():
    pp.require_hash_seed()
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=OUT)
    ap.add_argument("--tasks", help="an existing export directory (default: export now)")
    ap.add_argument("--jobs", type=int, default=1, choices=(1, 2))
    ap.add_argument("--max-evaluations", type=int, default=MAX_EVALUATIONS)
    args = ap.parse_args()

    tasks_dir = args.tasks or tempfile.mkdtemp(prefix="hfarm-export-")
    index = pp.export_tasks(tasks_dir) if not args.tasks else json.load(open(os.path.join(tasks_dir, "index.json")))
    work = [(k, e, tasks_dir, args.max_evaluations) for k, e in sorted(index.items())]
    results = {}
    with concurrent.futures.ProcessPoolExecutor(args.jobs) as ex:
        for key, r in ex.map(one, work):
            results[key] = r
            print(f"{key}: {r['solved']} {r['evaluations']} evaluations, {r['expansions']} expansions; "
                  f"native {r['native_evaluations']} ({r['native_cpu_s']} s)", file=sys.stderr)

    n = len(results)
    same = sum(r["native_evaluations"] == r["evaluations"] for r in results.values())
    solved = sum(r["solved"] for r in results.values())
    summary = {"instances": n, "solved": solved,
               "native_evaluations_equal_to_pinned": same,
               "native_solved": sum(r["native_solved"] for r in results.values())}
    provenance = (
        "IBM/pddlsl custom pyperplan (commit " + pp.COMMIT + "): a_star.py greedy_best_first_search with "
        "relaxation.py hFFHeuristic, max_evaluations " + str(args.max_evaluations) + ", pyperplan 2.1. "
        "Keys: golden/<domain>/<file> = crates/planner/tests/golden, fixtures/<domain>/<file> = "
        "crates/planner/fixtures/pddlsl_gbfs. solved, evaluations (a_star.py's count; plan.py records "
        "max_evaluations for unsolved runs), expansions, plan_length (-1 unsolved), plan: on hfarm's grounded "
        "task in hfarm's operator order with Python's set iteration pinned to hfarm's order "
        "(tools/reference/pddlsl_pyperplan.py). native_*: pyperplan's own grounding (plan.py's flags) and "
        "unedited modules, PYTHONHASHSEED=" + os.environ.get("PYTHONHASHSEED", "?") + ", informational. "
        "Written by tools/reference/pddlsl_gbfs_counts.py."
    )
    with open(args.out, "w") as f:
        f.write('{"_provenance": ' + json.dumps(provenance) + ',\n')
        f.write(' "max_evaluations": ' + json.dumps(args.max_evaluations) + ',\n')
        f.write(' "summary": ' + json.dumps(summary) + ',\n')
        f.write(' "instances": {\n')
        f.write(",\n".join(f"  {json.dumps(k)}: {json.dumps(v, separators=(',', ':'))}"
                           for k, v in sorted(results.items())))
        f.write("\n}}\n")
    print(json.dumps(summary), file=sys.stderr)


if __name__ == "__main__":
    main()
