#!/usr/bin/env python3
"""Checks reports/published/ijcai24.toml (the paper's tables, transcribed by
hand) against the two texts of the paper it was transcribed from.

Each table's lines are re-parsed from both texts independently of the
fixture: the text extracted from the PDF (ijcai24-admissible-bounds.txt,
one table row per line) and the arXiv HTML text
(ijcai24-admissible-bounds-arxiv.txt, mostly one line per table, with LaTeX
alternates that are stripped here). Every cell of the fixture must equal the
printed text in both, at the lines the fixture names, and every printed cell
must be in the fixture. It also checks that rows marked `repeats = "T"` have
the same means as table T (and lists where their stds differ), that Table 4
equals Table 1, that each range ends at its table's caption, and that every
cell parses as `mean±std`.

    python3 tools/reference/published_tables.py [--seeds DIR] [--fixture PATH] [-v]

Exit status 0 when everything agrees, 1 otherwise. Standard library only.
"""

import argparse
import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOMAINS = {"blocks": "blocksworld", "ferry": "ferry", "gripper": "gripper", "visitall": "visitall"}
VALUE = re.compile(r"^(\(\d*\.?\d+±\d*\.?\d+\)e\d+|\d*\.?\d+(±\d*\.?\d+)?|–)$")
ACC_METRICS = ["mse", "mse_clip", "nll", "nll_clip"]
PLAN_METRICS = ["solved", "evaluations"]


def normalize(line):
    """Strips the arXiv HTML's LaTeX alternates ("±plus-or-minus\\pm±" -> "±", ...)."""
    subs = [
        (r"±plus-or-minus\\pm±", "±"),
        (r"𝒯𝒩𝒯𝒩\{\\mathcal\{T\}\}\{\\mathcal\{N\}\}caligraphic_T caligraphic_N", "TN"),
        (r"𝒩\+clip𝒩\+clip\{\\mathcal\{N\}\}\\text\{\+clip\}caligraphic_N \+clip", "N+clip"),
        (r"𝒩𝒩\{\\mathcal\{N\}\}caligraphic_N", "N"),
        (r"l=h(\w+)𝑙superscript\w+l=h\^\{\\mathrm\{\w+\}\}italic_l = italic_h start_POSTSUPERSCRIPT roman_\w+ end_POSTSUPERSCRIPT",
         r"l = h\1"),
        (r"h(\w+)superscript\w+h\^\{\\mathrm\{\w+\}\}italic_h start_POSTSUPERSCRIPT roman_\w+ end_POSTSUPERSCRIPT", r"h\1"),
        (r"e(\d+)superscript𝑒\d+e\^\{\d+\}italic_e start_POSTSUPERSCRIPT \d+ end_POSTSUPERSCRIPT", r"e\1"),
        (r"10(\d)superscript10\d+10\^\{\d\}10 start_POSTSUPERSCRIPT \d end_POSTSUPERSCRIPT", r"10^\1"),
        (r"T N", "TN"),
    ]
    for a, b in subs:
        line = re.sub(a, b, line)
    return line


GROUP = re.compile(r"(learn|fixed)/h?(FF|LMcut|none)(?:\s*\(l\s*=\s*h(LMcut|max|blind)\))?")


def groups_of(header):
    """The column groups of a header line: [(sigma, residual, bound), ...]."""
    out = []
    for sigma, res, bound in GROUP.findall(header):
        residual = {"FF": "ff", "LMcut": "lmcut", "none": "none"}[res]
        bound = {"": "lmcut", "LMcut": "lmcut", "max": "hmax", "blind": "blind"}[bound]
        out.append((sigma, residual, bound))
    return out


