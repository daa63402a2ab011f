#!/usr/bin/env python3
"""Oracle for hfarm's learner networks and optimiser against the authors' own code.

Builds the authors' modules from the reference mirrors (never copied into the
repository: their files are extracted at run time into --src):
  * IBM/pddlsl b4c807a: pddlsl/model_wrapper.py (NLMCarlosV2Wrapper, RRWrapper,
    HGNWrapper), pddlsl/nlm_carlos_v2.py, pddlsl/constants.py;
  * guicho271828/STRIPS-HGN 8e53645 (pddlsl's libs/strips_hgn submodule):
    src/hypergraph_nets/*.py and the feature mappers that size the HGN's inputs
    (src/strips_hgn/features/*.py).
Only `lifted_pddl` (a PDDL parser model_wrapper.py imports but the networks do
not use) and `strips_hgn.planning` (pyperplan glue the feature mappers import
for type hints) are stubbed.

Then it runs our side (`cargo run -p learner --example pddlsl_networks`), which
writes, per model, a random batch in the authors' layout, our initial weights,
our outputs, and our outputs and weights after a few AdamW steps. For each model
it loads our weights into the authors' module, checks the parameter counts are
equal, runs their forward pass on the same batch and compares raw outputs, mu
and sigma, then takes the same optimiser steps the code takes
(torch.optim.AdamW, heuristic_learner.py:77-79; Lightning's gradient_clip_val
= clip_grad_norm_, train.py:200) on the loss mean(out^2) and compares weights
and outputs. It asserts every max abs difference <= 1e-5 and writes the
fixture the learner's test replays (crates/learner/tests/fixtures/
pddlsl_networks.json): versions, parameter counts, the batch, the authors'
outputs and the differences.

Usage (venv with torch 2.11.0 on CPU, see README.md):
  /work/refs/venv/bin/python tools/reference/pddlsl_networks.py
"""
import argparse
import json
import os
import platform
import subprocess
import sys
import types

PDDLSL = "/work/.mirror/IBM+pddlsl/repo"
PDDLSL_COMMIT = "b4c807ad2ed7f52443c590dc31bd0ed347a21e0c"
HGN = "/work/.mirror/guicho271828+STRIPS-HGN/repo"
HGN_COMMIT = "8e53645a68808c9d6f523fb4c2a22a9c836c5c9f"
TOLERANCE = 1e-5
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def extract(repo, commit, path, dest):
    text = subprocess.run(["git", "-C", repo, "show", f"{commit}:{path}"], check=True,
                          capture_output=True, text=True).stdout
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    with open(dest, "w") as f:
        f.write(text)


def fetch_sources(src):
    for name in ["__init__.py", "constants.py", "nlm_carlos_v2.py", "model_wrapper.py"]:
        extract(PDDLSL, PDDLSL_COMMIT, f"pddlsl/{name}", os.path.join(src, "pddlsl", name))
    for name in ["__init__.py", "aggregators.py", "blocks.py", "broadcast.py", "hypergraphs.py", "models.py",
                 "modules.py", "reducers.py", "utils.py"]:
        extract(HGN, HGN_COMMIT, f"src/hypergraph_nets/{name}", os.path.join(src, "hypergraph_nets", name))
    for path in ["strips_hgn/__init__.py", "strips_hgn/utils/__init__.py", "strips_hgn/hypergraph/__init__.py",
                 "strips_hgn/hypergraph/hypergraph_view.py", "strips_hgn/features/__init__.py",
                 "strips_hgn/features/global_features.py", "strips_hgn/features/hyperedge_features.py",
                 "strips_hgn/features/node_features.py"]:
        extract(HGN, HGN_COMMIT, f"src/{path}", os.path.join(src, path))


def stub_modules():
    # model_wrapper.py:14 imports the parser; the wrappers never call it.
    sys.modules["lifted_pddl"] = types.ModuleType("lifted_pddl")
    # The feature mappers import pyperplan glue for type hints only.
    planning = types.ModuleType("strips_hgn.planning")
    planning.Proposition = str
    planning.STRIPSProblem = type("STRIPSProblem", (), {})
    sys.modules["strips_hgn.planning"] = planning


