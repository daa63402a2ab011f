#!/usr/bin/env python3
"""The authors' per-run accuracy results as fixtures for `hfarm report --against pddlsl-runs`.

Reads sheet `results` of `experiments/results_training.ods` (split `test`) and
`experiments/results_training2.ods` (split `test2`) of IBM/pddlsl, straight out of
the bare mirror, and writes one CSV per sheet (`reports/published/pddlsl-runs-SPLIT.csv`):
one row per training run (a configuration and a seed), with the test MSE and NLL
of its best-validation-MSE and best-validation-NLL checkpoints.

The sheets are what `experiments/results_training.py` made of the runs' JSON
records (one record per run: every hyperparameter of `train.py`, then for each
checkpoint `last`, `best_mse`, `best_nll` the test metrics as
`<ckpt>_T_<metric>`), saved as .ods by the authors. Kept here:

- configuration: model (RR = linear, NLM, HGN), domain, dist (gaussian,
  truncated), sigma (learn, fixed), res (residual: zero, ff, lmcut), l (lower
  bound: lmcut, hmax, blind), train_size, decay, exclude_self (NLM only),
  num_recursion_steps (HGN only), seed;
- last_step (steps the run trained; informative, not part of the configuration);
- best_mse_T_mse, best_mse_T_nll, best_nll_T_mse, best_nll_T_nll.

Left out: the `_clip`, `_floor`, `_ceil`, `_round`, `_smart*` variants, mu and
sigma, `last_*`, and columns constant over each model (lr, hidden_features,
batch_size, clip, ...): the script checks they are constant per model and that
`l_test`/`l_train` equal `l` and `res_test`/`res_train` equal `res`. It fails
unless every configuration has exactly one run per seed.

Numbers are written as the sheet stores them (office:value, 15 significant
digits), so the fixture is lossless.

    /work/refs/venv/bin/pip install odfpy
    /work/refs/venv/bin/python tools/reference/pddlsl_runs.py            # writes the fixtures
    /work/refs/venv/bin/python tools/reference/pddlsl_runs.py --check    # fails if they differ
"""

import argparse
import collections
import csv
import io
import os
import subprocess
import sys

from odf.opendocument import load
from odf.table import Table, TableRow
from odf.text import P

REPO = "IBM/pddlsl"
COMMIT = "b4c807ad2ed7f52443c590dc31bd0ed347a21e0c"
MIRROR = "/work/.mirror/IBM+pddlsl/repo"
SHEETS = [("test", "experiments/results_training.ods"), ("test2", "experiments/results_training2.ods")]
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "reports", "published")

# The configuration, in the sheets' names and values.
CONFIG = ["model", "domain", "dist", "sigma", "res", "l", "train_size", "decay", "exclude_self",
          "num_recursion_steps"]
# Checked to equal another column in every run.
SAME = {"l_test": "l", "l_train": "l", "res_test": "res", "res_train": "res"}
# Checked to be constant within each model.
PER_MODEL = ["lr", "hidden_features", "mlp_hidden_features", "batch_size", "clip", "activation", "batchnorm",
             "mask_value", "target", "learner", "output", "deterministic", "l_as_input", "u_test", "u_train"]
METRICS = ["best_mse_T_mse", "best_mse_T_nll", "best_nll_T_mse", "best_nll_T_nll"]
COLUMNS = CONFIG + ["seed", "last_step"] + METRICS


def cell_value(c):
    if c.getAttribute("valuetype") in ("float", "percentage", "currency"):
        return c.getAttribute("value")
    return "\n".join(str(p) for p in c.getElementsByType(P))


def sheet_rows(table):
    out = []
    for r in table.getElementsByType(TableRow):
        vals = []
        for c in r.childNodes:
            if c.qname[1] not in ("table-cell", "covered-table-cell"):
                continue
            rep = int(c.getAttribute("numbercolumnsrepeated") or 1)
            v = cell_value(c)
            vals.extend([v] * (rep if v != "" else min(rep, 1024)))
        while vals and vals[-1] == "":
            vals.pop()
        if vals:
            out.extend([vals] * int(r.getAttribute("numberrowsrepeated") or 1))
    return out