def parse(lines, first, last, kind, normal=False):
    """Cells of a table in text lines first..last (1-based, inclusive).

    Returns ({key: (text, line)}, [problems]); key = (domain, distribution,
    sigma, residual, bound, estimate, metric), None where an axis does not apply.
    """
    tokens, header = [], None
    for n in range(first, last + 1):
        text = normalize(lines[n - 1]) if normal else lines[n - 1]
        if header is None and GROUP.search(text):
            header = text[: text.find("domain")] if "domain" in text else text
        tokens.extend((t, n) for t in text.split())
    groups = groups_of(header or "")
    cells, problems = {}, []
    i = 0

    def take(k):
        nonlocal i
        vals = tokens[i : i + k]
        bad = [t for t, _ in vals if not VALUE.match(t)]
        if len(vals) < k or bad:
            problems.append(f"expected {k} values at line {tokens[i][1] if i < len(tokens) else '?'}: got {vals}")
        i += k
        return vals

    def put(key, tok):
        if key in cells:
            problems.append(f"cell {key} twice (lines {cells[key][1]} and {tok[1]})")
        cells[key] = tok

    domain = metric = None
    section = "solved"
    while i < len(tokens):
        tok, _ = tokens[i]
        i += 1
        if tok in DOMAINS:
            domain = DOMAINS[tok]
            if kind == "accuracy":
                metric = tokens[i][0].lower()
                i += 1
                ff, lmcut = take(2)
                if metric == "mse":
                    put((domain, None, None, None, None, None, "ff_mse"), ff)
                    put((domain, None, None, None, None, None, "lmcut_mse"), lmcut)
                else:  # Table 8's NLL lines repeat the MSE lines' hFF/hLMcut values
                    put((domain, None, None, None, None, None, f"{metric}_line_ff"), ff)
                    put((domain, None, None, None, None, None, f"{metric}_line_lmcut"), lmcut)
                vals = take(2 * len(groups))
                for g, (sigma, residual, bound) in enumerate(groups):
                    put((domain, "gaussian", sigma, residual, bound, None, metric), vals[2 * g])
                    put((domain, "truncated", sigma, residual, bound, None, metric), vals[2 * g + 1])
            else:
                (base,) = take(1)
                put((domain, None, None, None, None, "ff", section), base)
                vals = take(3 * len(groups))
                for g, (sigma, residual, bound) in enumerate(groups):
                    for k, (dist, est) in enumerate([("gaussian", "N"), ("gaussian", "N+clip"), ("truncated", "TN")]):
                        put((domain, dist, sigma, residual, bound, est, section), vals[3 * g + k])
        elif tok == "+clip" and kind == "accuracy":
            vals = take(len(groups))
            for g, (sigma, residual, bound) in enumerate(groups):
                put((domain, "gaussian", sigma, residual, bound, None, f"{metric}_clip"), vals[g])
        elif tok == "Ratio":
            section = "solved"
        elif tok == "Average":
            section = "evaluations"
    if not groups:
        problems.append(f"no column groups found in lines {first}-{last}")
    return cells, problems


def fixture_cells(table):
    """{key: (text, pdf_lines, repeats)} of a fixture table."""
    out = {}
    default = table.get("repeats")
    for b in table.get("baselines", []):
        for m in ("ff_mse", "lmcut_mse"):
            out[(b["domain"], None, None, None, None, None, m)] = (b[m], b.get("pdf_lines", []), b.get("repeats", default))
    for r in table["rows"]:
        base = (r["domain"], r.get("distribution"), r.get("sigma"), r.get("residual"), r.get("bound"), r.get("estimate"))
        for m in ACC_METRICS + PLAN_METRICS:
            if m in r:
                out[base + (m,)] = (r[m], r.get("pdf_lines", []), r.get("repeats", default))
    return out


