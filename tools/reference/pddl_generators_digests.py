#!/usr/bin/env python3
"""Digests of pddl-generators' problems, for hfarm's `--like pddl-generators`.

The IJCAI'24 paper's code (IBM/pddlsl b4c807a, experiments/generate_datum.py)
makes every instance with `pddl-generators -s SEED DOMAIN -- ARGS` at
guicho271828/pddl-generators ddffd0eb, where try i of seed s uses the seed
s*1000+i.  This script rebuilds that generator outside the repository, runs it
through its own Python wrapper exactly so, and writes

  crates/planner/fixtures/pddl-generators-ddffd0e.tsv
      one line per (domain, parameters, seed): the sha256 of the problem text
      as the generator printed it, and of its tokens (see HEADER below);
  crates/planner/fixtures/pddl-generators-ddffd0e/*.pddl
      a few full problems, so that a failing test can show a diff.

hfarm's faithful generators (crates/planner/src/generate/pddl_generators/)
are tested against both.  Nothing of pddl-generators is committed.

Usage (from the repository root; standard library, gcc, g++, make, bash):

  python3 tools/reference/pddl_generators_digests.py [--src /work/refs/pddl-generators-ddffd0e]
      [--mirror /work/.mirror/guicho271828+pddl-generators/repo] [--jobs 2]

The source tree is extracted from the mirror with `git archive` unless it is
there already, and its four C programs are built with their own Makefiles.
"""

import argparse
import concurrent.futures
import hashlib
import os
import pathlib
import subprocess
import sys
import tempfile

COMMIT = "ddffd0eb"
REPO = pathlib.Path(__file__).resolve().parents[2]
FIXTURE = REPO / "crates/planner/fixtures/pddl-generators-ddffd0e.tsv"
FULL_DIR = REPO / "crates/planner/fixtures/pddl-generators-ddffd0e"

# hfarm domain -> (pddl-generators domain, its arguments after `--` from
# hfarm's parameters).  The arguments are those of experiments/generate_data.sh.
WRAPPER = {
    "blocksworld": ("blocksworld-4ops", lambda p: [str(p["blocks"])]),
    "ferry": ("ferry", lambda p: [str(p["locations"]), str(p["cars"])]),
    "gripper": ("gripper", lambda p: ["--randomize", str(p["balls"])]),
    # `visitall {1} {2} {2} {3}`: seed, x, y = x, ratio as given ("0.5", "1.0").
    "visitall": ("visitall", lambda p: [str(p["size"]), str(p["size"]), p["ratio"]]),
}


def paper_seeds(s_range, tries):
    return [s * 1000 + i for s in s_range for i in tries]


# Seeds 0 and 1 as well: glibc's srandom(0) seeds with 1 (ferry, visitall).
EDGE_SEEDS = [0, 1, 42, 79019, 2147483647]


def cases():
    """(domain, params dict, seed) over the paper's ranges (train/val/test and test2)."""
    out = []
    for b in range(5, 23):  # 5..16 train/val/test, 11..22 test2
        for seed in paper_seeds(range(1, 9), range(3)):
            out.append(("blocksworld", {"blocks": b}, seed))
    ferry_sizes = [(l, c) for l in range(2, 7) for c in range(2, 7)]
    ferry_sizes += [(l, c) for l in range(10, 31, 5) for c in range(10, 31, 5)]
    for l, c in ferry_sizes:
        for seed in paper_seeds(range(1, 5), range(2)):
            out.append(("ferry", {"locations": l, "cars": c}, seed))
    for balls in list(range(2, 11, 2)) + list(range(20, 61, 10)):
        for seed in paper_seeds(range(1, 21), range(2)):
            out.append(("gripper", {"balls": balls}, seed))
    for size in range(3, 9):  # 3..5, test2 6..8
        for ratio in ["0.5", "1.0"]:
            for seed in paper_seeds(range(1, 18), range(2)):
                out.append(("visitall", {"size": size, "ratio": ratio}, seed))
    # A few seeds outside the paper's form, on one size each.
    for seed in EDGE_SEEDS:
        out.append(("blocksworld", {"blocks": 7}, seed))
        out.append(("ferry", {"locations": 3, "cars": 4}, seed))
        out.append(("gripper", {"balls": 6}, seed))
        out.append(("visitall", {"size": 4, "ratio": "0.5"}, seed))
    return out


# The full problems kept as files: one per domain.
FULL = [
    ("blocksworld", {"blocks": 8}, 3001),
    ("ferry", {"locations": 4, "cars": 5}, 2001),
    ("gripper", {"balls": 6}, 7000),
    ("visitall", {"size": 4, "ratio": "0.5"}, 5002),
]

