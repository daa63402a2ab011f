#!/usr/bin/env python3
"""Build hfarm's FD-derived golden fixtures and benchmark instance sets.

Every number written here comes from Fast Downward (FD), through
fd_reference.py next to this file; the problems come from hfarm's own
generator (`hfarm generate`).  hfarm's planner is only used to *cross-check*
(the `check` step), never as a source of expected values.  Standard library
only, Python >= 3.8.

Outputs (paths relative to the repository root):

  crates/planner/tests/golden/<domain>/domain.pddl, <name>.pddl, and
  crates/planner/tests/golden/fd.json          A*+LM-cut optimum and initial-state
                                        hmax/hadd/ff/lmcut/blind/goalcount.
  benchmarks/astar-lmcut/...            harder A*+LM-cut instances, FD timings.
  benchmarks/gbfs-ff/...                larger GBFS(h^FF) instances, FD speed.

Subcommands:

  golden      [--select]   (re)label the golden set
  bench-astar [--select]   (re)label benchmarks/astar-lmcut (sequential)
  bench-gbfs  [--select]   (re)label benchmarks/gbfs-ff (sequential)
  check       [SET ...]    compare hfarm with the stored FD numbers
                           (SET: golden, bench-astar, bench-gbfs; default all)

Without --select, the instance list is read from the existing fd.json (its
"generator" fields), every problem is regenerated with `hfarm generate` (a
warning is printed if the text differs from the stored file) and relabelled
with FD.  With --select, candidates are drawn from the parameter grids below,
labelled with FD and kept according to the selection rules (FD search-time
windows, optimal cost > 0, no duplicate problems); the directory's problem
files are replaced.  Selection depends on timings, so it is not exactly
reproducible; relabelling is (up to the informational timing fields).

Typical use (from the repository root):

  export FD_PYTHON=/work/refs/venv/bin/python   # see README.md
  python3 tools/reference/make_golden.py --bin target/release/hfarm golden
  python3 tools/reference/make_golden.py --bin target/release/hfarm check golden

At most 2 processes run at a time (--jobs 1|2); benchmark timings always run
one at a time.
"""

import argparse
import concurrent.futures
import datetime
import hashlib
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
FD_REF = os.path.join(HERE, "fd_reference.py")

GOLDEN_DIR = os.path.join("planner", "tests", "golden")
BENCH_ASTAR_DIR = os.path.join("benchmarks", "astar-lmcut")
BENCH_GBFS_DIR = os.path.join("benchmarks", "gbfs-ff")

DOMAINS = ["blocksworld", "ferry", "gripper", "visitall"]
# generator parameter names per domain, in file-name order
PARAMS = {
    "blocksworld": ["blocks"],
    "ferry": ["locations", "cars"],
    "gripper": ["balls"],
    "visitall": ["size", "ratio"],
}
HEURISTICS = ["hmax", "hadd", "ff", "lmcut", "blind", "goalcount"]

# --------------------------------------------------------------------------
# Selection grids.  Each entry: (params, quota, max_seeds).  Seeds 1, 2, ...
# are tried in order until `quota` instances pass or `max_seeds` were tried.

GOLDEN_MAX_SEARCH_S = 1.5      # FD A*+LM-cut "Search time" (CPU), exclusive
GOLDEN_TIME_LIMIT = 6          # FD CPU-time limit per call while selecting

GOLDEN_GRID = {
    "blocksworld": [({"blocks": b}, 7, 12) for b in range(5, 11)]
    + [({"blocks": b}, 4, 12) for b in range(11, 13)],
    "ferry": [({"locations": l, "cars": c}, 2, 8)
              for l in range(2, 7) for c in range(2, 7)],
    "gripper": [({"balls": b}, 9, 30) for b in (2, 4, 6, 8, 10)],
    # At ratio 1.0 every cell is a goal and the robot starts in the centre, so
    # the seed only changes the problem's name: one problem per size.
    "visitall": [({"size": n, "ratio": r}, 13 if r == 0.5 else 1, 30)
                 for n in (3, 4, 5) for r in (0.5, 1.0)],
}