def value(text):
    """(mean, std or None) of a printed cell."""
    m = re.fullmatch(r"\((\d*\.?\d+)±(\d*\.?\d+)\)e(\d+)", text)
    if m:
        scale = 10 ** int(m.group(3))
        return float(m.group(1)) * scale, float(m.group(2)) * scale
    mean, _, std = text.partition("±")
    return float(mean), (float(std) if std else None)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", default="/work/shared/seeds", help="folder holding the two source texts")
    ap.add_argument("--fixture", default=str(ROOT / "reports/published/ijcai24.toml"))
    ap.add_argument("-v", "--verbose", action="store_true", help="also list std differences of repeated rows")
    args = ap.parse_args()
    fx = tomllib.loads(Path(args.fixture).read_text())
    seeds = Path(args.seeds)
    pdf = (seeds / "ijcai24-admissible-bounds.txt").read_text().split("\n")
    arxiv = (seeds / "ijcai24-admissible-bounds-arxiv.txt").read_text().split("\n")

    errors, infos = [], []
    by_id = {t["id"]: t for t in fx["tables"]}
    all_cells = {t["id"]: fixture_cells(t) for t in fx["tables"]}
    total = 0
    print(f"{'table':>5} {'kind':9} {'model':6} {'rows':>4} {'cells':>5}  pdf_text  arxiv_html")
    for t in fx["tables"]:
        tid, kind = t["id"], t["kind"]
        mine = all_cells[tid]
        total += len(mine)
        rows = len(t["rows"]) + len(t.get("baselines", []))
        status = []
        for name, lines, rng, normal in (
            ("pdf_text", pdf, t["pdf_text"]["lines"], False),
            ("arxiv_html", arxiv, t["arxiv_html"]["lines"], True),
        ):
            first, last = rng
            caption = normalize(lines[last - 1]) if normal else lines[last - 1]
            if not caption.startswith(f"Table {tid}:"):
                errors.append(f"Table {tid}: {name} line {last} is not its caption: {caption[:60]!r}")
            parsed, problems = parse(lines, first, last - 1, kind, normal)
            errors += [f"Table {tid} ({name}): {p}" for p in problems]
            # Table 8's NLL lines: their hFF/hLMcut columns must repeat the MSE line's.
            for key in [k for k in parsed if k[6].endswith("_line_ff") or k[6].endswith("_line_lmcut")]:
                ref = key[:6] + ("ff_mse" if key[6].endswith("_ff") else "lmcut_mse",)
                if parsed[key][0] != parsed.get(ref, ("?",))[0]:
                    errors.append(f"Table {tid} ({name}): {key} = {parsed[key][0]}, MSE line has {parsed.get(ref)}")
                del parsed[key]
            equal = 0
            for key, (text, plines, _) in mine.items():
                got = parsed.get(key)
                if got is None:
                    errors.append(f"Table {tid}: {key} = {text!r} not found in {name}")
                elif got[0] != text:
                    errors.append(f"Table {tid}: {key} = {text!r} but {name} line {got[1]} prints {got[0]!r}")
                elif name == "pdf_text" and got[1] not in plines:
                    errors.append(f"Table {tid}: {key} is on {name} line {got[1]}, fixture says {plines}")
                else:
                    equal += 1
            for key in parsed.keys() - mine.keys():
                errors.append(f"Table {tid}: {name} line {parsed[key][1]} prints {key} = {parsed[key][0]!r}, missing from the fixture")
            if name == "pdf_text":  # each row's pdf_lines are exactly the lines of its cells
                for r in t["rows"] + t.get("baselines", []):
                    keys = [k for k in mine if k[0] == r["domain"] and k[1:6] == (r.get("distribution"), r.get("sigma"), r.get("residual"), r.get("bound"), r.get("estimate"))
                            and (("distribution" in r or "estimate" in r) or k[6] in ("ff_mse", "lmcut_mse"))]
                    found = sorted({parsed[k][1] for k in keys if k in parsed})
                    if found and found != sorted(r.get("pdf_lines", [])):
                        errors.append(f"Table {tid}: row {r['domain']} {r.get('distribution')} {r.get('sigma')}/{r.get('residual')} l={r.get('bound')} {r.get('estimate')}: pdf_lines {r.get('pdf_lines')}, cells on {found}")
            status.append(f"{equal}/{len(mine)}")
        print(f"{tid:>5} {kind:9} {t['model']:6} {rows:>4} {len(mine):>5}  {status[0]:>8}  {status[1]:>10}")

        for key, (text, _, rep) in mine.items():
            try:
                mean, std = value(text)
            except ValueError:
                errors.append(f"Table {tid}: {key} = {text!r} does not parse as mean±std")
                continue
            if rep:
                if rep not in by_id:
                    errors.append(f"Table {tid}: {key} repeats unknown table {rep}")
                    continue
                other = all_cells[rep].get(key)
                if other is None:
                    errors.append(f"Table {tid}: {key} repeats Table {rep}, which lacks it")
                elif value(other[0])[0] != mean:
                    errors.append(f"Table {tid}: {key} = {text} repeats Table {rep} but its mean differs ({other[0]})")
                elif other[0] != text:
                    infos.append(f"Table {tid} {key[0]} {'/'.join(str(a) for a in key[1:6] if a)} {key[6]}: {text} (Table {rep}: {other[0]})")

    if all_cells.get("1") and all_cells.get("4"):
        a = {k: v[0] for k, v in all_cells["1"].items()}
        b = {k: v[0] for k, v in all_cells["4"].items()}
        print(f"Table 4 {'equals' if a == b else 'DIFFERS FROM'} Table 1, cell for cell")
        if a != b:
            errors.append("Table 4 differs from Table 1")
    primary = sum(1 for cells in all_cells.values() for v in cells.values() if not v[2])
    print(f"{total} cells in {len(fx['tables'])} tables; {primary} not marked as repeating another table "
          f"(what `--against` compares by default); {len(infos)} repeated cells print another std than the table they repeat")
    if args.verbose:
        for i in infos:
            print("  std differs:", i)
    for e in errors:
        print("ERROR", e)
    print("OK: every cell matches both texts" if not errors else f"{len(errors)} problems")
    return 0 if not errors else 1


if __name__ == "__main__":
    sys.exit(main())
