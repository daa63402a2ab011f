#!/usr/bin/env python3
"""Reference numbers from Fast Downward (FD) for hfarm's golden fixtures.

This script only *calls* an FD installation that lives outside the repo
(see README.md next to this file); FD is never vendored, never a project
dependency.  Standard library only.

Finding FD (first hit wins):
  1. --fd-driver PATH
  2. $FD_DRIVER
  3. up_fast_downward/downward/fast-downward.py in the site-packages of
     --python PY, of $FD_PYTHON, or of the interpreter running this script.
The driver is run with --python / $FD_PYTHON if given, else with the
interpreter of the venv the driver sits in, else with this interpreter.

Subcommands (each prints / writes JSON):
  label DOMAIN PROBLEM        A* + LM-cut optimum, plan, stats, and the
                              initial-state values of hmax/hadd/ff/lmcut/
                              blind/goalcount.
  heuristics DOMAIN PROBLEM   only the initial-state heuristic values.
  gbfs-ff DOMAIN PROBLEM      eager GBFS with h^FF: evaluations/s.
  batch-label DIR OUT.json    `label` for every problem in DIR (<= 2 jobs).
  version                     driver path, interpreter and FD version.

Exit status: 0 when FD behaved as expected (solved, proved unsolvable,
hit the time/memory limit: all recorded in "status"), 1 when FD failed
unexpectedly (crash, input error, unparsable output) or a batch had such
a failure, 2 on usage errors (bad paths, FD not found).
"""

import argparse
import concurrent.futures
import glob
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

DRIVER_REL = os.path.join("up_fast_downward", "downward", "fast-downward.py")

# The heuristics we label, in the order of the single FD call the IJCAI-24
# code used.  FD prints "Initial heuristic value for <description>: N";
# the description is the plugin name (lmcut, hmax, ff, add, blind,
# goalcount).  Keys are our field names, values the FD plugin calls.
HEURISTICS = [
    ("lmcut", "lmcut()"),
    ("hmax", "hmax()"),
    ("ff", "ff()"),
    ("hadd", "add()"),
    ("blind", "blind()"),
    ("goalcount", "goalcount()"),
]
HEURISTIC_SEARCH = "eager_greedy([%s], bound=0)" % ",".join(c for _, c in HEURISTICS)

# FD description (normalised: lowercase, without "(...)") -> our name.
FD_NAME_TO_OURS = {
    "lmcut": "lmcut", "lm_cut": "lmcut", "landmark_cut": "lmcut",
    "hmax": "hmax", "max": "hmax",
    "ff": "ff", "hff": "ff",
    "add": "hadd", "hadd": "hadd",
    "blind": "blind",
    "goalcount": "goalcount", "goal_count": "goalcount",
}

# FD exit codes (driver/returncodes.py of FD 26.6).
EXIT_STATUS = {
    0: "solved",
    1: "solved",   # plan found, then out of memory
    2: "solved",   # plan found, then out of time
    3: "solved",   # plan found, then out of memory and time
    10: "unsolvable",            # translator proved unsolvable (unused in 26.6)
    11: "unsolvable",            # search proved unsolvable
    12: "unsolved-incomplete",   # incomplete search exhausted
    13: "unsolvable-within-bound",
    20: "memout", 21: "timeout", 22: "memout", 23: "timeout", 24: "timeout",
}
WALL_TIMEOUT_RC = -1000  # our own marker: we killed the driver (wall clock)

RE_INIT_H = re.compile(r"Initial heuristic value for (.+?): (-?\d+|infinity)\s*$", re.M)
RE_EXPANDED = re.compile(r"\] Expanded (\d+) state\(s\)\.")
RE_EVALUATED = re.compile(r"\] Evaluated (\d+) state\(s\)\.")
RE_EXPANDED_LAST_JUMP = re.compile(r"\] Expanded until last jump: (\d+) state\(s\)\.")
RE_GENERATED = re.compile(r"\] Generated (\d+) state\(s\)\.")
RE_SEARCH_TIME = re.compile(r"\] Search time: ([0-9.eE+-]+)s")
RE_TOTAL_TIME = re.compile(r"\] Total time: ([0-9.eE+-]+)s")
RE_PLAN_COST = re.compile(r"\] Plan cost: (\d+)")
RE_PLANNER_TIME = re.compile(r"Planner time: ([0-9.eE+-]+)s")
RE_TRANSLATOR_OPS = re.compile(r"^Translator operators: (\d+)", re.M)
RE_SAS_COST = re.compile(r";\s*cost\s*=\s*(\d+)")
# The translator replaces tasks it proves (un)solvable by a 1-variable dummy
# task; heuristic values (goalcount, blind) then describe the dummy task.
RE_TRIVIAL_TASK = re.compile(r"^(.+)! Generating ((?:un)?solvable) task\.\.\.\s*$", re.M)