# Benchmarks: candidates are tried round-robin over the listed parameter
# combinations (seed 1 of each, then seed 2, ...), an instance is kept when
# FD's search time is inside the window and the domain's total stays within
# its budget, until `quota` per domain.
BENCH_ASTAR = {
    "window": (0.3, 6.0), "quota": 4, "domain_budget_s": 10.0, "time_limit": 10,
    "max_seeds": 40,
    "grid": {
        "blocksworld": [{"blocks": b} for b in (10, 11, 12)],
        # Ferry inside the training range (<= 6 locations, <= 6 cars) stays under
        # ~0.1 s of FD search, so the benchmark goes to 8-9 cars.
        "ferry": [{"locations": l, "cars": c} for l, c in ((6, 8), (6, 9))],
        # Random gripper problems are mostly easy: with <= 10 balls only ~1 seed
        # in 40 needs >= 0.3 s, so 12 and 14 balls are candidates too.
        "gripper": [{"balls": b} for b in (10, 12, 14)],
        # FD's default LM-cut is (near) perfect on visitall with ratio 1.0 (5x5:
        # h = 24 = optimal, 25 expansions) and 5x5 ratio 0.5 needs < 0.02 s, so
        # the visitall benchmark uses 6x6 and 7x7 grids with ratio 0.5.
        "visitall": [{"size": n, "ratio": 0.5} for n in (6, 7)],
    },
}
BENCH_GBFS = {
    "window": (0.2, 5.0), "quota": 2, "domain_budget_s": 8.0, "time_limit": 15,
    "max_seeds": 12,
    "grid": {
        # At the test-split sizes (ferry <= 20, gripper <= 40, visitall <= 8) FD's
        # GBFS search takes under ~0.03 s, too little to time; those domains use
        # larger instances (measured: ferry 40/40 0.22 s, gripper 80 0.6 s,
        # visitall 12x12 0.63 s).
        "blocksworld": [{"blocks": b} for b in (18, 20, 19, 17)],
        "ferry": [{"locations": l, "cars": c} for l, c in ((40, 40), (50, 50))],
        "gripper": [{"balls": b} for b in (80, 100)],
        "visitall": [{"size": n, "ratio": r} for n, r in ((12, 1.0), (14, 0.5))],
    },
}


# --------------------------------------------------------------------------
# Helpers


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def fmt_param(v):
    return repr(v) if isinstance(v, float) else str(v)


def instance_name(domain, params, seed):
    if domain == "blocksworld":
        return "bw-b%d-s%d.pddl" % (params["blocks"], seed)
    if domain == "ferry":
        return "ferry-l%d-c%d-s%d.pddl" % (params["locations"], params["cars"], seed)
    if domain == "gripper":
        return "gripper-b%d-s%d.pddl" % (params["balls"], seed)
    if domain == "visitall":
        return "visitall-n%d-r%s-s%d.pddl" % (params["size"], fmt_param(params["ratio"]), seed)
    raise ValueError(domain)


def generator_record(domain, params, seed):
    rec = {"domain": domain, "seed": seed}
    for k in PARAMS[domain]:
        rec[k] = params[k]
    return rec


def sort_key(key_and_entry):
    key, entry = key_and_entry
    g = entry["generator"]
    return (DOMAINS.index(g["domain"]),) + tuple(float(g[k]) for k in PARAMS[g["domain"]]) + (g["seed"],)


# FD 26.x's lmcut() defaults to goal_zone_detection=true, border_detection=true
# (Lauer & Fickert 2020, FD issue1228), which changes which cuts are found and
# often raises the value.  The classic Helmert & Domshlak (2009) LM-cut is the
# same plugin with both options off; its initial-state value is stored as
# "lmcut_classic".  Both depend on tie-breaking among h^max supporters.
LMCUT_CLASSIC = "lmcut(goal_zone_detection=false,border_detection=false)"