HEADER = """\
# Problems of pddl-generators at ddffd0eb (github.com/guicho271828/pddl-generators,
# commit ddffd0eb "Converted logistics domain to lowercase"), as the IJCAI'24 paper's
# code (IBM/pddlsl b4c807a, experiments/generate_datum.py) calls it:
#   python3 -m pddl_generators -d DIR -s SEED DOMAIN -- ARGS
# with DOMAIN -- ARGS = blocksworld-4ops -- BLOCKS | ferry -- LOCATIONS CARS |
#   gripper -- --randomize BALLS | visitall -- SIZE SIZE RATIO.
# Written by tools/reference/pddl_generators_digests.py (gcc/g++ {cc}, {py}, glibc {libc}, {arch}).
# Columns (tab-separated): domain, hfarm parameters (name=value, comma-separated), seed,
#   sha256 of the file with every line starting with ";;" removed (the wrapper's
#   trailer, which holds a date): the generator's own output, byte for byte;
#   sha256 of its tokens: that text split on ASCII whitespace, joined by one space, no
#   trailing newline.
# Each digest is of the UTF-8 bytes, in lowercase hex.
"""


def strip_comments(text):
    return "".join(l for l in text.splitlines(keepends=True) if not l.startswith(";;"))


def tokens(text):
    return " ".join(text.split())


def sha(text):
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def params_text(p):
    return ",".join(f"{k}={v}" for k, v in p.items())


def prepare(src, mirror):
    if not (src / "pddl_generators/main.py").exists():
        src.mkdir(parents=True, exist_ok=True)
        archive = subprocess.run(["git", "-C", str(mirror), "archive", COMMIT], check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(src)], input=archive, check=True)
    pg = src / "pddl_generators"
    for d in ["__blocksworld/bwstates.1", "__blocksworld/4ops/2pddl", "ferry", "visitall"]:
        subprocess.run(["make", "-s", "-C", str(pg / d)], check=True, stdout=subprocess.DEVNULL)


def run_one(src, case, workdir):
    domain, params, seed = case
    name, args = WRAPPER[domain]
    out = subprocess.run(
        [sys.executable, "-m", "pddl_generators", "-d", workdir, "-s", str(seed), name, "--", *args(params)],
        cwd=src,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    path = out.split("\n")[0]
    text = pathlib.Path(path).read_text(encoding="utf-8")
    os.remove(path)
    if not text.startswith(";;") and ";; pddl-generators:" not in text:
        raise RuntimeError(f"{case}: no wrapper trailer in {path}")
    return strip_comments(text)


def versions():
    cc = subprocess.run(["gcc", "-dumpfullversion"], capture_output=True, text=True).stdout.strip()
    libc = os.confstr("CS_GNU_LIBC_VERSION") or "?"
    return {"cc": cc, "py": "Python " + sys.version.split()[0], "libc": libc.split()[-1], "arch": os.uname().machine}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--src", type=pathlib.Path, default=pathlib.Path("/work/refs/pddl-generators-ddffd0e"))
    ap.add_argument("--mirror", type=pathlib.Path, default=pathlib.Path("/work/.mirror/guicho271828+pddl-generators/repo"))
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args()
    if REPO in a.src.resolve().parents:
        sys.exit("--src must be outside the repository: nothing of pddl-generators is committed")
    prepare(a.src, a.mirror)
    all_cases = cases()
    with tempfile.TemporaryDirectory() as tmp, concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        # One directory per case: the wrapper names its file after the parameters' md5.
        jobs = [(c, os.path.join(tmp, str(i))) for i, c in enumerate(all_cases + FULL)]
        texts = list(pool.map(lambda job: run_one(a.src, *job), jobs))
    lines = [HEADER.format(**versions())]
    for (domain, params, seed), text in zip(all_cases, texts):
        lines.append(f"{domain}\t{params_text(params)}\t{seed}\t{sha(text)}\t{sha(tokens(text))}\n")
    FIXTURE.parent.mkdir(parents=True, exist_ok=True)
    FIXTURE.write_text("".join(lines), encoding="utf-8")
    FULL_DIR.mkdir(parents=True, exist_ok=True)
    for (domain, params, seed), text in zip(FULL, texts[len(all_cases):]):
        name = f"{domain}-{params_text(params).replace(',', '-').replace('=', '')}-s{seed}.pddl"
        (FULL_DIR / name).write_text(text, encoding="utf-8")
    counts = {}
    for d, _, _ in all_cases:
        counts[d] = counts.get(d, 0) + 1
    print(f"{FIXTURE.relative_to(REPO)}: {len(all_cases)} cases {counts}; {len(FULL)} full problems in {FULL_DIR.relative_to(REPO)}")


if __name__ == "__main__":
    main()
