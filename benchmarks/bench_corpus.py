"""The real-robot model corpus against MuJoCo 3.17: every model of tests/corpus.py through tests/corpus_check.py,
then the table (model, package, MJCF/URDF, loads, steps, worst errors, status) and a summary line.

    python benchmarks/bench_corpus.py                              # whole corpus (each model in a worker process)
    python benchmarks/bench_corpus.py --jsonl out.jsonl --markdown table.md
    python benchmarks/bench_corpus.py --from-jsonl out.jsonl --markdown table.md   # table of a saved run
    python benchmarks/bench_corpus.py --only dm_control/suite      # names containing any of these strings

Compiles are included in the time (a model whose feature set is new compiles the pipeline for it, cached after).
"""

import argparse
import collections
import json
import os
import pprint
import re
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path[:0] = [REPO, os.path.join(REPO, "tests")]

import corpus  # noqa: E402
import corpus_check  # noqa: E402


def _e(x):
    if x is None:
        return "-"
    if x == 0:
        return "0"
    return f"{x:.1e}"


def _load_cell(r):
    mj = "yes" if r.get("mj_load") == "ok" else ("no" if r.get("mj_load") else "-")
    ours = "yes" if r.get("ours_load") == "ok" else ("no" if r.get("ours_load") else "-")
    return mj, ours


def _short_name(name):
    return name.replace("/envs/assets/", "/").replace("/locomotion/walkers/assets/", "/walkers/")


def rows(records):
    out = []
    for r in records:
        mj, ours = _load_cell(r)
        sizes = r.get("sizes") or {}
        step = r.get("step")
        step_cell = "-" if step is None else ("ok" if step == "ok" else ("static" if step == "static" else "raises"))
        if r.get("nstates") is None:
            states = "-"
        else:
            states = f"{r['nstates']}" + (f" ({r['contact_mismatch']} differ)" if r.get("contact_mismatch") else "")
        reason = re.sub(r"/[^\s:]+/([^/\s:]+\.(xml|urdf))", r"\1", "; ".join(r.get("reasons") or []))
        if not reason and r.get("chaotic"):
            reason = r["chaotic"]
        if not reason and r.get("load") == "both refuse":
            reason = "MuJoCo: " + (r.get("mj_load") or "")[:90]
        out.append(
            [
                _short_name(r["name"]),
                r["package"],
                r["kind"],
                mj,
                ours,
                str(sizes.get("nv", "-")),
                "-" if r.get("fields") is None else str(r["fields"]),
                step_cell,
                states,
                _e(r.get("dist_err")),
                _e(r.get("qacc_err")),
                _e(r.get("qfrc_err")),
                _e(r.get("traj_err")),
                r.get("status") or "fail",
                reason[:160],
            ]
        )
    return out


HEADER = [
    "model",
    "package",
    "kind",
    "MuJoCo loads",
    "we load",
    "nv",
    "field diffs",
    "steps",
    "contact states",
    "dist err",
    "qacc err",
    "qfrc_c err",
    "traj err",
    "status",
    "reason",
]


def summary(records):
    n = len(records)
    mj = [r for r in records if r.get("mj_load") == "ok"]
    refused = [r for r in records if r.get("mj_load") not in (None, "ok")]
    we_load = [r for r in mj if r.get("ours_load") == "ok"]
    fields = [r for r in we_load if r.get("fields") == 0]
    steps = [r for r in we_load if r.get("step") in ("ok", "static")]
    match = [r for r in mj if r.get("status") in ("match", "static")]
    chaotic = [r for r in mj if r.get("status") == "chaotic"]
    refuse_ok = [r for r in refused if r.get("load") == "both refuse"]
    return (
        f"{n} corpus files: {len(mj)} models MuJoCo loads, {len(refused)} it refuses | of the {len(mj)} models "
        f"we load {len(we_load)}, fields match {len(fields)}, step {len(steps)}, match on every check "
        f"{len(match)}, chaotic {len(chaotic)} (every step matches, the trajectory amplifies rounding) | of the "
        f"{len(refused)} refused we refuse {len(refuse_ok)} with ModelError"
    )