class Tools:
    def __init__(self, args):
        self.bin = os.path.abspath(args.bin)
        if not os.path.isfile(self.bin):
            sys.exit("make_golden: hfarm binary not found: %s (use --bin)" % self.bin)
        self.fd_python = args.fd_python or os.environ.get("FD_PYTHON")
        self.jobs = max(1, min(2, args.jobs))

    # hfarm ---------------------------------------------------------------
    def run_bin(self, *argv, timeout=None):
        r = subprocess.run([self.bin] + [str(a) for a in argv], capture_output=True,
                           text=True, timeout=timeout)
        return r

    def domain_text(self, domain):
        r = self.run_bin("domain", domain)
        if r.returncode != 0:
            raise RuntimeError("hfarm domain %s failed: %s" % (domain, r.stderr))
        return r.stdout

    def generate(self, domain, params, seed):
        argv = ["generate", domain, "--seed", seed]
        for k in PARAMS[domain]:
            argv += ["--" + k, fmt_param(params[k])]
        r = self.run_bin(*argv)
        if r.returncode != 0:
            raise RuntimeError("hfarm %s failed: %s" % (" ".join(map(str, argv)), r.stderr))
        return r.stdout

    # FD --------------------------------------------------------------------
    def fd(self, sub, domain_file, problem_file, time_limit=None):
        cmd = [sys.executable, FD_REF]
        if self.fd_python:
            cmd += ["--python", self.fd_python]
        cmd += [sub, domain_file, problem_file]
        if time_limit is not None:
            cmd += ["--time-limit", str(time_limit)]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError("fd_reference %s %s failed (exit %d):\n%s"
                               % (sub, problem_file, r.returncode, r.stderr[-3000:]))
        return json.loads(r.stdout)

    def fd_lmcut_classic(self, domain_file, problem_file):
        """Initial-state value of the classic LM-cut (None = dead end)."""
        sys.path.insert(0, HERE)
        import fd_reference  # noqa: E402  (next to this file)
        ns = argparse.Namespace(python=self.fd_python, fd_driver=None)
        fd = fd_reference.locate_fd(ns)
        run = fd_reference.run_fd(fd, domain_file, problem_file,
                                  "eager_greedy([%s], bound=0)" % LMCUT_CLASSIC)
        if run["rc"] not in (0, 13):
            raise RuntimeError("FD %s on %s: exit %s" % (LMCUT_CLASSIC, problem_file, run["rc"]))
        v = fd_reference.parse_initial_h(run["log"])
        if "lmcut" not in v:
            raise RuntimeError("FD %s on %s: no initial value" % (LMCUT_CLASSIC, problem_file))
        return v["lmcut"]

    def fd_version(self):
        cmd = [sys.executable, FD_REF] + (["--python", self.fd_python] if self.fd_python else []) + ["version"]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit("make_golden: cannot run FD: %s" % r.stderr)
        info = json.loads(r.stdout)
        wheel = None
        try:
            q = subprocess.run([info["python"], "-c",
                                "import importlib.metadata as m; print(m.version('up-fast-downward'))"],
                               capture_output=True, text=True, timeout=60)
            if q.returncode == 0:
                wheel = q.stdout.strip()
        except (OSError, subprocess.SubprocessError):
            pass
        return "Fast Downward %s%s" % (info["fd_version"],
                                       " (up-fast-downward %s)" % wheel if wheel else "")

    def pmap(self, fn, items, jobs=None):
        jobs = self.jobs if jobs is None else jobs
        if jobs == 1:
            return [fn(x) for x in items]
        with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
            return list(pool.map(fn, items))


def dump_json(path, top):
    """Pretty but compact: one top-level entry per line, keys in insertion order."""
    items = list(top.items())
    lines = ["{"]
    for i, (k, v) in enumerate(items):
        lines.append("  %s: %s%s" % (json.dumps(k), json.dumps(v, separators=(", ", ": ")),
                                     "," if i + 1 < len(items) else ""))
    lines.append("}")
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write("\n".join(lines) + "\n")
    os.replace(tmp, path)


def load_json(path):
    with open(path) as f:
        return json.load(f)


def problem_hash(text):
    body = re.sub(r"\(define\s*\(problem\s+[^)]*\)", "", text, count=1)
    return hashlib.sha256(" ".join(body.split()).encode()).hexdigest()


def today():
    return datetime.date.today().isoformat()


def machine_description():
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            m = re.search(r"^model name\s*:\s*(.+)$", f.read(), re.M)
            if m:
                cpu = m.group(1).strip()
    except OSError:
        pass
    return "%s, %d logical CPUs" % (cpu, os.cpu_count() or 0)


# --------------------------------------------------------------------------
# Labelling


def label_entry(fdres, domain, params, seed, lmcut_classic):
    """The golden fields of one FD `label` result."""
    e = {"generator": generator_record(domain, params, seed),
         "optimal_cost": fdres["optimal_cost"]}
    for h in HEURISTICS:
        e[h] = fdres[h]
    e["lmcut_classic"] = lmcut_classic
    e["fd_expansions"] = fdres["expansions"]
    e["fd_evaluations"] = fdres["evaluations"]
    e["fd_expansions_until_last_jump"] = fdres["expansions_until_last_jump"]
    return e


