"""How low can any linear model's test MSE go on the authors' `test` split?

The least-squares floor of the linear model (Gomoluch et al.'s four features,
`pyperplan_heuristic_gomoluch.py:27-62`) on our labels of their instances,
beside their per-run sheet (`reports/published/pddlsl-runs-test.csv`, model RR,
Gaussian, fixed sigma, residual zero and ff). No trained model can go below a
least-squares fit on the test states themselves, so a published MSE under that
floor says their data differ from ours, not our training.

Features two ways: ours (`[planning] heuristics = "pyperplan"`: pyperplan's hFF
pinned to our fact and operator order) and pyperplan's own, run as their
`generate_datum.py` runs it (one process per instance, so Python's string
hashes, and with them hFF's tie-breaking, differ per instance; here
PYTHONHASHSEED = the instance's index + 1, so runs repeat).

    python3 tools/reference/linear_floor.py visitall   # or gripper, ferry
Needs: pyperplan==2.1, numpy; the IBM/pddlsl mirror (see pddlsl_pyperplan.py).
"""

import csv
import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
# generate_data.sh:5-36: training seeds, test seeds (the test split is the
# validation stage's, and try i of seed s is generator seed s*1000+i in
# every split, so test instances are training instances).
SEEDS = {"visitall": (70, 17), "gripper": (80, 20), "ferry": (16, 4)}


def native_features(out, domain, name, rows):
    """Worker mode: pyperplan's own features on one instance's plan states."""
    sys.path.insert(0, HERE)
    import pddlsl_pyperplan as P
    from pyperplan.search.searchspace import make_root_node

    P.quiet_logging()
    rel = P.load_module("relaxation", pinned=False)
    text = open(f"{out}/{name}.pddl").read()
    head, goal = text[: text.index("(:init")], text[text.index("(:goal"):]
    tmp = f"{out}/tmp-{os.getpid()}.pddl"
    for k, atoms in rows:
        with open(tmp, "w") as f:
            f.write(head + "(:init\n" + "\n".join(atoms.split(";")) + ")\n" + goal)
        task = P.native_task(f"{out}/{domain}-domain.pddl", tmp)
        gc = len(task.goals - task.initial_state)
        hff, plan = rel.hFFHeuristic(task).calc_h_with_plan(make_root_node(task.initial_state))
        ops = {op.name: op for op in task.operators}
        dels = [len(ops[o].del_effects) for o in plan]
        print(f"{k}\t{gc}\t{hff}\t{sum(dels)}\t{sum(dels) / len(dels) if dels else 0.0}")
    os.remove(tmp)


def their_runs(domain, dist, sigma, columns):
    """The authors' linear runs (model RR, l = lmcut, 400 training
    instances) of one distribution and sigma on the `test` split, from
    `reports/published/pddlsl-runs-test.csv`: {residual: array [runs, columns]}."""
    out = {}
    with open(f"{REPO}/reports/published/pddlsl-runs-test.csv") as f:
        rows = list(csv.reader(line for line in f if not line.startswith("#")))
    head = rows[0]
    for r in rows[1:]:
        d = dict(zip(head, r))
        if (d["model"], d["domain"], d["dist"], d["sigma"], d["l"], d["train_size"]) == (
                "RR", domain, dist, sigma, "lmcut", "400"):
            out.setdefault(d["res"], []).append([float(d[c]) for c in columns])
    return {k: np.array(v) for k, v in out.items()}


def published(domain):
    """Their Gaussian fixed-sigma best-MSE test MSE: {residual: (mean, std)}."""
    runs = their_runs(domain, "gaussian", "fixed", ["best_mse_T_mse"])
    return {k: (v[:, 0].mean(), v[:, 0].std(ddof=1)) for k, v in runs.items()}


def plan_states(domain, out):
    """Every optimal-plan state of the domain's instances (training seeds,
    which include the test seeds), one TSV row each, written by the planner's
    `plan_state_features` example into `out` (its doc lists the columns)."""
    os.makedirs(out, exist_ok=True)
    subprocess.run(["cargo", "run", "-q", "--release", "-p", "planner", "--example", "plan_state_features", "--",
                    domain, str(SEEDS[domain][0]), out], cwd=REPO, check=True)
    return [line.rstrip("\n").split("\t") for line in open(f"{out}/{domain}.tsv")]


def main():
    if sys.argv[1] == "--native":
        _, _, out, domain, name = sys.argv
        rows = [(k, line.rstrip("\n").split("\t")[11]) for k, line in enumerate(open(f"{out}/{domain}.tsv"))
                if line.startswith(name + "\t")]
        return native_features(out, domain, name, rows)
    domain = sys.argv[1]
    out = sys.argv[2] if len(sys.argv) > 2 else f"/tmp/linear-floor-{domain}"
    train, test = SEEDS[domain]
    rows = plan_states(domain, out)
    names = list(dict.fromkeys(r[0] for r in rows))
    native = {}
    procs = []
    for i, name in enumerate(names):
        env = dict(os.environ, PYTHONHASHSEED=str(i + 1))
        procs.append(subprocess.Popen([sys.executable, __file__, "--native", out, domain, name], env=env,
                                      stdout=subprocess.PIPE, text=True))
        if len(procs) >= os.cpu_count() or i == len(names) - 1:
            for p in procs:
                for line in p.communicate()[0].splitlines():
                    k, *f = line.split("\t")
                    native[int(k)] = [float(x) for x in f]
            procs = []
    y = np.array([float(r[3]) for r in rows])
    seed = np.array([int(r[1]) for r in rows])
    res_ff = np.array([float(r[8]) for r in rows])
    ours = np.array([[float(x) for x in r[4:8]] for r in rows])
    theirs = np.array([native[k] for k in range(len(rows))])
    te = seed <= test

    def floor(x, res, fit_on):
        a = np.c_[x, np.ones(len(y))]
        w, *_ = np.linalg.lstsq(a[fit_on], (y - res)[fit_on], rcond=None)
        return float((((a @ w + res) - y)[te] ** 2).mean())

    pub = published(domain)
    print(f"{domain}: {len(names)} instances, {len(y)} plan states ({te.sum()} in the test split); "
          f"pyperplan's own hFF differs from ours on {(theirs[:, 1] != ours[:, 1]).sum()} states")
    print("residual | features          | LS on train -> test | LS on test (floor) | theirs (5 runs)")
    for res_name, res in (("zero", 0.0), ("ff", res_ff)):
        for fname, x in (("ours (pinned)", ours), ("pyperplan native", theirs)):
            m, s = pub.get(res_name, (float("nan"), float("nan")))
            print(f"{res_name:8} | {fname:17} | {floor(x, res, seed <= train):19.3f} | {floor(x, res, te):18.3f} | "
                  f"{m:.3f} +- {s:.3f}")


if __name__ == "__main__":
    main()