class UsageError(Exception):
    """Bad input or FD missing: exit 2."""


class FDFailure(Exception):
    """FD ran but failed unexpectedly: exit 1."""


# --------------------------------------------------------------------------
# Locating FD


def _site_dirs(python):
    code = ("import json, site, sysconfig\n"
            "d = []\n"
            "try:\n    d += site.getsitepackages()\nexcept Exception:\n    pass\n"
            "try:\n    d.append(site.getusersitepackages())\nexcept Exception:\n    pass\n"
            "p = sysconfig.get_paths()\n"
            "d += [p.get('purelib', ''), p.get('platlib', '')]\n"
            "print(json.dumps(d))\n")
    try:
        out = subprocess.run([python, "-c", code], capture_output=True, text=True,
                             timeout=60, check=True).stdout
        return [d for d in json.loads(out) if d]
    except (OSError, subprocess.SubprocessError, ValueError):
        return []


def _venv_python_for(driver):
    """If DRIVER sits in <prefix>/lib/pythonX.Y/site-packages, <prefix>/bin/python."""
    parts = os.path.abspath(driver).split(os.sep)
    if "site-packages" in parts:
        i = parts.index("site-packages")
        prefix = os.sep.join(parts[:i - 2]) or os.sep
        for name in ("python3", "python"):
            cand = os.path.join(prefix, "bin", name)
            if os.path.isfile(cand) and os.access(cand, os.X_OK):
                return cand
    return None


def locate_fd(args):
    """Return (driver, python) or raise UsageError."""
    explicit_python = args.python or os.environ.get("FD_PYTHON")
    driver = args.fd_driver or os.environ.get("FD_DRIVER")
    if driver:
        if not os.path.isfile(driver):
            raise UsageError("FD driver %r (from %s) does not exist" % (
                driver, "--fd-driver" if args.fd_driver else "$FD_DRIVER"))
        python = explicit_python or _venv_python_for(driver) or sys.executable
        return os.path.abspath(driver), python
    candidates = [p for p in (explicit_python, sys.executable) if p]
    for python in candidates:
        for d in _site_dirs(python):
            cand = os.path.join(d, DRIVER_REL)
            if os.path.isfile(cand):
                return cand, python
    raise UsageError(
        "cannot find Fast Downward: set FD_DRIVER=/path/to/fast-downward.py, or "
        "pass --python / set FD_PYTHON to an interpreter whose site-packages has "
        "'up-fast-downward' installed (looked in the site-packages of %s). "
        "See tools/reference/README.md." % ", ".join(candidates))


def fd_version(driver, python):
    try:
        out = subprocess.run([python, driver, "--version"], capture_output=True,
                             text=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError) as e:
        raise UsageError("cannot run FD driver %s with %s: %s" % (driver, python, e))
    m = re.search(r"Fast Downward (\S+)", out)
    rev = re.search(r"git revision \[[^\]]*\]: (\S+)", out)
    if not m:
        raise UsageError("unexpected output of '%s --version': %r" % (driver, out[-500:]))
    return m.group(1) + (" (%s)" % rev.group(1) if rev else "")


# --------------------------------------------------------------------------
# Running FD


def run_fd(fd, domain, problem, search, time_limit=None, memory_limit=None,
           log_dir=None, log_name=None):
    """Run the driver once in a fresh temp dir.

    Returns dict(rc, log, wall_s, plan_text) where plan_text is the content
    of sas_plan or None.  rc == WALL_TIMEOUT_RC if we had to kill it.
    """
    driver, python = fd
    cmd = [python, driver]
    wall_limit = None
    if time_limit is not None:
        # FD's limits are CPU-time limits (RLIMIT_CPU), in whole seconds.
        cmd += ["--overall-time-limit", "%ds" % max(1, int(round(time_limit)))]
        wall_limit = 2 * time_limit + 30  # safety net on a loaded machine
    if memory_limit is not None:
        cmd += ["--overall-memory-limit", memory_limit]
    cmd += [os.path.abspath(domain), os.path.abspath(problem), "--search", search]

    workdir = tempfile.mkdtemp(prefix="fdref-")
    try:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=workdir, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True,
                                start_new_session=True)
        try:
            log, _ = proc.communicate(timeout=wall_limit)
            rc = proc.returncode
        except subprocess.TimeoutExpired:
            try:
                os.killpg(proc.pid, signal.SIGKILL)  # the driver's own group
            except ProcessLookupError:
                pass
            log, _ = proc.communicate()
            rc = WALL_TIMEOUT_RC
        wall = time.perf_counter() - start
        plan_path = os.path.join(workdir, "sas_plan")
        plan_text = None
        if os.path.isfile(plan_path):
            with open(plan_path) as f:
                plan_text = f.read()
        if log_dir:
            os.makedirs(log_dir, exist_ok=True)
            with open(os.path.join(log_dir, log_name or "fd.log"), "w") as f:
                f.write("$ " + " ".join(cmd) + "\n" + log)
        return {"rc": rc, "log": log, "wall_s": wall, "plan_text": plan_text,
                "cmd": cmd}
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def _status(rc):
    if rc == WALL_TIMEOUT_RC:
        return "timeout"
    return EXIT_STATUS.get(rc)