def write_domain_files(tools, root):
    for d in DOMAINS:
        os.makedirs(os.path.join(root, d), exist_ok=True)
        with open(os.path.join(root, d, "domain.pddl"), "w") as f:
            f.write(tools.domain_text(d))


def clear_problems(root):
    for d in DOMAINS:
        ddir = os.path.join(root, d)
        if not os.path.isdir(ddir):
            continue
        for fn in os.listdir(ddir):
            if fn.endswith(".pddl") and fn != "domain.pddl":
                os.remove(os.path.join(ddir, fn))


def regenerate_problem(tools, root, key, gen):
    domain, seed = gen["domain"], gen["seed"]
    params = {k: gen[k] for k in PARAMS[domain]}
    text = tools.generate(domain, params, seed)
    path = os.path.join(root, key)
    if os.path.isfile(path):
        with open(path) as f:
            if f.read() != text:
                log("WARNING: %s: the generator now produces a different problem" % key)
    with open(path, "w") as f:
        f.write(text)
    return domain, params, seed, path


def select_golden(tools, root, tmp):
    """Draw candidates from GOLDEN_GRID; returns {key: (fdres, domain, params, seed, text)}."""
    chosen = {}
    for domain in DOMAINS:
        seen = set()
        dom_file = os.path.join(root, domain, "domain.pddl")
        for params, quota, max_seeds in GOLDEN_GRID[domain]:
            kept, seed = 0, 1
            while kept < quota and seed <= max_seeds:
                batch = []
                while len(batch) < 2 * tools.jobs and seed <= max_seeds:
                    text = tools.generate(domain, params, seed)
                    h = problem_hash(text)
                    if h not in seen:
                        seen.add(h)  # a rejected duplicate would be rejected again
                        p = os.path.join(tmp, instance_name(domain, params, seed))
                        with open(p, "w") as f:
                            f.write(text)
                        batch.append((seed, text, h, p))
                    seed += 1
                results = tools.pmap(
                    lambda b: tools.fd("label", dom_file, b[3], GOLDEN_TIME_LIMIT), batch)
                for (s, text, h, p), res in zip(batch, results):
                    name = instance_name(domain, params, s)
                    why = None
                    if res["status"] != "solved":
                        why = res["status"]
                    elif res["optimal_cost"] == 0:
                        why = "trivial (optimal cost 0)"
                    elif res["search_time_s"] is None or res["search_time_s"] >= GOLDEN_MAX_SEARCH_S:
                        why = "FD search %.2fs" % (res["search_time_s"] or -1)
                    elif kept >= quota:
                        why = "quota full"
                    if why:
                        log("  skip %-28s %s" % (name, why))
                        continue
                    kept += 1
                    chosen["%s/%s" % (domain, name)] = (res, domain, params, s, text)
                    log("  keep %-28s cost=%s search=%.3fs" % (name, res["optimal_cost"], res["search_time_s"]))
            log("%s %s: kept %d/%d" % (domain, params, kept, quota))
    return chosen


def cmd_golden(tools, args):
    root = os.path.join(REPO, GOLDEN_DIR)
    out_path = os.path.join(root, "fd.json")
    write_domain_files(tools, root)
    version = tools.fd_version()
    entries = {}
    if args.select:
        with tempfile.TemporaryDirectory(prefix="make-golden-") as tmp:
            chosen = select_golden(tools, root, tmp)
        clear_problems(root)
        for key, (res, domain, params, seed, text) in chosen.items():
            with open(os.path.join(root, key), "w") as f:
                f.write(text)

        def classic(key):
            return key, tools.fd_lmcut_classic(os.path.join(root, key.split("/")[0], "domain.pddl"),
                                               os.path.join(root, key))

        for key, v in tools.pmap(classic, list(chosen)):
            res, domain, params, seed, _ = chosen[key]
            entries[key] = label_entry(res, domain, params, seed, v)
    else:
        old = load_json(out_path)
        jobs = []
        for key, e in old.items():
            if key.startswith("_"):
                continue
            jobs.append((key,) + regenerate_problem(tools, root, key, e["generator"]))

        def work(j):
            key, domain, params, seed, path = j
            dom_file = os.path.join(root, domain, "domain.pddl")
            res = tools.fd("label", dom_file, path)
            if res["status"] != "solved":
                raise RuntimeError("%s: FD status %s" % (key, res["status"]))
            return key, label_entry(res, domain, params, seed,
                                    tools.fd_lmcut_classic(dom_file, path))

        for key, e in tools.pmap(work, jobs):
            entries[key] = e
    top = {"_provenance": (
        "%s. Per problem: optimal_cost, fd_expansions, fd_evaluations and "
        "fd_expansions_until_last_jump from `fast-downward.py domain.pddl PROBLEM --search "
        "'astar(lmcut())'`; hmax, hadd, ff, lmcut, blind, goalcount are FD's initial-state values "
        "from `--search 'eager_greedy([lmcut(),hmax(),ff(),add(),blind(),goalcount()], bound=0)'` "
        "(FD plugin add = hadd); both via `tools/reference/fd_reference.py label`. lmcut_classic: "
        "initial value of `%s` (the 2009 LM-cut without FD 26's goal-zone/border detection); "
        "lmcut values depend on tie-breaking. fd_* fields "
        "depend on FD's tie-breaking and are informational. Problems from `hfarm generate` with "
        "the generator fields; domain.pddl from `hfarm domain`. Kept: FD A*+LM-cut search time "
        "< %.1f s, optimal cost > 0, no duplicate problems. Regenerate: "
        "`python3 tools/reference/make_golden.py golden` (FD_PYTHON set; --select to redraw). "
        "Generated %s." % (version, LMCUT_CLASSIC, GOLDEN_MAX_SEARCH_S, today()))}
    for key, e in sorted(entries.items(), key=sort_key):
        top[key] = e
    dump_json(out_path, top)
    log("wrote %s (%d problems)" % (out_path, len(entries)))


