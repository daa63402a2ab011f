#!/usr/bin/env python3
"""PyTorch Neural Logic Machine training-step benchmark (the paper's stack).

Reference for hfarm's learner speed ratio. The network follows the spec in
README.md ("nlm_bench.py"): dense predicate tensors per arity r = 0..3 with
shapes [B, F0], [B, O, F1], [B, O, O, F2], [B, O, O, O, F3]; each layer builds,
for each output arity r, concat(expand(r-1), x_r, min_{-2}(x_{r+1}),
max_{-2}(x_{r+1})), then (r >= 2) concat over all permutations of the r object
axes, then Linear + sigmoid (no activation on the last layer).

Prints one JSON line: {"device","objects","batch","steps_per_s","ms_per_step", ...}
"""
import argparse
import itertools
import json
import math
import time

import torch
import torch.nn as nn

MAX_ARITY = 3


def expand(x, objects):
    """arity r-1 -> r: [B, O^(r-1), F] -> [B, O^(r-1), O, F]."""
    x = x.unsqueeze(-2)
    shape = list(x.shape)
    shape[-2] = objects
    return x.expand(*shape)


def permute_all(x, r):
    """Concat along features of x with its r object axes (dims 1..r) permuted, itertools order."""
    if r < 2:
        return x
    outs = []
    for perm in itertools.permutations(range(r)):
        outs.append(x.permute(0, *[p + 1 for p in perm], r + 1))
    return torch.cat(outs, dim=-1)


def in_features(feats, r):
    """Width of the concatenated input for output arity r, given features per arity (None = absent)."""
    n = 0
    if r >= 1 and feats[r - 1]:
        n += feats[r - 1]
    if feats[r]:
        n += feats[r]
    if r + 1 <= MAX_ARITY and feats[r + 1]:
        n += 2 * feats[r + 1]
    return n * math.factorial(r) if r >= 2 else n


class NLMLayer(nn.Module):
    def __init__(self, in_feats, out_feats, activation):
        super().__init__()
        self.out_feats = out_feats
        self.activation = activation
        self.lins = nn.ModuleList()
        for r in range(MAX_ARITY + 1):
            if out_feats[r]:
                n = in_features(in_feats, r)
                assert n > 0, f"arity {r} has no input"
                self.lins.append(nn.Linear(n, out_feats[r]))
            else:
                self.lins.append(None)

    def forward(self, xs, objects):
        out = []
        for r in range(MAX_ARITY + 1):
            lin = self.lins[r]
            if lin is None:
                out.append(None)
                continue
            parts = []
            if r >= 1 and xs[r - 1] is not None:
                parts.append(expand(xs[r - 1], objects))
            if xs[r] is not None:
                parts.append(xs[r])
            if r + 1 <= MAX_ARITY and xs[r + 1] is not None:
                parts.append(xs[r + 1].amin(dim=-2))
                parts.append(xs[r + 1].amax(dim=-2))
            h = permute_all(torch.cat(parts, dim=-1), r)
            h = lin(h)
            out.append(torch.sigmoid(h) if self.activation else h)
        return out


class NLM(nn.Module):
    def __init__(self, in_feats=(4, 8, 8, 0), depth=5, breadth=3, hidden=8, n_out=2):
        super().__init__()
        assert breadth == MAX_ARITY
        self.layers = nn.ModuleList()
        feats = list(in_feats)
        for d in range(depth):
            if d < depth - 1:
                out = [hidden if b < depth - d else 0 for b in range(breadth + 1)]
                act = True
            else:
                out = [n_out, 0, 0, 0]
                act = False
            self.layers.append(NLMLayer(feats, out, act))
            feats = out

    def forward(self, xs, objects):
        for layer in self.layers:
            xs = layer(xs, objects)
        return xs[0]


def gaussian_nll(out, target):
    mu = out[:, 0]
    sigma = torch.sigmoid(out[:, 1]) * 10 + 0.1
    z = (target - mu) / sigma
    return (0.5 * math.log(2 * math.pi) + torch.log(sigma) + 0.5 * z * z).mean()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--objects", type=int, default=12)
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--steps", type=int, default=50)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    if args.threads:
        torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    dev = torch.device(args.device)
    B, O = args.batch, args.objects
    in_feats = (4, 8, 8, 0)

    xs = []
    for r, f in enumerate(in_feats):
        if f == 0:
            xs.append(None)  # absent input predicate tensor
        else:
            xs.append(torch.randint(0, 2, (B,) + (O,) * r + (f,), device=dev).float())
    target = (torch.randn(B, device=dev) * 5).float()

    model = NLM(in_feats).to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2, weight_decay=1e-2)

    def step():
        opt.zero_grad(set_to_none=True)
        loss = gaussian_nll(model(xs, O), target)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 0.1)
        opt.step()
        return loss

    sync = (lambda: torch.cuda.synchronize()) if dev.type == "cuda" else (lambda: None)
    for _ in range(args.warmup):
        step()
    sync()
    t0 = time.perf_counter()
    for _ in range(args.steps):
        loss = step()
    sync()
    dt = time.perf_counter() - t0

    print(json.dumps({
        "device": args.device,
        "device_name": "cpu" if dev.type == "cpu" else torch.cuda.get_device_name(dev),
        "objects": O,
        "batch": B,
        "steps_per_s": args.steps / dt,
        "ms_per_step": 1000.0 * dt / args.steps,
        "steps": args.steps,
        "threads": torch.get_num_threads(),
        "params": sum(p.numel() for p in model.parameters()),
        "final_loss": float(loss.detach()),
        "torch": torch.__version__,
    }))


if __name__ == "__main__":
    main()