def _fail(what, run):
    tail = "\n".join(run["log"].rstrip().splitlines()[-25:])
    raise FDFailure("%s: FD exited with code %s\ncommand: %s\n--- last lines of FD output ---\n%s"
                    % (what, run["rc"], " ".join(run["cmd"]), tail))


def _last_int(regex, log):
    m = regex.findall(log)
    return int(m[-1]) if m else None


def _last_float(regex, log):
    m = regex.findall(log)
    return float(m[-1]) if m else None


def parse_plan(plan_text):
    """sas_plan -> (["(op arg ...)", ...], cost or None)."""
    actions, cost = [], None
    for line in plan_text.splitlines():
        line = line.strip()
        if not line:
            continue
        if line.startswith(";"):
            m = RE_SAS_COST.search(line)
            if m:
                cost = int(m.group(1))
            continue
        inner = line.strip("()").split()
        actions.append("(" + " ".join(inner).lower() + ")")
    return actions, cost


def parse_initial_h(log):
    """'Initial heuristic value for X: N' lines -> {our name: int or None}."""
    values = {}
    for name, val in RE_INIT_H.findall(log):
        key = re.sub(r"\(.*\)$", "", name.strip().lower()).strip()
        ours = FD_NAME_TO_OURS.get(key)
        if ours is None:
            continue
        values[ours] = None if val == "infinity" else int(val)
    return values


# --------------------------------------------------------------------------
# Subcommands


def heuristics(fd, domain, problem, time_limit=None, memory_limit=None, log_dir=None):
    """Initial-state values via one eager_greedy([...], bound=0) call.

    If the initial state is a dead end for the first heuristic in the list
    (lmcut), FD's alternation open list stops evaluating the rest and prints
    only that one; every heuristic missing from the log is then obtained
    from its own eager_greedy([h], bound=0) call.
    """
    run = run_fd(fd, domain, problem, HEURISTIC_SEARCH, time_limit, memory_limit,
                 log_dir, "heuristics.log")
    out = {"heuristics_driver_wall_s": run["wall_s"]}
    st = _status(run["rc"])
    if st in ("timeout", "memout"):
        out.update({k: None for k, _ in HEURISTICS})
        out["heuristics_status"] = st
        return out
    if run["rc"] not in (0, 13):  # 13: bound=0 exhausted; 0: init is a goal
        _fail("heuristic evaluation", run)
    values = parse_initial_h(run["log"])
    sources = {k: "combined" for k in values}
    for ours, call in HEURISTICS:
        if ours in values:
            continue
        r = run_fd(fd, domain, problem, "eager_greedy([%s], bound=0)" % call,
                   time_limit, memory_limit, log_dir, "heuristics-%s.log" % ours)
        out["heuristics_driver_wall_s"] += r["wall_s"]
        if _status(r["rc"]) in ("timeout", "memout"):
            values[ours] = None
            sources[ours] = _status(r["rc"])
            continue
        if r["rc"] not in (0, 13):
            _fail("heuristic evaluation of %s" % call, r)
        v = parse_initial_h(r["log"])
        if ours not in v:
            _fail("no 'Initial heuristic value' line for %s" % call, r)
        values[ours] = v[ours]
        sources[ours] = "single"
    for ours, _ in HEURISTICS:
        out[ours] = values.get(ours)
    out["heuristics_status"] = "ok"
    out["heuristic_source"] = sources
    return out