def _normalise(msg):
    """An error message without file paths, line numbers, names in quotes and numbers (for grouping)."""
    import re

    msg = re.sub(r"\S*/\S*\.(xml|urdf)(:\d+)?", "<file>", msg)
    msg = re.sub(r"'[^']*'", "'..'", msg)
    msg = re.sub(r"\b\d+(\.\d+)?(e-?\d+)?\b", "N", msg)
    return msg[:150]


def category(r):
    """The failure category of a failing record (its first failed check, the message normalised)."""
    reasons = r.get("reasons") or []
    if not reasons:
        return None
    first = reasons[0]
    if first.startswith("slow load"):
        return (
            f"slow load: sim.load_model still running after {corpus_check.LOAD_TIMEOUT} s (MuJoCo loads it in seconds)"
        )
    if first.startswith(("worker process died", "hung")):
        return "crash: " + _normalise(first)
    if first.startswith("load: "):
        return "we refuse a model MuJoCo loads: " + _normalise(first[6:])
    if first.startswith("MuJoCo refuses"):
        return (
            "refusal: "
            + _normalise(first)
            + (" | we raise " + _normalise(r.get("ours_load") or "") if "raises" in first else "")
        )
    if first.startswith("fields: "):
        fields = first.split("(", 1)[-1].rstrip(")")
        return "model fields differ: " + fields
    if first.startswith("step: "):
        return "step raises: " + _normalise(first[6:])
    if first.startswith("contacts: ") or first.startswith("dist err"):
        return "contact set / dist differ"
    if first.startswith("qacc err"):
        return "qacc / qfrc_constraint differ at contact states"
    if first.startswith("trajectory err"):
        prof = r.get("traj_profile") or {}
        if prof.get("1") is not None and prof["1"] <= 1e-12:
            return "contact-free trajectory: rounding-level at step 1, grows to above 1e-6 (chaotic amplification)"
        return "contact-free trajectory: differs from step 1"
    if first.startswith("trajectory step"):
        return "step raises during the trajectory: " + _normalise(first)
    return _normalise(first)


def categories(records):
    """{category: [names]} of the failing records, largest first."""
    out = collections.defaultdict(list)
    for r in records:
        c = category(r)
        if c:
            out[c].append(r["name"])
    return dict(sorted(out.items(), key=lambda kv: -len(kv[1])))


def table_text(records):
    rs = rows(records)
    widths = [max(len(h), *(len(r[i]) for r in rs)) if rs else len(h) for i, h in enumerate(HEADER)]
    widths[-1] = min(widths[-1], 80)
    fmt = "  ".join("{:<%d}" % w for w in widths)
    lines = [fmt.format(*HEADER), fmt.format(*("-" * w for w in widths))]
    lines += [fmt.format(*(c[:w] for c, w in zip(r, widths))) for r in rs]
    return "\n".join(lines)


def table_markdown(records):
    rs = rows(records)
    lines = ["| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    for r in rs:
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in r) + " |")
    return "\n".join(lines)


def _depth(r):
    """How far a record's check went: 2 with dynamics (a step was tried), 1 with loads only."""
    return 2 if r.get("step") is not None or r.get("traj_steps") is not None else 1


def _bound(x):
    """10x a measured error, to two significant digits (the regression bound of an expected failure)."""
    return float(f"{10 * x:.2g}")