def args_for(name, outputs):
    """The namespace train.py builds for each model with train_all.sh's options."""
    from pddlsl.model_wrapper import NLMCarlosV2Wrapper, RRWrapper, HGNWrapper
    sigma = {2: "learn", 1: "fixed"}[outputs]
    cls = {"nlm": NLMCarlosV2Wrapper, "linear": RRWrapper, "hgn": HGNWrapper}[name]
    parser = argparse.ArgumentParser()
    parser.add_argument("--l-as-input", action="store_true")
    parser.add_argument("--sigma", default=sigma)
    cls.add_parser_arguments(parser)
    argv = {
        "nlm": ["--hidden-features", "16", "--exclude-self", "False"],  # train_all.sh:21-22, Table 1
        "hgn": ["--num-recursion-steps", "4"],  # train_all.sh:88
        "linear": [],
    }[name]
    args = parser.parse_args(argv)
    if hasattr(cls, "derive_arguments"):
        cls.derive_arguments(args)
    return cls, args


def tensor(v, dtype=None):
    import torch
    t = torch.tensor(v["data"], dtype=dtype or torch.float32)
    return t.reshape(v["shape"])


def their_input(name, batch):
    import torch
    if name == "linear":
        return tensor(batch["features"])
    if name == "nlm":
        return ([tensor(x) if x is not None else None for x in batch["inputs"]], list(batch["objects"]))
    from hypergraph_nets.hypergraphs import HypergraphsTuple
    return HypergraphsTuple(
        nodes=tensor(batch["nodes"]), edges=tensor(batch["edges"]),
        receivers=tensor(batch["receivers"], torch.long), senders=tensor(batch["senders"], torch.long),
        globals=tensor(batch["globals"]), n_node=torch.tensor(batch["n_node"]),
        n_edge=torch.tensor(batch["n_edge"]), zero_padding=True)


def raw_forward(name, wrapper, x):
    """The wrapped network's outputs before the mu/sigma head, [B, outputs]."""
    import torch
    if name == "linear":
        return wrapper.model(x)
    if name == "nlm":
        batch_tensors, num_objs = x
        return wrapper.model(list(batch_tensors), num_objs)[0]
    return torch.stack(wrapper.model(x, steps=wrapper.args["num_recursion_steps"], pred_mode=True), 0)[-1]


def their_name(name, ours):
    """Our variable name -> the authors' state_dict key."""
    if name == "linear":
        return "model." + ours.split(".", 1)[1]
    if name == "nlm":
        layer, arity, what = ours.split(".")
        return f"model.layers.{layer[len('layer'):]}._mlps.{arity[len('arity'):]}.layers.0.{what}"
    module, *rest = ours.split(".")
    index = {"0": "0", "1": "2"}  # Linear, LeakyReLU, Linear, LeakyReLU
    prefix = {
        "encoder_node": "model._encoder._gn._node_model", "encoder_edge": "model._encoder._gn._edge_model",
        "encoder_global": "model._encoder._gn._global_model",
        "core_edge": "model._core._gn._edge_block._edge_model",
        "core_node": "model._core._gn._node_block._node_model",
        "core_global": "model._core._gn._global_block._global_model",
        "decoder_global": "model._decoder._gn._global_model",
    }
    if module == "output":
        return f"model._output_transform._global_model.0.{rest[0]}"
    return f"{prefix[module]}.{index[rest[0]]}.{rest[1]}"


def max_diff(a, b):
    import torch
    a = torch.as_tensor(a, dtype=torch.float64).flatten()
    b = torch.as_tensor(b, dtype=torch.float64).flatten()
    assert a.shape == b.shape, (a.shape, b.shape)
    return float((a - b).abs().max())


