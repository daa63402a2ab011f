#!/usr/bin/env python3
"""Reads real IPC benchmark files with hfarm's planner and with Fast Downward
(FD), and compares: parsed, grounded, optimal cost (A* + LM-cut on both).

Benchmark roots are checkouts of, for instance,
  aibasel/downward-benchmarks   (DOMAIN/domain.pddl + DOMAIN/p01.pddl, FD's naming rules)
  potassco/pddl-instances       (ipc-YYYY/domains/D/domain.pddl or D/domains/domain-N.pddl,
                                 D/instances/instance-N.pddl)
Every directory holding problem files is a domain. Its domain file is
classified from its text:
  strips          requirements and constructs within what hfarm supports
                  (:strips :typing :negative-preconditions :equality, and
                  nothing else used);
  strips-content  declares more (e.g. :adl) but uses no construct beyond STRIPS;
  other           uses (or declares) conditional effects, quantifiers, derived
                  predicates, numeric fluents, action costs, durations, ...
For `strips` and `strips-content` domains the smallest N problems (by file
size) are run through FD's `astar(lmcut())` and through hfarm
(`cargo run --release -p planner --example ipc_check -- --search`), both with
a time limit; for `other` domains hfarm only parses the smallest problem, to
check that it refuses the domain by naming the construct.

    python3 tools/reference/ipc_sweep.py ROOT [ROOT ...] [--problems 3]
        [--time-limit 30] [--out sweep.json] [--hfarm-bin PATH] [--fd-driver PATH]
        [--only SUBSTRING]

FD is found as in fd_reference.py (--fd-driver, $FD_DRIVER, or the
site-packages of --python / $FD_PYTHON / this interpreter). The hfarm example
is built with `cargo build --release -p planner --example ipc_check` unless
--hfarm-bin is given. Prints a summary and writes every record to --out.
Standard library only.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fd_reference  # noqa: E402  (same directory)

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

SUPPORTED_REQUIREMENTS = {":strips", ":typing", ":negative-preconditions", ":equality"}
# List heads that hfarm refuses as constructs (conditions, effects, numbers).
UNSUPPORTED_HEADS = {"forall", "exists", "when", "or", "imply", "increase", "decrease",
                     "assign", "scale-up", "scale-down", "preference", ">", "<", ">=", "<="}
UNSUPPORTED_SECTIONS = {":functions", ":derived", ":durative-action", ":constraints"}


# --------------------------------------------------------------------------
# Reading PDDL just enough to classify it (tokens as FD's lisp_parser makes them)

def tokens(text):
    for line in text.splitlines():
        line = line.split(";", 1)[0]
        line = line.replace("(", " ( ").replace(")", " ) ").replace("?", " ?")
        for tok in line.split():
            yield tok.lower()


def nested(text):
    stack = [[]]
    for tok in tokens(text):
        if tok == "(":
            stack.append([])
        elif tok == ")":
            if len(stack) == 1:
                raise ValueError("unbalanced ')'")
            done = stack.pop()
            stack[-1].append(done)
        else:
            stack[-1].append(tok)
    if len(stack) != 1:
        raise ValueError("missing ')'")
    return stack[0]


def heads(tree):
    for item in tree:
        if isinstance(item, list):
            if item and isinstance(item[0], str):
                yield item[0]
            yield from heads(item)


def _define(path):
    """The `(define ...)` list of a file, or a reason why there is none."""
    with open(path, errors="replace") as f:
        text = f.read()
    try:
        top = nested(text)
    except ValueError as e:
        return None, "unreadable: %s" % e
    if not top or not isinstance(top[0], list) or top[0][:1] != ["define"]:
        return None, "something other than (define ...) first"  # IPC 1998's (in-package ...)
    return top[0], None


def classify(domain_file, problem_file=None):
    """('strips' | 'strips-content' | 'other', reasons), from the domain file
    and, if given, the problem file (preferences, metrics, constraints)."""
    define, why = _define(domain_file)
    if define is None:
        return "other", [why]
    reqs, used = set(), set()
    for sec in define[2:]:
        if not (isinstance(sec, list) and sec and isinstance(sec[0], str)):
            continue
        if sec[0] == ":requirements":
            reqs.update(r for r in sec[1:] if isinstance(r, str))
        elif sec[0] in UNSUPPORTED_SECTIONS:
            used.add(sec[0])
        elif sec[0] == ":action":
            used.update(h for h in heads(sec[1:]) if h in UNSUPPORTED_HEADS)
            # PDDL 1.0's `:vars` and the like.
            used.update(k for k in sec[2::2] if isinstance(k, str)
                        and k not in (":parameters", ":precondition", ":effect"))
    if problem_file is not None:
        pdef, why = _define(problem_file)
        if pdef is None:
            return "other", [why]
        for sec in pdef[2:]:
            if isinstance(sec, list) and sec[:1] in ([":metric"], [":constraints"]):
                used.add(sec[0])
            elif isinstance(sec, list) and sec[:1] == [":goal"]:
                used.update(h for h in heads(sec[1:]) if h in UNSUPPORTED_HEADS)
    if used:
        return "other", sorted(used)
    extra = sorted(reqs - SUPPORTED_REQUIREMENTS)
    return ("strips-content", extra) if extra else ("strips", [])


# --------------------------------------------------------------------------
# Finding domains and problems

def domain_file_for(problem):
    """FD's naming rules (driver/util.py), then pddl-instances' layout."""
    d, name = os.path.split(problem)
    stem = name[:-len(".pddl")]
    candidates = [os.path.join(d, c) for c in (
        "domain.pddl", stem + "-domain.pddl", name[:3] + "-domain.pddl",
        "domain_" + name, "domain-" + name)]
    if os.path.basename(d) == "instances" and stem.startswith("instance-"):
        parent = os.path.dirname(d)
        candidates += [os.path.join(parent, "domain.pddl"),
                       os.path.join(parent, "domains", "domain-" + stem[len("instance-"):] + ".pddl")]
    return next((c for c in candidates if os.path.isfile(c)), None)


def discover(roots, only=None):
    """{domain directory: [(domain file, problem file), ...]} sorted by problem size."""
    found = {}
    for root in roots:
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = sorted(x for x in dirnames if not x.startswith("."))
            probs = [f for f in filenames if f.endswith(".pddl") and "domain" not in f]
            if not probs:
                continue
            key = os.path.relpath(dirpath, os.path.dirname(os.path.abspath(root)))
            if os.path.basename(dirpath) == "instances":
                key = os.path.dirname(key)
            if only and only not in key:
                continue
            pairs = []
            for f in probs:
                p = os.path.join(dirpath, f)
                dom = domain_file_for(p)
                if dom:
                    pairs.append((dom, p))
            if pairs:
                pairs.sort(key=lambda dp: (os.path.getsize(dp[1]), dp[1]))
                found[key] = pairs
    return found


# --------------------------------------------------------------------------
# Running both planners

def build_hfarm():
    env = dict(os.environ)
    env.setdefault("CARGO_BUILD_JOBS", "1")
    subprocess.run(["cargo", "build", "--release", "-q", "-p", "planner", "--example", "ipc_check"],
                   cwd=REPO, check=True, env=env)
    out = subprocess.run(["cargo", "metadata", "--format-version", "1", "--no-deps"], cwd=REPO,
                         check=True, capture_output=True, text=True, env=env).stdout
    target = json.loads(out)["target_directory"]
    return os.path.join(target, "release", "examples", "ipc_check")


def run_hfarm(binary, domain, problem, args, wall_limit):
    try:
        proc = subprocess.run([binary] + args, input="%s\t%s\n" % (domain, problem),
                              capture_output=True, text=True, timeout=wall_limit)
    except subprocess.TimeoutExpired:
        return {"stage": "killed", "error": "no answer within %ss" % wall_limit}
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        return {"stage": "crash", "error": (proc.stderr or "")[-500:], "exit": proc.returncode}
    return json.loads(lines[-1])


def run_fd(fd, domain, problem, time_limit, memory_limit):
    run = fd_reference.run_fd(fd, domain, problem, "astar(lmcut())", time_limit, memory_limit)
    rc = run["rc"]
    res = {"fd_exit_code": rc, "fd_wall_s": round(run["wall_s"], 2)}
    if rc in (30, 31, 32, 33, 34, 35, 36, 37):
        res["fd_status"] = "input-error" if rc in (31, 33, 36) else "error"
        res["fd_error"] = "\n".join(run["log"].strip().splitlines()[-6:])
        return res
    st = fd_reference._status(rc) or "exit-%s" % rc
    res["fd_status"] = st
    if st == "solved" and run["plan_text"] is not None:
        _, cost = fd_reference.parse_plan(run["plan_text"])
        res["fd_cost"] = cost
    return res


# --------------------------------------------------------------------------

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("roots", nargs="+")
    ap.add_argument("--problems", type=int, default=3, help="smallest N problems per domain (default 3)")
    ap.add_argument("--time-limit", type=float, default=30.0, help="seconds per planner call (default 30)")
    ap.add_argument("--memory-limit", default="4G", help="FD's memory limit (ours: the same in MiB)")
    ap.add_argument("--out", default="ipc_sweep.json")
    ap.add_argument("--only", help="only domain directories whose path contains this")
    ap.add_argument("--hfarm-bin", help="a built ipc_check example (else it is built)")
    ap.add_argument("--fd-driver")
    ap.add_argument("--python")
    args = ap.parse_args(argv)

    fd = fd_reference.locate_fd(args)
    binary = args.hfarm_bin or build_hfarm()
    mem_mib = int(re.sub(r"[^0-9]", "", args.memory_limit)) * (1024 if args.memory_limit.upper().endswith("G") else 1)
    domains = discover(args.roots, args.only)
    records = []
    start = time.time()
    for key in sorted(domains):
        pairs = domains[key]
        kind, reasons = classify(*pairs[0])
        chosen = pairs[:args.problems] if kind != "other" else pairs[:1]
        for dom, prob in chosen:
            rec = {"domain_dir": key, "kind": kind, "reasons": reasons, "domain": dom, "problem": prob}
            if kind == "other":
                rec.update(run_hfarm(binary, dom, prob, ["--parse-only"], 120))
            else:
                rec.update(run_hfarm(binary, dom, prob,
                                     ["--search", "--time-limit", str(args.time_limit),
                                      "--memory-limit", str(mem_mib)],
                                     4 * args.time_limit + 120))
                if rec["stage"] in ("killed", "crash"):
                    # The search limit does not cover grounding: say how far reading got.
                    rec["parse_only"] = run_hfarm(binary, dom, prob, ["--parse-only"], 120)
                rec.update(run_fd(fd, dom, prob, args.time_limit, args.memory_limit))
            records.append(rec)
            print("%-70s %-14s hfarm=%-14s %s fd=%s %s" % (
                os.path.relpath(prob, os.path.dirname(os.path.abspath(args.roots[0]))), kind,
                rec.get("stage"), rec.get("cost"), rec.get("fd_status", "-"), rec.get("fd_cost", "")),
                flush=True)
            with open(args.out, "w") as f:
                json.dump(records, f, indent=1)
    summary = summarize(records)
    summary["elapsed_s"] = round(time.time() - start)
    with open(args.out, "w") as f:
        json.dump({"summary": summary, "records": records}, f, indent=1)
    print(json.dumps(summary, indent=1))


def summarize(records):
    tried = [r for r in records if r["kind"] != "other"]
    def parsed_ok(r):
        stage = r.get("stage")
        if stage in ("killed", "crash"):
            stage = r.get("parse_only", {}).get("stage")
        return stage not in ("read", "parse_domain", "parse_problem", "killed", "crash")
    parsed = [r for r in tried if parsed_ok(r)]
    grounded = [r for r in parsed if r.get("stage") in ("search", "done")]
    fd_solved = [r for r in tried if r.get("fd_cost") is not None]
    ours_solved = [r for r in tried if r.get("status") == "solved"]
    equal = [r for r in tried if r.get("fd_cost") is not None and r.get("cost") == r["fd_cost"]]
    mismatches = [{"problem": r["problem"], "fd": r.get("fd_cost"), "hfarm": r.get("cost"),
                   "hfarm_status": r.get("status"), "stage": r.get("stage"), "error": r.get("error")}
                  for r in tried
                  if r.get("fd_cost") is not None and r.get("cost") is not None and r["cost"] != r["fd_cost"]]
    def refused(r):
        return r.get("stage") in ("read", "parse_domain", "parse_problem")
    accept_differs = [{"problem": r["problem"], "fd": r.get("fd_status"), "hfarm": r.get("stage"),
                       "error": r.get("error") or r.get("fd_error")}
                      for r in tried if (r.get("fd_status") == "input-error") != refused(r)]
    other = [r for r in records if r["kind"] == "other"]
    refused_by_name = [r for r in other if "unsupported construct" in (r.get("error") or "")]
    return {
        "domains_tried": len({r["domain_dir"] for r in tried}),
        "problems_tried": len(tried),
        "parsed": len(parsed),
        "grounded": len(grounded),
        "not_grounded_in_time": [r["problem"] for r in parsed if r not in grounded],
        "fd_solved": len(fd_solved),
        "hfarm_solved": len(ours_solved),
        "equal_optimal_cost": len(equal),
        "plans_valid": sum(1 for r in ours_solved if r.get("plan_valid")),
        "cost_mismatches": mismatches,
        "acceptance_differs_from_fd": accept_differs,
        "solved_by_fd_only": [r["problem"] for r in fd_solved if r.get("status") != "solved"],
        "solved_by_hfarm_only": [r["problem"] for r in ours_solved if r.get("fd_cost") is None],
        "other_domains": len(other),
        "other_refused_by_name": len(refused_by_name),
        "other_not_refused_by_name": [{"problem": r["problem"], "stage": r.get("stage"), "error": r.get("error")}
                                      for r in other if r not in refused_by_name],
    }


if __name__ == "__main__":
    try:
        main()
    except fd_reference.UsageError as e:
        print("error: %s" % e, file=sys.stderr)
        sys.exit(2)