def write_expected(records, path):
    """tests/corpus_expected.py from a run: every failing record with its reasons and upper bounds."""
    lines = [
        '"""Corpus models that fail today (tests/test_robot_corpus.py): name -> reason (the measured failure),',
        "optional bounds (record key -> upper bound: 10x the measured error; the number of differing fields as",
        "measured) and crash (True: checked in a worker process: it crashes, hangs or loads too slowly).",
        "Written by `python benchmarks/bench_corpus.py --write-expected tests/corpus_expected.py`; the",
        'categories and their likely causes are in docs/corpus.md.  Remove an entry when its model passes."""',
        "",
    ]
    expected = {}
    limits = {
        "dist_err": corpus_check.DIST_TOL,
        "qacc_err": corpus_check.ACC_RTOL,
        "qfrc_err": corpus_check.ACC_RTOL,
        "traj_err": corpus_check.TRAJ_RTOL,
    }
    for r in sorted(records, key=lambda r: r["name"]):
        if r.get("status") != "fail" or (r.get("reasons") or [""])[0].startswith("hung"):
            continue  # a hang (the whole check over --timeout: compiles on a busy machine) is no finding
        reason = re.sub(r"/[^\s:]+/([^/\s:]+\.(xml|urdf))", r"\1", "; ".join(r.get("reasons") or []))
        e = {"reason": reason[:400]}
        bounds = {k: _bound(r[k]) for k, lim in limits.items() if r.get(k) is not None and lim < r[k] < float("inf")}
        if r.get("fields"):
            bounds["fields"] = r["fields"]
        if bounds:
            e["bounds"] = bounds
        if any(x.startswith(("worker process died", "hung", "slow load")) for x in r.get("reasons") or []):
            e["crash"] = True
        expected[r["name"]] = e
    lines.append("EXPECTED = " + pprint.pformat(expected, width=116, sort_dicts=True))
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", nargs="*", default=None, help="check only names containing one of these strings")
    ap.add_argument("--jsonl", help="append each record to this file as it comes")
    ap.add_argument(
        "--from-jsonl",
        nargs="+",
        help="print the table of saved runs (no checking); a model in "
        "several files takes the record that went furthest (a full check over a --fields-only one)",
    )
    ap.add_argument("--fields-only", action="store_true", help="load and model-field checks only (no dynamics)")
    ap.add_argument("--reverse", action="store_true", help="check in reverse name order")
    ap.add_argument("--markdown", help="write the table as markdown to this file")
    ap.add_argument("--log", help="the workers' stderr (compile progress, package messages) to this file")
    ap.add_argument("--write-expected", help="write the failures as tests/corpus_expected.py's EXPECTED to this file")
    ap.add_argument("--timeout", type=float, default=900, help="seconds per model before it counts as hung")
    ap.add_argument("--resume", action="store_true", help="with --jsonl: skip the models that file has")
    ap.add_argument("--jobs", type=int, default=1, help="worker processes")
    args = ap.parse_args(argv)

    t0 = time.perf_counter()
    if args.from_jsonl:
        by = {}
        for path in args.from_jsonl:
            with open(path) as f:
                for r in map(json.loads, f):
                    old = by.get(r["name"])
                    if old is None or _depth(r) >= _depth(old):
                        by[r["name"]] = r
        records = sorted(by.values(), key=lambda r: r["name"])
    else:
        entries = corpus.discover()
        done = []
        if args.resume and args.jsonl and os.path.exists(args.jsonl):
            with open(args.jsonl) as f:
                done = [
                    r
                    for r in {r["name"]: r for r in map(json.loads, f) if r}.values()
                    if not (r.get("reasons") or [""])[0].startswith("hung")
                ]  # a hang is retried
            names = {r["name"] for r in done}
            entries = [e for e in entries if e.name not in names]
        if args.only:
            entries = [e for e in entries if any(s in e.name for s in args.only)]
        if args.reverse:
            entries = entries[::-1]
        print(f"corpus packages: {corpus.installed_packages()}", flush=True)
        print(f"{len(entries)} entries", flush=True)
        log = open(args.log, "a") if args.log else None
        out = open(args.jsonl, "a") if args.jsonl else None
        records = list(done)
        for r in corpus_check.check_isolated(
            entries, timeout=args.timeout, log=log, jobs=args.jobs, dynamics=not args.fields_only
        ):
            records.append(r)
            if out:
                out.write(json.dumps(r) + "\n")
                out.flush()
            print(
                f"[{len(records)}/{len(entries) + len(done)}] {r['name']}: {r['status']} {r.get('seconds')} s "
                f"{'; '.join(r.get('reasons') or [])[:200]}",
                flush=True,
            )
    print()
    print(table_text(records))
    print()
    print(summary(records))
    print()
    for c, names in categories(records).items():
        print(f"{len(names):4d}  {c}")
        for n in names:
            print(f"        {n}")
    if not args.from_jsonl:
        print(f"wall time {time.perf_counter() - t0:.0f} s (compiles included)")
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(summary(records) + "\n\n")
            for c, names in categories(records).items():
                f.write(f"- {c} ({len(names)}): " + ", ".join(f"`{_short_name(n)}`" for n in names) + "\n")
            f.write("\n" + table_markdown(records) + "\n")
    if args.write_expected:
        write_expected(records, args.write_expected)


if __name__ == "__main__":
    main()