def check(name, case):
    import torch
    cls, args = args_for(name, case["outputs"])
    torch.manual_seed(0)
    wrapper = cls(args)
    x = their_input(name, case["batch"])
    with torch.no_grad():
        raw_forward(name, wrapper, x)  # materialises the LazyLinear layers
    params = dict(wrapper.named_parameters())
    mapped = {their_name(name, k): v for k, v in case["weights"].items()}
    assert set(mapped) == set(params), (sorted(set(mapped) ^ set(params)))
    with torch.no_grad():
        for k, v in mapped.items():
            assert list(params[k].shape) == v["shape"], (k, params[k].shape, v["shape"])
            params[k].copy_(tensor(v))
    theirs = sum(p.numel() for p in wrapper.parameters())

    with torch.no_grad():
        raw = raw_forward(name, wrapper, x)
        mu, sigma = wrapper(x, None)
    # Lightning: AdamW over every parameter, clip_grad_norm_ before each step.
    opt = torch.optim.AdamW(wrapper.parameters(), lr=case["learning_rate"], weight_decay=case["weight_decay"])
    for _ in range(case["steps"]):
        opt.zero_grad()
        raw_forward(name, wrapper, x).square().mean().backward()
        torch.nn.utils.clip_grad_norm_(wrapper.parameters(), case["clip"])
        opt.step()
    with torch.no_grad():
        after = raw_forward(name, wrapper, x)
    weights_after = max(max_diff(params[their_name(name, k)].detach(), tensor(v))
                        for k, v in case["weights_after_steps"].items())
    diffs = {
        "raw": max_diff(raw, case["raw"]),
        "mu": max_diff(mu, case["mu"]),
        "sigma": max_diff(sigma, case["sigma"]),
        "raw_after_steps": max_diff(after, case["raw_after_steps"]),
        "weights_after_steps": weights_after,
    }
    print(f"{name}: parameters authors {theirs} ours {case['parameters']}; max abs diff {diffs}")
    assert theirs == case["parameters"], (name, theirs, case["parameters"])
    for k, d in diffs.items():
        assert d <= TOLERANCE, (name, k, d)
    flat = lambda t: [float(v) for v in t.detach().flatten()]
    return {
        "config": case["config"],
        "outputs": case["outputs"],
        "seed": case["seed"],
        "learning_rate": case["learning_rate"],
        "weight_decay": case["weight_decay"],
        "clip": case["clip"],
        "steps": case["steps"],
        "parameters": {"authors": theirs, "ours": case["parameters"]},
        "checksums": case["checksums"],
        "batch": case["batch"],
        "authors": {"raw": flat(raw), "mu": flat(mu), "sigma": flat(sigma), "raw_after_steps": flat(after)},
        "max_abs_diff": diffs,
    }


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--src", default="/work/refs/pddlsl_networks/src", help="where the authors' files are extracted")
    p.add_argument("--ours", default="/work/refs/pddlsl_networks/ours.json", help="our side's JSON (written here)")
    p.add_argument("--no-cargo", action="store_true", help="use an existing --ours file")
    p.add_argument("--out", default=os.path.join(ROOT, "crates/learner/tests/fixtures/pddlsl_networks.json"))
    a = p.parse_args()

    if not a.no_cargo:
        os.makedirs(os.path.dirname(a.ours), exist_ok=True)
        subprocess.run(["cargo", "run", "-q", "-p", "learner", "--example", "pddlsl_networks", "--", a.ours],
                       check=True, cwd=ROOT)
    fetch_sources(a.src)
    sys.path.insert(0, a.src)
    stub_modules()
    import numpy
    import torch
    torch.set_num_threads(1)

    with open(a.ours) as f:
        ours = json.load(f)["models"]
    models = {name: check(name, ours[name]) for name in ["linear", "nlm", "hgn"]}
    fixture = {
        "generated_by": "tools/reference/pddlsl_networks.py",
        "tolerance": TOLERANCE,
        "versions": {
            "pddlsl": PDDLSL_COMMIT, "strips_hgn": HGN_COMMIT, "torch": torch.__version__,
            "numpy": numpy.__version__, "python": platform.python_version(),
        },
        "models": models,
    }
    with open(a.out, "w") as f:
        json.dump(fixture, f, indent=1)
        f.write("\n")
    print(f"wrote {a.out}")


if __name__ == "__main__":
    main()