def label(fd, domain, problem, time_limit=None, memory_limit=None, log_dir=None):
    run = run_fd(fd, domain, problem, "astar(lmcut())", time_limit, memory_limit,
                 log_dir, "astar-lmcut.log")
    st = _status(run["rc"])
    if st is None:
        _fail("astar(lmcut())", run)
    log = run["log"]
    res = {
        "domain": os.path.abspath(domain),
        "problem": os.path.abspath(problem),
        "status": st,
        "fd_exit_code": run["rc"] if run["rc"] != WALL_TIMEOUT_RC else None,
        "optimal_cost": None,
        "plan": None,
        "expansions": _last_int(RE_EXPANDED, log),
        # expansions before the last f-layer: independent of tie-breaking
        "expansions_until_last_jump": _last_int(RE_EXPANDED_LAST_JUMP, log),
        "evaluations": _last_int(RE_EVALUATED, log),
        "generated": _last_int(RE_GENERATED, log),
        "search_time_s": _last_float(RE_SEARCH_TIME, log),
        "total_time_s": _last_float(RE_TOTAL_TIME, log),
        "planner_time_s": _last_float(RE_PLANNER_TIME, log),
        "driver_wall_s": run["wall_s"],
        "translator_operators": _last_int(RE_TRANSLATOR_OPS, log),
        "translator_trivial_task": None,
    }
    m = RE_TRIVIAL_TASK.search(log)
    if m:
        res["translator_trivial_task"] = "%s (%s dummy task)" % (m.group(1), m.group(2))
    if st == "solved":
        if run["plan_text"] is None:
            _fail("astar(lmcut()) reported success but wrote no sas_plan", run)
        plan, cost = parse_plan(run["plan_text"])
        log_cost = _last_int(RE_PLAN_COST, log)
        if cost is None:
            cost = log_cost
        if cost is None:
            _fail("cannot read the plan cost", run)
        if run["rc"] != 0:
            # plan found, then a limit hit: A* returns its first plan, which is
            # optimal, but say so explicitly.
            res["status"] = "solved-then-limit"
        res["optimal_cost"] = cost
        res["plan"] = plan
    res.update(heuristics(fd, domain, problem, time_limit, memory_limit, log_dir))
    return res


def gbfs_ff(fd, domain, problem, time_limit=None, memory_limit=None, log_dir=None):
    run = run_fd(fd, domain, problem, "eager_greedy([ff()])", time_limit, memory_limit,
                 log_dir, "gbfs-ff.log")
    st = _status(run["rc"])
    if st is None:
        _fail("eager_greedy([ff()])", run)
    log = run["log"]
    evals = _last_int(RE_EVALUATED, log)
    stime = _last_float(RE_SEARCH_TIME, log)
    cost = None
    plan_len = None
    if st == "solved" and run["plan_text"] is not None:
        plan, cost = parse_plan(run["plan_text"])
        plan_len = len(plan)
        if cost is None:
            cost = _last_int(RE_PLAN_COST, log)
    return {
        "domain": os.path.abspath(domain),
        "problem": os.path.abspath(problem),
        "status": st,
        "fd_exit_code": run["rc"] if run["rc"] != WALL_TIMEOUT_RC else None,
        "cost": cost,
        "plan_length": plan_len,
        "evaluations": evals,
        "expansions": _last_int(RE_EXPANDED, log),
        "generated": _last_int(RE_GENERATED, log),
        "search_time_s": stime,
        "total_time_s": _last_float(RE_TOTAL_TIME, log),
        "planner_time_s": _last_float(RE_PLANNER_TIME, log),
        "driver_wall_s": run["wall_s"],
        "evaluations_per_s": (evals / stime) if evals is not None and stime else None,
    }


_DOMAIN_RE = re.compile(r"\(\s*define\s*\(\s*domain\b", re.I)


def _is_domain_file(path):
    try:
        with open(path, errors="replace") as f:
            head = re.sub(r";[^\n]*", "", f.read(4096))
        return bool(_DOMAIN_RE.search(head))
    except OSError:
        return False


def _batch_worker(job):
    fd, domain, problem, time_limit, memory_limit, log_dir = job
    name = os.path.basename(problem)
    try:
        sub = os.path.join(log_dir, name) if log_dir else None
        return name, label(fd, domain, problem, time_limit, memory_limit, sub), None
    except FDFailure as e:
        return name, None, str(e)
    except Exception as e:  # keep the batch going; report at the end
        return name, None, "%s: %s" % (type(e).__name__, e)


def _write_json_atomic(path, obj):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(obj, f, indent=2, sort_keys=True)
        f.write("\n")
    os.replace(tmp, path)


