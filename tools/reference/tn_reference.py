#!/usr/bin/env python3
"""High-precision reference values for the truncated Gaussian TN(mu, sigma, l, u).

Writes crates/learner/tests/fixtures/truncated_gaussian.json (see README.md in this
folder). Every stored number is the float64 rounding of an mpmath value
computed at mp.dps = 60; a second pass at a higher precision (--check-dps)
checks that each stored float64 is unchanged.

Optional cross-checks (neither is a source of stored reference values):
  * scipy.stats.truncnorm (asserted to agree; max relative error printed);
  * the paper authors' PyPI package `stable-trunc-gaussian` (needs torch): its
    TruncatedGaussian(mu, sigma, a, b).mean and .log_prob(x) in float64
    tensors are stored as `stg_mean` / `stg_log_prob` for comparison.

Usage: python tn_reference.py [--out PATH] [--no-stg] [--no-scipy]
"""
import argparse
import json
import math
import os
import sys

import mpmath as mp

DPS = 60
BIG = 1e5  # "missing bound" in the paper's implementation; used as a real number here

MUS = [-100.0, -30.0, -10.0, -3.0, -1.0, 0.0, 0.5, 2.0, 5.0, 7.3, 10.0, 30.0, 100.0]
SIGMAS = [0.1, 0.5, 1.0 / math.sqrt(2.0), 1.0, 3.0, 10.0]
BOUNDS = [(4.9, BIG), (-BIG, BIG), (0.0 - 0.1, BIG), (4.9, 12.1), (-0.1, 3.1), (9.9, 10.1)]


def log_z(mu, sigma, l, u):
    """log(Phi(beta) - Phi(alpha)), evaluated on the side of the mode that avoids cancellation."""
    a = (l - mu) / sigma
    b = (u - mu) / sigma
    if a >= 0:
        return mp.log(mp.ncdf(-a) - mp.ncdf(-b))
    if b <= 0:
        return mp.log(mp.ncdf(b) - mp.ncdf(a))
    # a < 0 < b: Z = 1 - (lower tail + upper tail); log1p keeps relative accuracy when Z ~ 1
    return mp.log1p(-(mp.ncdf(a) + mp.ncdf(-b)))


def mean(mu, sigma, l, u):
    a = (l - mu) / sigma
    b = (u - mu) / sigma
    z = mp.exp(log_z(mu, sigma, l, u))
    return mu + sigma * (mp.npdf(a) - mp.npdf(b)) / z


def mean_derivatives(mu, sigma, l, u):
    """Analytic (d mean / d mu, d mean / d sigma).

    mean = mu + sigma * R,  R = (phi(a) - phi(b)) / Z,
    dR/da = phi(a)/Z * (R - a),  dR/db = phi(b)/Z * (b - R),
    da/dmu = db/dmu = -1/sigma,  da/dsigma = -a/sigma,  db/dsigma = -b/sigma.
    """
    a = (l - mu) / sigma
    b = (u - mu) / sigma
    z = mp.exp(log_z(mu, sigma, l, u))
    r = (mp.npdf(a) - mp.npdf(b)) / z
    ra = mp.npdf(a) / z * (r - a)
    rb = mp.npdf(b) / z * (b - r)
    return 1 - (ra + rb), r - a * ra - b * rb


def log_prob_derivatives(x, mu, sigma, l, u):
    """Analytic (d log_prob / d mu, d log_prob / d sigma) at x."""
    a = (l - mu) / sigma
    b = (u - mu) / sigma
    z = mp.exp(log_z(mu, sigma, l, u))
    xi = (x - mu) / sigma
    d_mu = (x - mean(mu, sigma, l, u)) / sigma**2
    d_sigma = (xi * xi - 1) / sigma - (a * mp.npdf(a) - b * mp.npdf(b)) / (sigma * z)
    return d_mu, d_sigma


def log_prob(x, mu, sigma, l, u):
    xi = (x - mu) / sigma
    return -mp.log(sigma) - mp.log(mp.sqrt(2 * mp.pi)) - xi * xi / 2 - log_z(mu, sigma, l, u)


