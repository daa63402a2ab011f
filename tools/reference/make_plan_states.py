#!/usr/bin/env python3
"""Golden heuristic values on the states along optimal plans.

For every golden instance (crates/planner/tests/golden/<domain>/*.pddl, keys as in
crates/planner/tests/golden/fd.json) this script

  1. asks hfarm for an optimal plan (`plan --search astar --heuristic lmcut
     --json`) and checks its cost against fd.json's optimal_cost;
  2. replays the plan with pyperplan's parser and grounding (statics kept in
     the state) to get the states s_0 .. s_n, checking every precondition
     and that s_n satisfies the goal;
  3. for every state s_k with k >= 1 (s_0 is fd.json's initial state; the
     goal state s_n is included) writes a problem file identical to the
     original except that its :init is exactly the true atoms of s_k, in
     sorted order (static atoms included), and runs Fast Downward's
     heuristics on it (tools/reference/fd_reference.py `heuristics`, i.e.
     eager_greedy([lmcut(),hmax(),ff(),add(),blind(),goalcount()], bound=0),
     plus one call for the classic lmcut(goal_zone_detection=false,
     border_detection=false));
  4. records key, k, h_star = n - k (the suffix of an optimal plan is
     optimal; all golden domains are unit cost), FD's values and the
     sorted atoms of s_k in crates/planner/tests/golden/plan_states.json, one state
     per line;
  5. runs hfarm's `heuristics --json` on the same problem files and reports
     mismatches against FD (hmax, hadd, lmcut, blind, goalcount exactly; ff
     differences, which can come from tie-breaking, are only counted) and
     violations of hmax <= lmcut <= h_star for FD's and hfarm's values.
     Problem files of mismatching states are kept in --mismatch-dir.

Subcommands:
  generate   steps 1-5 (FD needed; results are cached in --work, so an
             interrupted run resumes).
  check      step 5 only, from an existing plan_states.json: rebuilds each
             problem from the recorded atoms (no FD, no pyperplan needed).

Run with an interpreter that has pyperplan (the FD venv), e.g.
  FD_PYTHON=/work/refs/venv/bin/python /work/refs/venv/bin/python \\
      tools/reference/make_plan_states.py generate --bin target/release/hfarm
At most 2 processes run at a time (--jobs 1|2).
"""

import argparse
import collections
import concurrent.futures
import datetime
import glob
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
GOLDEN = os.path.join(REPO, "planner", "tests", "golden")
DEFAULT_OUT = os.path.join(GOLDEN, "plan_states.json")
LMCUT_CLASSIC = "lmcut(goal_zone_detection=false,border_detection=false)"
FD_FIELDS = ["hmax", "hadd", "ff", "lmcut", "blind", "goalcount"]
EXACT = ["hmax", "hadd", "lmcut", "blind", "goalcount"]

sys.path.insert(0, HERE)
import fd_reference  # noqa: E402  (next to this file)

_print_lock = threading.Lock()


def log(msg):
    with _print_lock:
        print(msg, file=sys.stderr, flush=True)


# --------------------------------------------------------------------------
# PDDL text: replace the :init section


def _skip_comment(text, i):
    while i < len(text) and text[i] != "\n":
        i += 1
    return i


def find_init_span(text):
    """(start, end) of the '(:init ...)' expression in a problem file."""
    depth, i, start = 0, 0, None
    while i < len(text):
        c = text[i]
        if c == ";":
            i = _skip_comment(text, i)
            continue
        if c == "(":
            if start is None and depth == 1 and re.match(r"\(\s*:init\b", text[i:], re.I):
                start = i
                start_depth = depth
            depth += 1
        elif c == ")":
            depth -= 1
            if start is not None and depth == start_depth:
                return start, i + 1
        i += 1
    raise ValueError("no (:init ...) section found")


def problem_with_init(text, atoms):
    s, e = find_init_span(text)
    line_start = text.rfind("\n", 0, s) + 1
    indent = text[line_start:s] if text[line_start:s].strip() == "" else "  "
    body = "".join("\n%s  %s" % (indent, a) for a in atoms)
    return text[:s] + "(:init" + body + ")" + text[e:]