# --------------------------------------------------------------------------
# Benchmarks


def select_bench(tools, root, tmp, spec, sub):
    lo, hi = spec["window"]
    chosen = {}
    for domain in DOMAINS:
        dom_file = os.path.join(root, domain, "domain.pddl")
        combos = spec["grid"][domain]
        cands = [(params, s) for s in range(1, spec["max_seeds"] + 1) for params in combos]
        seen, kept, total, i = set(), 0, 0.0, 0
        while kept < spec["quota"] and i < len(cands):
            batch = []
            while len(batch) < tools.jobs and i < len(cands):
                params, s = cands[i]
                i += 1
                text = tools.generate(domain, params, s)
                h = problem_hash(text)
                if h in seen:
                    continue
                seen.add(h)
                p = os.path.join(tmp, instance_name(domain, params, s))
                with open(p, "w") as f:
                    f.write(text)
                batch.append((params, s, text, p))
            results = tools.pmap(lambda b: tools.fd(sub, dom_file, b[3], spec["time_limit"]), batch)
            for (params, s, text, p), res in zip(batch, results):
                name = instance_name(domain, params, s)
                t = res.get("search_time_s")
                ok_status = res["status"] == "solved"
                cost = res.get("optimal_cost", res.get("cost"))
                if not ok_status or t is None:
                    log("  skip %-28s %s" % (name, res["status"]))
                    continue
                if not cost:
                    log("  skip %-28s trivial" % name)
                    continue
                if not (lo <= t <= hi) or total + t > spec["domain_budget_s"] or kept >= spec["quota"]:
                    log("  skip %-28s FD search %.3fs" % (name, t))
                    continue
                kept += 1
                total += t
                chosen["%s/%s" % (domain, name)] = (domain, params, s, text)
                log("  keep %-28s FD search %.3fs" % (name, t))
        log("%s: kept %d/%d, FD search total %.2fs" % (domain, kept, spec["quota"], total))
    return chosen