def exact_case(mu, sigma, l, u, x, dps):
    """All reference quantities as mpf at `dps` digits (inputs are the exact float64 values)."""
    with mp.workdps(dps):
        M, S, L, U = mp.mpf(mu), mp.mpf(sigma), mp.mpf(l), mp.mpf(u)
        dm_mu, dm_sig = mean_derivatives(M, S, L, U)
        out = {
            "mean": mean(M, S, L, U),
            "log_z": log_z(M, S, L, U),
            "dmean_dmu": dm_mu,
            "dmean_dsigma": dm_sig,
        }
        checks = [
            ("dmean_dmu", lambda m: mean(m, S, L, U), M, 1),
            ("dmean_dsigma", lambda s: mean(M, s, L, U), S, 1),
        ]
        if x is not None:
            X = mp.mpf(x)
            out["log_prob"] = log_prob(X, M, S, L, U)
            out["dlogp_dmu"], out["dlogp_dsigma"] = log_prob_derivatives(X, M, S, L, U)
            checks += [
                ("dlogp_dmu", lambda m: log_prob(X, m, S, L, U), M, 1 / S),
                ("dlogp_dsigma", lambda s: log_prob(X, M, s, L, U), S, 1 / S),
            ]
        # the analytic derivatives must match mpmath.diff (numerical, at dps digits)
        for k, f, at, scale in checks:
            num = mp.diff(f, at)
            err = abs(out[k] - num) / max(abs(out[k]), scale)
            assert err < mp.mpf(10) ** (-(dps // 3)), (k, mu, sigma, l, u, x, out[k], num)
        if x is None:
            out["log_prob"] = None
            out["dlogp_dmu"] = None
            out["dlogp_dsigma"] = None
        return out


def to_f64(v):
    if v is None:
        return None
    f = float(v)  # mpmath rounds to nearest float64
    return f


def choose_x(mu, l, u, idx):
    """One x strictly inside (l, u), rotating through the candidate kinds for variety."""
    cands = []
    if l > -1e4 and l < l + 0.1 < u:
        cands.append(l + 0.1)
    if abs(l) < 1e4 and abs(u) < 1e4:
        m = (l + u) / 2
        if l < m < u:
            cands.append(m)
    if l < mu < u:
        cands.append(mu)
    if not cands:
        # mu clipped into (l, u): a point just inside the nearer bound
        cands.append(l + 0.5 if mu <= l else u - 0.5)
        if not (l < cands[0] < u):
            cands = [(l + u) / 2]
    x = cands[idx % len(cands)]
    assert l < x < u
    return x


def param_grid():
    cases = []
    for mu in MUS:
        for sigma in SIGMAS:
            for (l, u) in BOUNDS:
                cases.append((mu, sigma, l, u))
    # near-degenerate intervals
    for width in (1e-6, 1e-9):
        for l in (4.9, 5.0, -0.1):
            for mu in (-100.0, 0.0, 5.0, 10.0):
                for sigma in (0.1, 1.0, 10.0):
                    cases.append((mu, sigma, l, l + width))
    cases.append((-100.0, 0.5, 5.0, BIG))
    return cases


def scipy_check(cases):
    import numpy as np
    from scipy.stats import truncnorm

    # scipy is known to lose accuracy on near-degenerate intervals (u - l << sigma);
    # those are reported separately and only checked loosely.
    groups = {"regular": {}, "narrow": {}}
    n_cmp = 0
    n_nonfinite = 0
    for c in cases:
        mu, sigma, l, u, x = c["mu"], c["sigma"], c["l"], c["u"], c["x"]
        a, b = (l - mu) / sigma, (u - mu) / sigma
        d = truncnorm(a, b, loc=mu, scale=sigma)
        g = groups["narrow" if (u - l) < 1e-3 else "regular"]
        with np.errstate(all="ignore"):
            vals = {"mean": float(d.mean())}
            if x is not None:
                vals["log_prob"] = float(d.logpdf(x))
                # log Z via log_prob = -log(sigma) - log(sqrt(2 pi)) - xi^2/2 - log Z
                xi = (x - mu) / sigma
                vals["log_z"] = -math.log(sigma) - 0.5 * math.log(2 * math.pi) - xi * xi / 2 - vals["log_prob"]
        for k, v in vals.items():
            ref = c[k]
            if not math.isfinite(v):
                n_nonfinite += 1
                continue
            n_cmp += 1
            # relative error with a scale-aware floor so that values near 0 do not blow up
            floor = sigma if k == "mean" else 1.0
            err = abs(v - ref) / max(abs(ref), floor)
            if err > g.get(k, (0.0, None))[0]:
                g[k] = (err, (mu, sigma, l, u, x, v, ref))
    print(f"scipy.stats.truncnorm cross-check: {n_cmp} values compared, {n_nonfinite} non-finite in scipy (skipped)")
    tots = {}
    for name, g in groups.items():
        for k, (e, where) in sorted(g.items()):
            print(f"  [{name:7s}] max rel err {k:9s} = {e:.3e}  at (mu, sigma, l, u, x, scipy, mpmath) = {where}")
        tots[name] = max([e for e, _ in g.values()] or [0.0])
    print(f"  max rel err: regular intervals {tots['regular']:.3e}, narrow intervals (u-l < 1e-3) {tots['narrow']:.3e}")
    assert tots["regular"] < 1e-7, "scipy disagrees with the mpmath reference"
    assert tots["narrow"] < 1e-2, "scipy disagrees with the mpmath reference (narrow intervals)"
    return tots


def stg_values(cases):
    import torch
    import stable_trunc_gaussian as stg
    from stable_trunc_gaussian import TruncatedGaussian

    t = lambda v: torch.tensor(v, dtype=torch.float64)
    n_bad = 0
    for c in cases:
        d = TruncatedGaussian(t(c["mu"]), t(c["sigma"]), t(c["l"]), t(c["u"]))
        m = float(d.mean)
        c["stg_mean"] = m if math.isfinite(m) else None
        if c["x"] is not None:
            lp = float(d.log_prob(t(c["x"])))
            c["stg_log_prob"] = lp if math.isfinite(lp) else None
        else:
            c["stg_log_prob"] = None
        n_bad += (c["stg_mean"] is None) + (c["x"] is not None and c["stg_log_prob"] is None)
    return stg.__version__, torch.__version__, n_bad


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(os.path.dirname(here))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=os.path.join(root, "crates/learner/tests/fixtures/truncated_gaussian.json"))
    ap.add_argument("--check-dps", type=int, default=90, help="second precision for the stability check (0: skip)")
    ap.add_argument("--no-stg", action="store_true", help="skip the stable-trunc-gaussian fields")
    ap.add_argument("--no-scipy", action="store_true", help="skip the scipy cross-check")
    args = ap.parse_args()

    keys = ["mean", "log_z", "log_prob", "dmean_dmu", "dmean_dsigma", "dlogp_dmu", "dlogp_dsigma"]
    cases, skipped, unstable = [], [], 0
    for i, (mu, sigma, l, u) in enumerate(param_grid()):
        x = choose_x(mu, l, u, i)
        ex = exact_case(mu, sigma, l, u, x, DPS)
        vals = {k: to_f64(ex[k]) for k in keys}
        if any(v is not None and not math.isfinite(v) for v in vals.values()):
            skipped.append((mu, sigma, l, u, x))
            continue
        if args.check_dps:
            ex2 = exact_case(mu, sigma, l, u, x, args.check_dps)
            for k in keys:
                if to_f64(ex2[k]) != vals[k]:
                    unstable += 1
                    print(f"warning: {k} differs between dps={DPS} and dps={args.check_dps} at "
                          f"{(mu, sigma, l, u, x)}: {vals[k]!r} vs {to_f64(ex2[k])!r}", file=sys.stderr)
        case = {"mu": mu, "sigma": sigma, "l": l, "u": u, "x": x}
        case.update(vals)
        cases.append(case)

    print(f"{len(cases)} cases; {len(skipped)} skipped (not finite in float64): {skipped}")
    if args.check_dps:
        print(f"precision check dps={DPS} vs dps={args.check_dps}: {unstable} float64 values differ")
    if not args.no_scipy:
        scipy_check(cases)

    doc = {"generator": "tools/reference/tn_reference.py", "precision": f"mpmath dps={DPS}"}
    if not args.no_stg:
        try:
            stg_ver, torch_ver, n_bad = stg_values(cases)
            doc["stg"] = f"stable-trunc-gaussian {stg_ver} (torch {torch_ver}), float64 tensors"
            print(f"stable-trunc-gaussian {stg_ver}: stg_mean/stg_log_prob added; {n_bad} non-finite (null)")
            errs = [abs(c["stg_mean"] - c["mean"]) / max(abs(c["mean"]), c["sigma"])
                    for c in cases if c["stg_mean"] is not None]
            errs_lp = [abs(c["stg_log_prob"] - c["log_prob"]) / max(abs(c["log_prob"]), 1.0)
                       for c in cases if c.get("stg_log_prob") is not None]
            print(f"  stg vs mpmath: max rel err mean = {max(errs):.3e}, log_prob = {max(errs_lp):.3e}")
        except ImportError as e:
            print(f"stable-trunc-gaussian not importable ({e}); stg fields left out", file=sys.stderr)
    doc["cases"] = cases

    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        # json.dump writes floats with repr(), i.e. the shortest round-tripping form
        f.write("{\n")
        for k in ("generator", "precision", "stg"):
            if k in doc:
                f.write(f"  {json.dumps(k)}: {json.dumps(doc[k])},\n")
        f.write('  "cases": [\n')
        f.write(",\n".join("    " + json.dumps(c) for c in cases))
        f.write("\n  ]\n}\n")
    print(f"wrote {args.out} ({os.path.getsize(args.out)} bytes)")


if __name__ == "__main__":
    main()