# --------------------------------------------------------------------------
# hfarm


def run_json(cmd, timeout=None):
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    try:
        return json.loads(r.stdout)
    except ValueError:
        raise RuntimeError("%s: exit %d, no JSON\nstdout: %s\nstderr: %s"
                           % (" ".join(cmd), r.returncode, r.stdout[-800:], r.stderr[-800:]))


def hfarm_plan(bin_path, domain, problem):
    return run_json([bin_path, "plan", domain, problem, "--search", "astar",
                     "--heuristic", "lmcut", "--json"], timeout=600)


def hfarm_heuristics(bin_path, domain, problem):
    return run_json([bin_path, "heuristics", domain, problem, "--json"], timeout=600)


def hfarm_version(bin_path):
    try:
        return subprocess.run([bin_path, "--version"], capture_output=True, text=True,
                              timeout=60).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "hfarm (unknown version)"


# --------------------------------------------------------------------------
# Plan replay with pyperplan


def replay(domain_file, problem_file, plan):
    """States s_0..s_n (sorted atom lists) of PLAN, statics included."""
    from pyperplan.pddl.parser import Parser
    from pyperplan import grounding
    import logging
    logging.disable(logging.CRITICAL)
    parser = Parser(domain_file, problem_file)
    dom = parser.parse_domain()
    prob = parser.parse_problem(dom)
    task = grounding.ground(prob, remove_statics_from_initial_state=False,
                            remove_irrelevant_operators=False)
    ops = {}
    for op in task.operators:
        ops.setdefault(op.name, []).append(op)
    state = frozenset(task.initial_state)
    states = [sorted(state)]
    for i, act in enumerate(plan):
        name = "(" + " ".join(act.strip("() ").lower().split()) + ")"
        cands = [o for o in ops.get(name, []) if o.applicable(state)]
        if not cands:
            raise RuntimeError("%s: step %d %s is not applicable (or unknown)"
                               % (problem_file, i + 1, act))
        state = frozenset(cands[0].apply(state))
        states.append(sorted(state))
    if not task.goal_reached(state):
        raise RuntimeError("%s: plan does not reach the goal" % problem_file)
    return states


# --------------------------------------------------------------------------
# FD


class FD:
    def __init__(self, python):
        ns = argparse.Namespace(python=python, fd_driver=None)
        self.fd = fd_reference.locate_fd(ns)

    def version(self):
        return fd_reference.fd_version(*self.fd)

    def values(self, domain, problem, classic=True):
        h = fd_reference.heuristics(self.fd, domain, problem)
        if h.get("heuristics_status") != "ok":
            raise RuntimeError("FD heuristics on %s: %s" % (problem, h.get("heuristics_status")))
        out = {k: h[k] for k in FD_FIELDS}
        if classic:
            run = fd_reference.run_fd(self.fd, domain, problem,
                                      "eager_greedy([%s], bound=0)" % LMCUT_CLASSIC)
            if run["rc"] not in (0, 13):
                fd_reference._fail("classic lmcut on %s" % problem, run)
            v = fd_reference.parse_initial_h(run["log"])
            if "lmcut" not in v:
                raise RuntimeError("FD classic lmcut on %s: no initial value" % problem)
            out["lmcut_classic"] = v["lmcut"]
        return out


# --------------------------------------------------------------------------
# Instances and states


def golden_keys(golden, domains=None):
    with open(os.path.join(golden, "fd.json")) as f:
        fdj = json.load(f)
    keys = [k for k in fdj if not k.startswith("_")]
    if domains:
        keys = [k for k in keys if k.split("/")[0] in domains]
    return keys, fdj


def subsample(n, limit):
    """Step indices 1..n, at most LIMIT of them, spread evenly, n kept."""
    ks = list(range(1, n + 1))
    if limit is None or len(ks) <= limit:
        return ks
    if limit <= 1:
        return [n]
    return sorted({ks[round(i * (len(ks) - 1) / (limit - 1))] for i in range(limit)})


def state_file(work, key, k):
    dom, fname = key.split("/")
    stem = fname[:-5] if fname.endswith(".pddl") else fname
    return os.path.join(work, "problems", dom, "%s-k%03d.pddl" % (stem, k))