def bench_common(tools, args, rel_dir, spec, sub, make_entry, provenance):
    root = os.path.join(REPO, rel_dir)
    out_path = os.path.join(root, "fd.json")
    write_domain_files(tools, root)
    version = tools.fd_version()
    if args.select:
        with tempfile.TemporaryDirectory(prefix="make-bench-") as tmp:
            chosen = select_bench(tools, root, tmp, spec, sub)
        clear_problems(root)
        todo = []
        for key, (domain, params, seed, text) in chosen.items():
            path = os.path.join(root, key)
            with open(path, "w") as f:
                f.write(text)
            todo.append((key, domain, params, seed, path))
    else:
        old = load_json(out_path)
        todo = [(key,) + regenerate_problem(tools, root, key, e["generator"])
                for key, e in old.items() if not key.startswith("_")]
    todo.sort(key=lambda j: sort_key((j[0], {"generator": generator_record(j[1], j[2], j[3])})))
    # The timings are measured now, one FD call at a time.
    entries = {}
    for key, domain, params, seed, path in todo:
        res = tools.fd(sub, os.path.join(root, domain, "domain.pddl"), path, spec["time_limit"])
        if res["status"] != "solved":
            raise RuntimeError("%s: FD status %s" % (key, res["status"]))
        entries[key] = make_entry(tools, res, domain, params, seed, root, path)
        log("  %-40s FD search %.3fs" % (key, res["search_time_s"]))
    total = sum(e["fd_search_time_s"] for e in entries.values())
    top = {"_provenance": provenance % {"version": version, "date": today()},
           "_measured": ("fd_*time_s, fd_driver_wall_s%s: measured once, sequentially, on this "
                         "machine (%s), %s; informational only. FD times are process CPU time; "
                         "total fd_search_time_s %.2f s."
                         % (", fd_evaluations_per_s" if sub == "gbfs-ff" else "",
                            machine_description(), today(), total))}
    for key, e in sorted(entries.items(), key=sort_key):
        top[key] = e
    dump_json(out_path, top)
    log("wrote %s (%d problems, FD search total %.2fs)" % (out_path, len(entries), total))


def astar_entry(tools, res, domain, params, seed, root, path):
    e = label_entry(res, domain, params, seed,
                    tools.fd_lmcut_classic(os.path.join(root, domain, "domain.pddl"), path))
    e["fd_search_time_s"] = res["search_time_s"]
    e["fd_total_time_s"] = res["total_time_s"]
    e["fd_driver_wall_s"] = round(res["driver_wall_s"], 3)
    return e


def gbfs_entry(tools, res, domain, params, seed, root, path):
    h = tools.fd("heuristics", os.path.join(root, domain, "domain.pddl"), path, 60)
    e = {"generator": generator_record(domain, params, seed),
         "fd_cost": res["cost"], "fd_plan_length": res["plan_length"],
         "fd_evaluations": res["evaluations"], "fd_expansions": res["expansions"]}
    for k in HEURISTICS:
        e[k] = h[k]
    e["lmcut_classic"] = tools.fd_lmcut_classic(os.path.join(root, domain, "domain.pddl"), path)
    e["fd_search_time_s"] = res["search_time_s"]
    e["fd_total_time_s"] = res["total_time_s"]
    e["fd_driver_wall_s"] = round(res["driver_wall_s"], 3)
    e["fd_evaluations_per_s"] = round(res["evaluations_per_s"]) if res["evaluations_per_s"] else None
    return e


def cmd_bench_astar(tools, args):
    bench_common(tools, args, BENCH_ASTAR_DIR, BENCH_ASTAR, "label", astar_entry, (
        "%%(version)s. A*+LM-cut benchmark (hfarm generator, paper training ranges). Per problem: "
        "optimal_cost, fd_expansions, fd_evaluations, fd_expansions_until_last_jump, "
        "fd_search_time_s, fd_total_time_s, fd_driver_wall_s from `fast-downward.py domain.pddl "
        "PROBLEM --search 'astar(lmcut())'`; hmax, hadd, ff, lmcut, blind, goalcount from "
        "`--search 'eager_greedy([lmcut(),hmax(),ff(),add(),blind(),goalcount()], bound=0)'`; "
        "both via `tools/reference/fd_reference.py label`. Kept: FD search time in [%.1f, %.1f] s. "
        "Regenerate: `python3 tools/reference/make_golden.py bench-astar`. Generated %%(date)s."
        % BENCH_ASTAR["window"]))


def cmd_bench_gbfs(tools, args):
    bench_common(tools, args, BENCH_GBFS_DIR, BENCH_GBFS, "gbfs-ff", gbfs_entry, (
        "%%(version)s. GBFS(h^FF) speed benchmark (hfarm generator, larger test-split sizes). Per "
        "problem: fd_cost, fd_plan_length, fd_evaluations, fd_expansions, fd_search_time_s, "
        "fd_total_time_s, fd_driver_wall_s, fd_evaluations_per_s (= evaluations / search time) from "
        "`fast-downward.py domain.pddl PROBLEM --search 'eager_greedy([ff()])'` via "
        "`tools/reference/fd_reference.py gbfs-ff`; hmax, hadd, ff, lmcut, blind, goalcount are "
        "FD's initial-state values (`fd_reference.py heuristics`). Kept: FD search time in "
        "[%.1f, %.1f] s. Regenerate: `python3 tools/reference/make_golden.py bench-gbfs`. "
        "Generated %%(date)s." % BENCH_GBFS["window"]))


