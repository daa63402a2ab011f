"""Shared by pyperplan_values.py and pddlsl_gbfs_counts.py: the authors'
custom pyperplan modules (IBM/pddlsl `pddlsl/custom_pyperplan/`), fetched
from the mirror at run time and never committed, and our grounded tasks as
pyperplan Task objects.

Pinned mode. Python iterates the state, operators' preconditions and
effects, the goals and LM-cut's cut as hash sets, so pyperplan's tie-breaking
(and with it some hFF and LM-cut values) depends on PYTHONHASHSEED and on
object addresses. To compare with hfarm value for value, pinned mode fixes
every such order to hfarm's:
  * tasks are built from hfarm's export (operators in hfarm's order), with
    preconditions, add and delete effects and goals as frozensets that
    iterate in hfarm's order (PinnedFrozenset);
  * three textual edits to their modules, each checked to match exactly:
    relaxation.py `state = set(state)` (x2) and lm_cut.py
    `start_state = {x for x in state}` (x2) iterate the state's facts in
    hfarm's fact order; lm_cut.py `cut = set()` (x1) iterates the cut in
    insertion order.
Nothing else is changed: the algorithms, heaps and counters are theirs.

Native mode loads the same files unedited and grounds with pyperplan itself
(plan.py's flags: statics kept in the state, no relevance pruning); run under
a fixed PYTHONHASHSEED, it is one of the behaviours the authors' runs had.
"""

import importlib.util
import json
import os
import subprocess
import sys
import types

MIRROR = os.environ.get("PDDLSL_MIRROR", "/work/.mirror/IBM+pddlsl/repo")
COMMIT = "b4c807ad2ed7f52443c590dc31bd0ed347a21e0c"  # IBM/pddlsl's only commit
CACHE = os.environ.get("PDDLSL_CACHE", "/work/refs/pddlsl-custom-pyperplan")
HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))

PINS = {
    "relaxation": [("state = set(state)", "state = _pinned_set(state)", 2)],
    "lm_cut": [
        ("start_state = {x for x in state}", "start_state = _pinned_set(state)", 2),
        ("cut = set()", "cut = _PinnedSet()", 1),
    ],
    "a_star": [],
}


def require_hash_seed():
    """Re-executes this script under PYTHONHASHSEED=0 unless a seed is set,
    so that native runs repeat."""
    if os.environ.get("PYTHONHASHSEED") is None:
        env = dict(os.environ, PYTHONHASHSEED="0")
        os.execve(sys.executable, [sys.executable] + sys.argv, env)


def fetch_source(name):
    """Their `pddlsl/custom_pyperplan/<name>.py` at COMMIT, cached in CACHE."""
    os.makedirs(CACHE, exist_ok=True)
    path = os.path.join(CACHE, f"{name}.py")
    if not os.path.exists(path):
        text = subprocess.run(
            ["git", "-C", MIRROR, "show", f"{COMMIT}:pddlsl/custom_pyperplan/{name}.py"],
            check=True, capture_output=True, text=True,
        ).stdout
        with open(path, "w") as f:
            f.write(text)
    with open(path) as f:
        return f.read(), path


class PinnedSet:
    """A set that iterates in insertion order (stands in for a hash set)."""

    def __init__(self, items=()):
        self._d = dict.fromkeys(items)

    def add(self, x):
        self._d[x] = None

    def __contains__(self, x):
        return x in self._d

    def __iter__(self):
        return iter(self._d)

    def __len__(self):
        return len(self._d)


class PinnedFrozenset(frozenset):
    """A frozenset that iterates in the order it was given (set operations,
    done in C on the hash table, are those of a frozenset)."""

    def __new__(cls, items):
        items = list(dict.fromkeys(items))
        obj = super().__new__(cls, items)
        obj._order = tuple(items)
        return obj

    def __iter__(self):
        return iter(self._order)


class Rank:
    """hfarm's fact order for the task at hand (set before each task)."""
    rank = {}


def _pinned_set(state):
    big = len(Rank.rank)
    return PinnedSet(sorted(state, key=lambda a: Rank.rank.get(a, big)))


def load_module(name, pinned):
    """Their module `name`, with the pins of `PINS` applied when pinned."""
    text, path = fetch_source(name)
    if pinned:
        for old, new, count in PINS[name]:
            found = text.count(old)
            if found != count:
                raise SystemExit(f"{path}: expected {count} of {old!r}, found {found}")
            text = text.replace(old, new)
    mod = types.ModuleType(f"pddlsl_{name}_{'pinned' if pinned else 'native'}")
    mod.__file__ = path
    mod._pinned_set = _pinned_set
    mod._PinnedSet = PinnedSet
    exec(compile(text, path, "exec"), mod.__dict__)
    return mod


def export_tasks(out_dir):
    """Runs the planner's ignored test that writes our grounded tasks."""
    env = dict(os.environ, HFARM_EXPORT_DIR=os.path.abspath(out_dir))
    subprocess.run(
        ["cargo", "test", "-q", "-p", "planner", "--test", "pyperplan_reference", "--",
         "--ignored", "--exact", "export_tasks_for_reference"],
        cwd=REPO, env=env, check=True,
    )
    with open(os.path.join(out_dir, "index.json")) as f:
        return json.load(f)


def pinned_task(exported):
    """A pyperplan Task from hfarm's export, every set iterating in hfarm's order."""
    from pyperplan.task import Operator, Task

    if exported.get("negative"):
        raise SystemExit("negative preconditions or goals: pyperplan has none")
    ops = []
    for o in exported["operators"]:
        op = Operator(o["name"], o["pre"], o["add"], o["del"])
        op.preconditions = PinnedFrozenset(o["pre"])
        op.add_effects = PinnedFrozenset(o["add"])
        op.del_effects = PinnedFrozenset(o["del"])
        ops.append(op)
    task = Task("task", set(exported["facts"]), frozenset(exported["init"]), PinnedFrozenset(exported["goal"]), ops)
    rank = {f: i for i, f in enumerate(exported["facts"])}
    return task, rank


def native_task(domain, problem):
    """pyperplan's own grounding, with the flags of the authors' plan.py:296-299."""
    from pyperplan.planner import _ground, _parse

    return _ground(_parse(domain, problem), remove_statics_from_initial_state=False,
                   remove_irrelevant_operators=False)


def quiet_logging():
    import logging
    logging.disable(logging.CRITICAL)