def read_runs(path):
    """The runs of sheet `results` of the .ods at `path` in the mirror, as dicts."""
    blob = subprocess.run(["git", "-C", MIRROR, "show", f"{COMMIT}:{path}"], check=True,
                          capture_output=True).stdout
    doc = load(io.BytesIO(blob))
    tables = [t for t in doc.spreadsheet.getElementsByType(Table) if t.getAttribute("name") == "results"]
    if len(tables) != 1:
        sys.exit(f"{path}: expected one sheet named results, found {len(tables)}")
    rows = sheet_rows(tables[0])
    header = rows[0]
    missing = [c for c in COLUMNS + list(SAME) + PER_MODEL if c not in header]
    if missing:
        sys.exit(f"{path}, sheet results: no column {', '.join(missing)}")
    runs = []
    for i, r in enumerate(rows[1:], start=2):
        if len(r) > len(header):
            sys.exit(f"{path}, sheet results, row {i}: {len(r)} cells, header has {len(header)}")
        runs.append(dict(zip(header, r + [""] * (len(header) - len(r)))))
    return runs


def check(split, path, runs):
    where = f"{path} (split {split})"
    for i, r in enumerate(runs, start=2):
        for col, other in SAME.items():
            if r[col] != r[other]:
                sys.exit(f"{where}, row {i}: {col} {r[col]!r} differs from {other} {r[other]!r}")
        for m in METRICS:
            try:
                float(r[m])
            except ValueError:
                sys.exit(f"{where}, row {i}: {m} {r[m]!r} is not a number")
    for col in PER_MODEL:
        seen = collections.defaultdict(set)
        for r in runs:
            seen[r["model"]].add(r[col])
        for model, values in seen.items():
            if len(values) != 1:
                sys.exit(f"{where}: {col} takes {sorted(values)} within model {model}")
    configs = collections.defaultdict(list)
    for r in runs:
        configs[tuple(r[c] for c in CONFIG)].append(r["seed"])
    seeds = sorted({r["seed"] for r in runs}, key=int)
    for config, got in configs.items():
        if sorted(got, key=int) != seeds:
            sys.exit(f"{where}: configuration {dict(zip(CONFIG, config))} has seeds {sorted(got)}, not {seeds}")
    return configs, seeds


def fixture(split, path, runs, configs, seeds):
    out = io.StringIO()
    out.write(f"# {REPO} at {COMMIT}, {path}, sheet \"results\": the authors' per-run test accuracy, split {split}.\n")
    out.write("# Every row, written by tools/reference/pddlsl_runs.py.\n")
    out.write(f"# {len(runs)} runs: {len(configs)} configurations x seeds {' '.join(seeds)}.\n")
    out.write("# Their names: model RR = linear; res zero = no residual; l = the lower bound;\n")
    out.write("# best_mse_T_X / best_nll_T_X = test metric X of the best-validation-MSE / -NLL checkpoint.\n")
    w = csv.writer(out, lineterminator="\n")
    w.writerow(COLUMNS)
    key = lambda r: (r["model"], r["domain"], r["dist"], r["sigma"], r["res"], r["l"], r["train_size"],
                     r["decay"], r["exclude_self"], r["num_recursion_steps"], int(r["seed"]))
    for r in sorted(runs, key=key):
        w.writerow([r[c] for c in COLUMNS])
    return out.getvalue()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=OUT, help="directory of the fixtures (default reports/published)")
    ap.add_argument("--check", action="store_true", help="fail if the written fixtures differ")
    args = ap.parse_args()
    differ = False
    for split, path in SHEETS:
        runs = read_runs(path)
        configs, seeds = check(split, path, runs)
        text = fixture(split, path, runs, configs, seeds)
        target = os.path.join(args.out, f"pddlsl-runs-{split}.csv")
        counts = collections.Counter((r["domain"], r["model"]) for r in runs)
        print(f"{split}: {len(runs)} runs, {len(configs)} configurations, seeds {' '.join(seeds)}")
        for (domain, model), n in sorted(counts.items()):
            print(f"  {domain:12} {model:4} {n:4} runs ({n // len(seeds)} configurations)")
        short = [r for r in runs if r["last_step"] not in ("40000", "100000")]
        for r in short:
            print(f"  note: {r['domain']} {r['model']} seed {r['seed']} stopped at step {r['last_step']}")
        if args.check:
            with open(target, encoding="utf-8") as f:
                if f.read() != text:
                    print(f"{target} differs from the sheet", file=sys.stderr)
                    differ = True
        else:
            with open(target, "w", encoding="utf-8") as f:
                f.write(text)
            print(f"  wrote {target} ({len(text.encode())} bytes)")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