# --------------------------------------------------------------------------
# Cross-check with hfarm


def hfarm_json(tools, *argv, timeout=None):
    r = tools.run_bin(*argv, "--json", timeout=timeout)
    try:
        return json.loads(r.stdout)
    except ValueError:
        raise RuntimeError("hfarm %s: exit %d, no JSON: %s %s"
                           % (" ".join(map(str, argv)), r.returncode, r.stdout[-500:], r.stderr[-500:]))


def check_one(tools, root, key, e, search, heuristic, time_limit):
    domain = e["generator"]["domain"]
    dom_file = os.path.join(root, domain, "domain.pddl")
    prob = os.path.join(root, key)
    ours_h = hfarm_json(tools, "heuristics", dom_file, prob)
    plan = hfarm_json(tools, "plan", dom_file, prob, "--search", search, "--heuristic", heuristic,
                      "--time-limit", time_limit, timeout=time_limit + 60)
    out = {"key": key, "heuristics": {h: (e[h], ours_h.get(h)) for h in HEURISTICS},
           "status": plan.get("status"), "cost": plan.get("cost"),
           "expansions": plan.get("expansions"), "evaluations": plan.get("evaluations"),
           "search_time_s": plan.get("search_time_s")}
    # validate our plan with our validator as a sanity check
    if plan.get("status") == "solved" and plan.get("plan") is not None:
        with tempfile.NamedTemporaryFile("w", suffix=".plan", delete=False) as f:
            f.write("\n".join(plan["plan"]) + "\n")
            pf = f.name
        try:
            r = tools.run_bin("validate", dom_file, prob, pf)
            out["validate"] = (r.returncode, (r.stdout + r.stderr).strip()[-200:])
        finally:
            os.remove(pf)
    return out