def batch_label(fd, directory, out_path, domain=None, time_limit=None,
                memory_limit=None, jobs=2, log_dir=None):
    if not os.path.isdir(directory):
        raise UsageError("not a directory: %s" % directory)
    domain = domain or os.path.join(directory, "domain.pddl")
    if not os.path.isfile(domain):
        raise UsageError("domain file not found: %s (use --domain)" % domain)
    problems = []
    for p in sorted(glob.glob(os.path.join(directory, "*.pddl"))):
        if os.path.basename(p) == "domain.pddl" or os.path.abspath(p) == os.path.abspath(domain):
            continue
        if _is_domain_file(p):
            print("skipping %s: it is a domain file" % p, file=sys.stderr)
            continue
        problems.append(p)
    if not problems:
        raise UsageError("no problem files (*.pddl other than the domain) in %s" % directory)
    jobs = max(1, min(2, jobs))  # the machine has 2 cores; never more
    results, errors = {}, {}
    todo = [(fd, domain, p, time_limit, memory_limit, log_dir) for p in problems]
    with concurrent.futures.ProcessPoolExecutor(max_workers=jobs) as pool:
        for name, res, err in pool.map(_batch_worker, todo):
            if err is None:
                results[name] = res
                print("%-30s %-24s cost=%s h(lmcut)=%s" % (
                    name, res["status"], res["optimal_cost"], res["lmcut"]), file=sys.stderr)
            else:
                errors[name] = err
                results[name] = {"error": err}
                print("%-30s ERROR (see %s)" % (name, out_path), file=sys.stderr)
            _write_json_atomic(out_path, results)  # partial results survive a kill
    return results, errors


# --------------------------------------------------------------------------
# CLI


def _check_files(*paths):
    for p in paths:
        if not os.path.isfile(p):
            raise UsageError("file not found: %s" % p)


def main(argv=None):
    ap = argparse.ArgumentParser(
        description="Reference numbers from Fast Downward (external; see README.md).")
    ap.add_argument("--fd-driver", help="path to fast-downward.py (else $FD_DRIVER, else auto-discovery)")
    ap.add_argument("--python", help="interpreter to run the driver with / to search for up-fast-downward "
                                     "(else $FD_PYTHON)")
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--time-limit", type=float, default=None, metavar="S",
                        help="per FD call: FD CPU-time limit in seconds (plus a wall-clock "
                             "safety net of 2*S+30 s)")
    common.add_argument("--memory-limit", default=None, metavar="M",
                        help="per FD call, passed as --overall-memory-limit (e.g. 4G)")
    common.add_argument("--log-dir", default=None, help="keep FD's logs here")
    sub = ap.add_subparsers(dest="cmd", required=True)
    for name in ("label", "heuristics", "gbfs-ff"):
        p = sub.add_parser(name, parents=[common])
        p.add_argument("domain")
        p.add_argument("problem")
    p = sub.add_parser("batch-label", parents=[common])
    p.add_argument("dir")
    p.add_argument("out")
    p.add_argument("--domain", default=None, help="domain file (default DIR/domain.pddl)")
    p.add_argument("--jobs", type=int, default=2, help="parallel problems, at most 2 (default 2)")
    sub.add_parser("version")
    args = ap.parse_args(argv)

    try:
        fd = locate_fd(args)
        if args.cmd == "version":
            out = {"driver": fd[0], "python": fd[1], "fd_version": fd_version(*fd)}
        elif args.cmd == "batch-label":
            fd_version(*fd)  # fail early if the driver cannot run
            _, errors = batch_label(fd, args.dir, args.out, args.domain, args.time_limit,
                                    args.memory_limit, args.jobs, args.log_dir)
            if errors:
                print("%d problem(s) failed: %s" % (len(errors), ", ".join(sorted(errors))),
                      file=sys.stderr)
                return 1
            return 0
        else:
            _check_files(args.domain, args.problem)
            fn = {"label": label, "heuristics": heuristics, "gbfs-ff": gbfs_ff}[args.cmd]
            out = fn(fd, args.domain, args.problem, args.time_limit, args.memory_limit,
                     args.log_dir)
            if args.cmd == "heuristics":
                out = dict(out, domain=os.path.abspath(args.domain),
                           problem=os.path.abspath(args.problem))
        json.dump(out, sys.stdout, indent=2, sort_keys=True)
        sys.stdout.write("\n")
        return 0
    except UsageError as e:
        print("fd_reference: error: %s" % e, file=sys.stderr)
        return 2
    except FDFailure as e:
        print("fd_reference: FD failed: %s" % e, file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
