#!/usr/bin/env python3
"""Checks hfarm's WL features (crates/wl) against WLPlan, the reference
implementation of Chen, Trevizan & Thiebaux's WL features (ICAPS 2024).

WLPlan is installed from PyPI into a venv of its own under ~/.cache/hfarm
(never a project dependency); this script re-runs itself there.

For each problem: hfarm's example `wl_features` walks a few states from the
initial state (seeded) and prints their fluent atoms, its features (one
dictionary built on those states in order) and each colour's iteration.
The same states go to WLPlan (ILG, WL, multiset hashing, no pruning), which
builds its dictionary on them and embeds them. Colour ids differ between
the two, so the check is: the multiset of (iteration, column) pairs is the
same, where a column is one colour's counts over all states -- equal
feature matrices up to a renaming of colours within each iteration.

Why multiset hashing: the ILG paper's WL refines by the multiset of
neighbour colours; WLPlan's default (`multiset_hash=False`) uses the set.

Usage:
  tools/reference/wl_reference.py [--hfarm-example PATH] [--iterations K]
      [--states N] DOMAIN PROBLEM [PROBLEM ...]
  (build the example first: cargo build -p wl --example wl_features)

Exit status 0 when every problem agrees, 1 on a difference, 2 on usage
errors or a failed install.
"""

import argparse
import collections
import json
import os
import subprocess
import sys
import venv

WLPLAN = "wlplan==2.1.0"
VENV = os.path.expanduser("~/.cache/hfarm/wlplan-venv")
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def ensure_venv():
    """Re-runs this script in the venv with WLPlan, creating it if needed."""
    py = os.path.join(VENV, "bin", "python")
    if os.path.realpath(sys.prefix) == os.path.realpath(VENV):
        return
    if not os.path.exists(py):
        venv.create(VENV, with_pip=True)
    probe = subprocess.run([py, "-c", "import wlplan"], capture_output=True)
    if probe.returncode != 0:
        r = subprocess.run([py, "-m", "pip", "install", "-q", WLPLAN])
        if r.returncode != 0:
            sys.exit(2)
    os.execv(py, [py, os.path.abspath(__file__)] + sys.argv[1:])


def ours(example, domain, problem, iterations, states, seed):
    out = subprocess.run(
        [example, domain, problem, str(iterations), str(states), str(seed)], capture_output=True, text=True
    )
    if out.returncode != 0:
        print(out.stderr, file=sys.stderr)
        sys.exit(2)
    return json.loads(out.stdout)


def columns(rows, layer_of, n_colours):
    """The multiset of (iteration, counts over states) over colours that occur."""
    cols = collections.defaultdict(lambda: [0] * len(rows))
    for i, row in enumerate(rows):
        for c, n in row:
            cols[c][i] = int(round(n))
    return collections.Counter((layer_of[c], tuple(v)) for c, v in cols.items() if any(v))


def theirs(domain_file, problem_file, atoms, iterations):
    from wlplan.data import DomainDataset, ProblemDataset
    from wlplan.feature_generator import init_feature_generator
    from wlplan.planning import Atom, State, parse_domain, parse_problem

    domain = parse_domain(domain_file)
    problem = parse_problem(domain_file, problem_file)
    preds = {p.name: p for p in domain.predicates}
    states = [State([Atom(preds[name], list(args)) for name, args in s]) for s in atoms]
    data = DomainDataset(domain, [ProblemDataset(problem, states)])
    fg = init_feature_generator("wl", domain, "ilg", iterations, "none", True)
    fg.collect(data)
    fg.set_problem(problem)
    x = fg.embed(data)
    layer_of = fg.get_colour_to_layer()
    rows = [[(c, n) for c, n in enumerate(v) if n] for v in x]
    return rows, layer_of


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hfarm-example", default=os.path.join(ROOT, "target/debug/examples/wl_features"))
    ap.add_argument("--iterations", type=int, default=2)
    ap.add_argument("--states", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("domain")
    ap.add_argument("problems", nargs="+")
    a = ap.parse_args()
    if not os.path.exists(a.hfarm_example):
        print(f"{a.hfarm_example} missing: cargo build -p wl --example wl_features", file=sys.stderr)
        sys.exit(2)
    bad = 0
    for p in a.problems:
        o = ours(a.hfarm_example, a.domain, p, a.iterations, a.states, a.seed)
        mine = columns(o["features"], o["layer"], len(o["layer"]))
        rows, layer_of = theirs(a.domain, p, o["states"], a.iterations)
        ref = columns(rows, layer_of, len(layer_of))
        same = mine == ref
        bad += not same
        print(
            f"{p}: {len(o['states'])} states, hfarm {sum(mine.values())} colours, "
            f"wlplan {sum(ref.values())} colours: {'equal up to renaming' if same else 'DIFFERENT'}"
        )
        if not same:
            for t in range(a.iterations + 1):
                m = sum(n for (l, _), n in mine.items() if l == t)
                r = sum(n for (l, _), n in ref.items() if l == t)
                print(f"  iteration {t}: hfarm {m} colours, wlplan {r}")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    ensure_venv()
    main()