def cmd_check(tools, args):
    sets = args.sets or ["golden", "bench-astar", "bench-gbfs"]
    mism = []          # (set, key, field, FD, hfarm): cost/hmax/hadd/blind/goalcount/lmcut
    ff_diffs = []
    classic = []       # (set, key, FD lmcut_classic, hfarm lmcut)
    sanity = []        # violated relations among hfarm's own numbers
    lines = []
    for s in sets:
        rel = {"golden": GOLDEN_DIR, "bench-astar": BENCH_ASTAR_DIR, "bench-gbfs": BENCH_GBFS_DIR}[s]
        root = os.path.join(REPO, rel)
        data = load_json(os.path.join(root, "fd.json"))
        items = [(k, e) for k, e in data.items() if not k.startswith("_")]
        if s == "bench-gbfs":
            search, heur, tl, jobs = "gbfs", "ff", 120, 1
        elif s == "bench-astar":
            search, heur, tl, jobs = "astar", "lmcut", 120, 1
        else:
            search, heur, tl, jobs = "astar", "lmcut", 60, tools.jobs
        results = tools.pmap(lambda ke: check_one(tools, root, ke[0], ke[1], search, heur, tl),
                             items, jobs=jobs)
        for (key, e), r in zip(items, results):
            hv = r["heuristics"]
            for h, (fdv, ours) in hv.items():
                if fdv != ours:
                    (ff_diffs.append((s, key, fdv, ours)) if h == "ff"
                     else mism.append((s, key, h, fdv, ours)))
            if e.get("lmcut_classic") is not None and e["lmcut_classic"] != hv["lmcut"][1]:
                classic.append((s, key, e["lmcut_classic"], hv["lmcut"][1]))
            opt = e.get("optimal_cost")
            if search == "astar":
                if r["status"] != "solved" or r["cost"] != opt:
                    mism.append((s, key, "optimal_cost", opt, "%s %s" % (r["status"], r["cost"])))
            elif r["status"] != "solved":
                mism.append((s, key, "gbfs status", "solved", r["status"]))
            ours = {h: v[1] for h, v in hv.items()}
            if None not in ours.values():
                rels = [("hmax <= lmcut", ours["hmax"] <= ours["lmcut"]),
                        ("hmax <= hadd", ours["hmax"] <= ours["hadd"]),
                        ("hmax <= ff", ours["hmax"] <= ours["ff"])]
                if opt is not None:
                    rels.append(("lmcut <= optimal", ours["lmcut"] <= opt))
                    rels.append(("hmax <= optimal", ours["hmax"] <= opt))
                sanity += [(s, key, what) for what, ok in rels if not ok]
            if "validate" in r and r["validate"][0] != 0:
                mism.append((s, key, "hfarm validate of hfarm's plan", "ok", r["validate"]))
        if s != "golden":
            lines.append("\n%s: hfarm vs FD (sequential; hfarm search_time_s is wall clock, "
                         "FD's is CPU time)" % s)
            lines.append("%-40s %10s %10s %8s %8s %10s %10s" % (
                "problem", "FD search", "hfarm", "FD cost", "hfarm", "FD evals", "hfarm"))
            tf = to = 0.0
            for (key, e), r in zip(items, results):
                fd_cost = e.get("optimal_cost", e.get("fd_cost"))
                lines.append("%-40s %10.3f %10.3f %8s %8s %10s %10s" % (
                    key, e["fd_search_time_s"], r["search_time_s"] or -1, fd_cost, r["cost"],
                    e["fd_evaluations"], r["evaluations"]))
                tf += e["fd_search_time_s"]
                to += r["search_time_s"] or 0
            lines.append("%-40s %10.3f %10.3f" % ("TOTAL", tf, to))
        lines.append("%s: %d problems checked" % (s, len(items)))
    print("\n".join(lines))
    hard = [m for m in mism if m[2] != "lmcut"]
    soft = [m for m in mism if m[2] == "lmcut"]
    print("\nMismatches in optimal cost / hmax / hadd / blind / goalcount / plan validity: %d"
          % len(hard))
    for m in hard:
        print("  %s %s: %s FD=%s hfarm=%s" % m)
    print("LM-cut differences from FD's default lmcut(): %d (hfarm lower: %d, higher: %d)" % (
        len(soft), sum(1 for m in soft if m[4] < m[3]), sum(1 for m in soft if m[4] > m[3])))
    for m in soft:
        print("  %s %s: lmcut FD=%s hfarm=%s (%+d)" % (m[0], m[1], m[3], m[4], m[4] - m[3]))
    print("LM-cut differences from FD's classic %s: %d (hfarm lower: %d, higher: %d)" % (
        LMCUT_CLASSIC, len(classic), sum(1 for c in classic if c[3] < c[2]),
        sum(1 for c in classic if c[3] > c[2])))
    for c in classic:
        print("  %s %s: lmcut_classic FD=%s hfarm=%s (%+d)" % (c[0], c[1], c[2], c[3], c[3] - c[2]))
    print("h^FF differences: %d" % len(ff_diffs))
    for s, key, fdv, ours in ff_diffs:
        print("  %s %s: FD=%s hfarm=%s (%+d)" % (s, key, fdv, ours, (ours or 0) - (fdv or 0)))
    print("Violated relations among hfarm's values (hmax<=lmcut<=optimal, hmax<=hadd, hmax<=ff): %d"
          % len(sanity))
    for v in sanity:
        print("  %s %s: %s" % v)
    return 1 if hard or sanity else 0


# --------------------------------------------------------------------------


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", default=os.environ.get("HFARM_BIN",
                                                    os.path.join(REPO, "target", "release", "hfarm")),
                    help="hfarm binary (default $HFARM_BIN or target/release/hfarm)")
    ap.add_argument("--fd-python", default=None,
                    help="interpreter with up-fast-downward (default $FD_PYTHON)")
    ap.add_argument("--jobs", type=int, default=2, help="parallel processes, 1 or 2 (default 2)")
    sub = ap.add_subparsers(dest="cmd", required=True)
    for name in ("golden", "bench-astar", "bench-gbfs"):
        p = sub.add_parser(name)
        p.add_argument("--select", action="store_true",
                       help="draw a new instance set instead of relabelling the stored one")
    p = sub.add_parser("check")
    p.add_argument("sets", nargs="*", metavar="SET", help="golden, bench-astar, bench-gbfs")
    args = ap.parse_args(argv)
    if args.cmd == "check":
        bad = [x for x in args.sets if x not in ("golden", "bench-astar", "bench-gbfs")]
        if bad:
            ap.error("unknown set(s): %s" % ", ".join(bad))
    tools = Tools(args)
    if args.cmd == "golden":
        cmd_golden(tools, args)
    elif args.cmd == "bench-astar":
        cmd_bench_astar(tools, args)
    elif args.cmd == "bench-gbfs":
        cmd_bench_gbfs(tools, args)
    else:
        return cmd_check(tools, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