def write_if_changed(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    try:
        with open(path) as f:
            if f.read() == text:
                return
    except OSError:
        pass
    with open(path, "w") as f:
        f.write(text)


def dump_states(path, provenance, states, extra=None):
    lines = ["{", '  "_provenance": %s,' % json.dumps(provenance)]
    if extra:
        for k, v in extra.items():
            lines.append("  %s: %s," % (json.dumps(k), json.dumps(v, separators=(", ", ": "))))
    lines.append('  "states": [')
    for i, s in enumerate(states):
        lines.append("    " + json.dumps(s, separators=(", ", ": ")) + ("," if i + 1 < len(states) else ""))
    lines.append("  ]")
    lines.append("}")
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write("\n".join(lines) + "\n")
    os.replace(tmp, path)


# --------------------------------------------------------------------------
# Comparison with hfarm


def compare(records, ours_by_id, mismatch_dir, files_by_id, golden):
    """records: list of dicts with FD values; ours_by_id: id -> hfarm JSON."""
    per_dom = collections.Counter()
    exact = collections.defaultdict(list)   # field -> [(rec, fd, ours)]
    ff = []
    classic = []
    rel_fd, rel_ours = [], []
    for r in records:
        rid = (r["key"], r["k"])
        dom = r["key"].split("/")[0]
        per_dom[dom] += 1
        ours = ours_by_id[rid]
        for h in EXACT:
            if r[h] != ours.get(h):
                exact[h].append((r, r[h], ours.get(h)))
        if r["ff"] != ours.get("ff"):
            ff.append((r, r["ff"], ours.get("ff")))
        if "lmcut_classic" in r and r["lmcut_classic"] != ours.get("lmcut"):
            classic.append((r, r["lmcut_classic"], ours.get("lmcut")))

        def rel(vals, sink, who):
            hm, lm, hs = vals.get("hmax"), vals.get("lmcut"), r["h_star"]
            if hm is None or lm is None or not (hm <= lm <= hs):
                sink.append((r, "%s hmax=%s lmcut=%s h_star=%s" % (who, hm, lm, hs)))
        rel(r, rel_fd, "FD")
        rel(ours, rel_ours, "hfarm")
        if "lmcut_classic" in r and not (r["hmax"] <= r["lmcut_classic"] <= r["h_star"]):
            rel_fd.append((r, "FD classic hmax=%s lmcut_classic=%s h_star=%s"
                           % (r["hmax"], r["lmcut_classic"], r["h_star"])))

    # keep the problem files of mismatching states
    bad = set()
    for lst in list(exact.values()) + [ff, rel_fd, rel_ours]:
        for item in lst:
            bad.add((item[0]["key"], item[0]["k"]))
    if mismatch_dir:
        # drop state files of an earlier run (only ours: <domain>/*-kNNN.pddl)
        for d in glob.glob(os.path.join(mismatch_dir, "*", "*-k[0-9][0-9][0-9].pddl")):
            os.remove(d)
        os.makedirs(mismatch_dir, exist_ok=True)
        for key, k in sorted(bad):
            src = files_by_id[(key, k)]
            dom = key.split("/")[0]
            dst_dir = os.path.join(mismatch_dir, dom)
            os.makedirs(dst_dir, exist_ok=True)
            shutil.copy(os.path.join(golden, dom, "domain.pddl"), os.path.join(dst_dir, "domain.pddl"))
            shutil.copy(src, os.path.join(dst_dir, os.path.basename(src)))

    L = []
    L.append("States compared: %d (%s)" % (len(records), ", ".join(
        "%s %d" % (d, n) for d, n in sorted(per_dom.items()))))
    for h in EXACT:
        lst = exact[h]
        by_dom = collections.Counter(x[0]["key"].split("/")[0] for x in lst)
        lower = sum(1 for x in lst if x[2] is not None and x[1] is not None and x[2] < x[1])
        L.append("%-9s mismatches: %4d  (hfarm lower %d, higher %d; by domain: %s)" % (
            h, len(lst), lower, len(lst) - lower,
            ", ".join("%s %d" % kv for kv in sorted(by_dom.items())) or "-"))
        for r, a, b in lst[:12]:
            L.append("    %s k=%d h*=%d: FD=%s hfarm=%s  [%s]" % (
                r["key"], r["k"], r["h_star"], a, b,
                os.path.basename(files_by_id[(r["key"], r["k"])])))
    by_dom = collections.Counter(x[0]["key"].split("/")[0] for x in ff)
    lower = sum(1 for x in ff if x[2] < x[1])
    L.append("ff        differences: %4d of %d (hfarm lower %d, higher %d; by domain: %s)" % (
        len(ff), len(records), lower, len(ff) - lower,
        ", ".join("%s %d" % kv for kv in sorted(by_dom.items())) or "-"))
    for r, a, b in ff[:8]:
        L.append("    %s k=%d: FD ff=%s hfarm ff=%s" % (r["key"], r["k"], a, b))
    if any("lmcut_classic" in r for r in records):
        lower = sum(1 for x in classic if x[2] < x[1])
        L.append("hfarm lmcut vs FD classic %s: %d differ (hfarm lower %d, higher %d)"
                 % (LMCUT_CLASSIC, len(classic), lower, len(classic) - lower))
    L.append("hmax <= lmcut <= h_star violated, FD: %d" % len(rel_fd))
    for r, what in rel_fd[:10]:
        L.append("    %s k=%d: %s" % (r["key"], r["k"], what))
    L.append("hmax <= lmcut <= h_star violated, hfarm: %d" % len(rel_ours))
    for r, what in rel_ours[:10]:
        L.append("    %s k=%d: %s" % (r["key"], r["k"], what))
    if mismatch_dir:
        L.append("Problem files of %d mismatching states kept in %s" % (len(bad), mismatch_dir))
    summary = {
        "states": len(records),
        "exact_mismatches": {h: [{"key": r["key"], "k": r["k"], "h_star": r["h_star"], "fd": a,
                                  "hfarm": b} for r, a, b in exact[h]] for h in EXACT},
        "ff_differences": [{"key": r["key"], "k": r["k"], "fd": a, "hfarm": b} for r, a, b in ff],
        "relation_violations_fd": [{"key": r["key"], "k": r["k"], "what": w} for r, w in rel_fd],
        "relation_violations_hfarm": [{"key": r["key"], "k": r["k"], "what": w} for r, w in rel_ours],
    }
    hard = sum(len(v) for v in exact.values()) + len(rel_fd) + len(rel_ours)
    return "\n".join(L), summary, hard


def pmap(fn, items, jobs):
    if jobs <= 1:
        return [fn(x) for x in items]
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        return list(pool.map(fn, items))


def finish_report(args, text, summary):
    print(text)
    if args.mismatch_dir:
        os.makedirs(args.mismatch_dir, exist_ok=True)
        with open(os.path.join(args.mismatch_dir, "report.txt"), "w") as f:
            f.write(text + "\n")
        with open(os.path.join(args.mismatch_dir, "mismatches.json"), "w") as f:
            json.dump(summary, f, indent=1)


# --------------------------------------------------------------------------
# Subcommands


def cmd_generate(args):
    bin_path = os.path.abspath(args.bin)
    keys, fdj = golden_keys(args.golden, args.domain)
    fd = FD(args.fd_python)
    fd_ver = fd.version()
    os.makedirs(args.work, exist_ok=True)
    cache_path = os.path.join(args.work, "fd-cache.jsonl")
    cache = {}
    if os.path.exists(cache_path):
        with open(cache_path) as f:
            for line in f:
                line = line.strip()
                if line:
                    e = json.loads(line)
                    cache[e["hash"]] = e["values"]
    cache_lock = threading.Lock()

    # 1+2: plans and states
    def plan_and_states(key):
        dom = key.split("/")[0]
        dfile = os.path.join(args.golden, dom, "domain.pddl")
        pfile = os.path.join(args.golden, key)
        p = hfarm_plan(bin_path, dfile, pfile)
        if p.get("status") != "solved":
            raise RuntimeError("%s: hfarm plan status %s" % (key, p.get("status")))
        opt = fdj[key].get("optimal_cost")
        if p["cost"] != opt or len(p["plan"]) != opt:
            raise RuntimeError("%s: hfarm plan cost %s (length %d), FD optimum %s"
                               % (key, p["cost"], len(p["plan"]), opt))
        return key, p["plan"], replay(dfile, pfile, p["plan"])

    t0 = time.time()
    planned = pmap(plan_and_states, keys, args.jobs)
    log("plans and replays: %d instances in %.1fs" % (len(planned), time.time() - t0))

    jobs = []   # (key, k, h_star, atoms, action, problem file)
    for key, plan, states in planned:
        dom = key.split("/")[0]
        with open(os.path.join(args.golden, key)) as f:
            text = f.read()
        n = len(plan)
        for k in subsample(n, args.max_per_instance):
            path = state_file(args.work, key, k)
            ptext = problem_with_init(text, states[k])
            write_if_changed(path, ptext)
            jobs.append({"key": key, "k": k, "h_star": n - k, "atoms": states[k],
                         "file": path, "hash": hashlib.sha256(ptext.encode()).hexdigest()})
    per_dom = collections.Counter(j["key"].split("/")[0] for j in jobs)
    log("states: %d (%s)" % (len(jobs), ", ".join("%s %d" % kv for kv in sorted(per_dom.items()))))
    if args.dry_run:
        est = sum(len(json.dumps(j["atoms"])) + 160 for j in jobs)
        print(json.dumps({"states": len(jobs), "per_domain": per_dom,
                          "estimated_bytes": est}, indent=1))
        return 0

    done = [0]

    def evaluate(j):
        dom = j["key"].split("/")[0]
        dfile = os.path.join(args.golden, dom, "domain.pddl")
        with cache_lock:
            v = cache.get(j["hash"])
        if v is None:
            v = fd.values(dfile, j["file"], classic=not args.no_classic)
            with cache_lock:
                cache[j["hash"]] = v
                with open(cache_path, "a") as f:
                    f.write(json.dumps({"hash": j["hash"], "key": j["key"], "k": j["k"],
                                        "values": v}) + "\n")
        ours = hfarm_heuristics(bin_path, dfile, j["file"])
        with cache_lock:
            done[0] += 1
            if done[0] % 100 == 0:
                log("  %d/%d states (%.0fs)" % (done[0], len(jobs), time.time() - t1))
        return v, ours

    t1 = time.time()
    results = pmap(evaluate, jobs, args.jobs)
    log("FD + hfarm heuristics: %d states in %.1fs" % (len(jobs), time.time() - t1))

    records, ours_by_id, files_by_id = [], {}, {}
    for j, (v, ours) in zip(jobs, results):
        rec = {"key": j["key"], "k": j["k"], "h_star": j["h_star"]}
        for h in FD_FIELDS:
            rec[h] = v[h]
        if "lmcut_classic" in v:
            rec["lmcut_classic"] = v["lmcut_classic"]
        rec["atoms"] = j["atoms"]
        records.append(rec)
        ours_by_id[(j["key"], j["k"])] = ours
        files_by_id[(j["key"], j["k"])] = j["file"]

    sub = ("all steps k = 1..n of each plan" if args.max_per_instance is None else
           "at most %d steps per plan, spread evenly over k = 1..n (k = n kept)" % args.max_per_instance)
    provenance = (
        "Heuristic values of %s on the states along optimal plans of the golden instances "
        "(crates/planner/tests/golden/<domain>/*.pddl, keys as in fd.json). Per instance: the plan is "
        "`%s plan DOMAIN PROBLEM --search astar --heuristic lmcut --json` (cost checked against "
        "fd.json's optimal_cost), replayed with pyperplan's grounding to states s_0..s_n; recorded: "
        "%s (s_0 is fd.json's initial state; k = n is the goal state). Per state: key, k (number of "
        "plan steps applied), h_star = n - k (remaining optimal cost; unit-cost domains), FD's "
        "hmax, hadd (FD plugin add), ff, lmcut (FD 26 default lmcut(), goal-zone and border "
        "detection on), blind, goalcount from `tools/reference/fd_reference.py heuristics` "
        "(eager_greedy([lmcut(),hmax(),ff(),add(),blind(),goalcount()], bound=0)) on a problem "
        "file identical to the original except that its :init is exactly `atoms` in the listed "
        "(sorted) order; lmcut_classic: %s on the same file; atoms: every atom true in s_k, "
        "static ones included, sorted. null would mean infinity. lmcut and ff depend on "
        "tie-breaking. Regenerate: `FD_PYTHON=<venv>/bin/python <venv>/bin/python "
        "tools/reference/make_plan_states.py generate` (pyperplan needed); check hfarm against "
        "this file: `... make_plan_states.py check`. Generated %s."
        % ("Fast Downward " + fd_ver, "hfarm", sub,
           LMCUT_CLASSIC, datetime.date.today().isoformat()))
    dump_states(args.out, provenance, records)
    log("wrote %s (%d states, %d bytes)" % (args.out, len(records), os.path.getsize(args.out)))

    text, summary, hard = compare(records, ours_by_id, args.mismatch_dir, files_by_id, args.golden)
    finish_report(args, text, summary)
    return 1 if hard else 0


def cmd_check(args):
    bin_path = os.path.abspath(args.bin)
    with open(args.out) as f:
        data = json.load(f)
    records = data["states"]
    if args.domain:
        records = [r for r in records if r["key"].split("/")[0] in args.domain]
    texts = {}
    files_by_id = {}
    for r in records:
        if r["key"] not in texts:
            with open(os.path.join(args.golden, r["key"])) as f:
                texts[r["key"]] = f.read()
        path = state_file(args.work, r["key"], r["k"])
        write_if_changed(path, problem_with_init(texts[r["key"]], r["atoms"]))
        files_by_id[(r["key"], r["k"])] = path

    def ours(r):
        dom = r["key"].split("/")[0]
        return hfarm_heuristics(bin_path, os.path.join(args.golden, dom, "domain.pddl"),
                                files_by_id[(r["key"], r["k"])])

    t0 = time.time()
    res = pmap(ours, records, args.jobs)
    log("hfarm heuristics on %d states in %.1fs" % (len(records), time.time() - t0))
    ours_by_id = {(r["key"], r["k"]): o for r, o in zip(records, res)}
    text, summary, hard = compare(records, ours_by_id, args.mismatch_dir, files_by_id, args.golden)
    finish_report(args, text, summary)
    return 1 if hard else 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", default=os.environ.get("HFARM_BIN",
                                                    os.path.join(REPO, "target", "release", "hfarm")),
                    help="hfarm binary (default $HFARM_BIN or target/release/hfarm)")
    ap.add_argument("--golden", default=GOLDEN, help="golden directory (default %(default)s)")
    ap.add_argument("--out", default=DEFAULT_OUT, help="plan_states.json (default %(default)s)")
    ap.add_argument("--work", default="/tmp/plan-states-work",
                    help="state problem files and FD cache (default %(default)s)")
    ap.add_argument("--mismatch-dir", default="/tmp/plan-state-mismatches",
                    help="problem files of mismatching states, report.txt (default %(default)s; "
                         "'' to skip); its <domain>/*-kNNN.pddl files from an earlier run are removed first")
    ap.add_argument("--domain", action="append", help="only this domain (repeatable)")
    ap.add_argument("--jobs", type=int, default=2, help="parallel processes, 1 or 2 (default 2)")
    sub = ap.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("generate", help="plans, replay, FD values, write --out, compare with hfarm")
    g.add_argument("--fd-python", default=os.environ.get("FD_PYTHON"),
                   help="interpreter with up-fast-downward (default $FD_PYTHON)")
    g.add_argument("--max-per-instance", type=int, default=None,
                   help="subsample: at most N states per plan (default: all)")
    g.add_argument("--no-classic", action="store_true", help="skip lmcut_classic")
    g.add_argument("--dry-run", action="store_true", help="plans and states only; print counts")
    sub.add_parser("check", help="compare hfarm with an existing --out file (no FD)")
    args = ap.parse_args(argv)
    args.jobs = max(1, min(2, args.jobs))
    args.golden = os.path.abspath(args.golden)
    try:
        return cmd_generate(args) if args.cmd == "generate" else cmd_check(args)
    except fd_reference.UsageError as e:
        print("make_plan_states: %s" % e, file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
