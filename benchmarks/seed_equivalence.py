"""Are two versions of an agent statistically the same? Paired seeds, samples and errors.

When a change reorders floating-point operations (a compiled kernel, a warm-started solver), the
seeded records may differ from some seed on, while the agent's behaviour should not change. This
script runs the same seeds on two checkouts of the library, ``--before`` and ``--after``, each in
its own fresh processes, and compares them seed by seed:

* how many seeds give the identical record (samples, correctness, answer, pulls per arm);
* mean samples on each side and the paired difference after − before, with a 95 % confidence
  interval (normal approximation; the pairs share the environment's noise, so the paired
  interval is much tighter than the two-sample one);
* the Wilcoxon signed-rank test of the paired sample counts (``scipy.stats.wilcoxon``, ties
  dropped), a two-sided p-value;
* wrong answers on each side, and the exact McNemar test on the seeds where exactly one side is
  wrong (a two-sided binomial test of the discordant pairs).

A verdict line says "identical", "statistically unchanged" (both p-values ≥ ``--level``) or
"CHANGED". The per-seed records can be kept with ``--out`` (JSON).

Usage (from anywhere; each side imports its own checkout)::

    python benchmarks/seed_equivalence.py --before /tmp/before --after . \\
        --env LinearBAI-Soare-v0 --agent LinGapE --seeds 1000 [--first-seed 0] \\
        [--agent-kw selection=ratio] [--env-kw K=200] [--jobs 1] [--out records.json]

``--before-agent-kw``/``--after-agent-kw`` add keywords on one side only, so one checkout can be
compared with itself under two settings (``--before . --after . --before-agent-kw
solver=certified``). An ``--env-kw`` value ``@file.json`` is read from a file.

``--jobs`` worker processes per side (two sides run at the same time). Speed is not measured.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve()


def _value(text: str) -> Any:
    """A ``KEY=VALUE`` value: JSON if it parses (numbers, booleans, lists), else the string.

    ``@path`` reads the JSON value from a file (e.g. a feature matrix).
    """
    if text.startswith("@"):
        return json.loads(Path(text[1:]).read_text())
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def _pairs(items: list[str] | None, flag: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise SystemExit(f"{flag} expects KEY=VALUE, got {item!r}")
        out[key] = _value(value)
    return out


# ----------------------------------------------------------------------------- worker


def worker(args: argparse.Namespace) -> None:
    """Run seeds [first, first + n) on the checkout ``args.code``; one JSON record per line."""
    code = str(Path(args.code).resolve())
    sys.path.insert(0, code)
    import warnings

    import agents
    from bandit_envs import run_episode
    from registry.catalogue import make_agent, make_env

    if not str(Path(agents.__file__).resolve()).startswith(code):
        raise SystemExit(f"imported agents from {agents.__file__}, not from the checkout {code}")
    env = make_env(args.env, **_pairs(args.env_kw, "--env-kw"))
    warnings.simplefilter("ignore")  # runaway warnings are the same on both sides
    for seed in range(args.first_seed, args.first_seed + args.seeds):
        agent = make_agent(args.agent, **_pairs(args.agent_kw, "--agent-kw"))
        r = run_episode(env, agent, seed)
        record = {
            "seed": seed,
            "samples": int(r.samples),
            "correct": bool(r.correct),
            "answer": sorted(int(i) for i in r.answer) if r.answer is not None else None,
            "pulls": [int(p) for p in r.pulls],
            "stop_reason": r.stop_reason,
        }
        print(json.dumps(record), flush=True)


# ----------------------------------------------------------------------------- driver


def _spawn(
    side: str, code: Path, args: argparse.Namespace, first: int, n: int, out: Any
) -> subprocess.Popen[bytes]:
    cmd = [sys.executable, str(HERE), "--worker", "--code", str(code), "--env", args.env]
    cmd += ["--agent", args.agent, "--first-seed", str(first), "--seeds", str(n)]
    for item in (args.agent_kw or []) + (getattr(args, f"{side}_agent_kw") or []):
        cmd += ["--agent-kw", item]
    for item in args.env_kw or []:
        cmd += ["--env-kw", item]
    env = dict(os.environ, PYTHONPATH=str(code), OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    return subprocess.Popen(cmd, stdout=out, env=env, cwd=str(code))


def collect(args: argparse.Namespace) -> dict[str, list[dict[str, Any]]]:
    """Both sides' records, seed-ordered; the workers of both sides run concurrently.

    Each worker writes to its own temporary file (a pipe read after another would stall it).
    """
    jobs = max(1, args.jobs)
    size = math.ceil(args.seeds / jobs)
    procs: dict[str, list[tuple[subprocess.Popen[bytes], Any]]] = {}
    for side in ("before", "after"):
        code = Path(getattr(args, side)).resolve()
        procs[side] = []
        for j in range(jobs):
            if j * size >= args.seeds:
                break
            out = tempfile.TemporaryFile()
            first, n = args.first_seed + j * size, min(size, args.seeds - j * size)
            procs[side].append((_spawn(side, code, args, first, n, out), out))
    records: dict[str, list[dict[str, Any]]] = {}
    for side, ps in procs.items():
        rows = []
        for p, out in ps:
            if p.wait() != 0:
                raise SystemExit(f"the {side} worker failed (exit {p.returncode})")
            out.seek(0)
            text = out.read().decode()
            out.close()
            rows += [json.loads(line) for line in text.splitlines() if line.startswith("{")]
        records[side] = sorted(rows, key=lambda r: r["seed"])
    return records


def compare(
    before: list[dict[str, Any]], after: list[dict[str, Any]], level: float
) -> dict[str, Any]:
    """The paired statistics of the module docstring."""
    import numpy as np
    from scipy import stats

    if [r["seed"] for r in before] != [r["seed"] for r in after]:
        raise SystemExit("the two sides ran different seeds")
    n = len(before)
    keys = ("samples", "correct", "answer", "pulls")
    identical = sum(all(b[k] == a[k] for k in keys) for b, a in zip(before, after, strict=True))
    sb = np.array([r["samples"] for r in before], dtype=float)
    sa = np.array([r["samples"] for r in after], dtype=float)
    diff = sa - sb
    half = 1.96 * diff.std(ddof=1) / math.sqrt(n) if n > 1 else math.inf
    p_samples = 1.0 if not diff.any() else float(stats.wilcoxon(sa, sb).pvalue)
    wb = np.array([not r["correct"] for r in before])
    wa = np.array([not r["correct"] for r in after])
    only_b, only_a = int((wb & ~wa).sum()), int((wa & ~wb).sum())
    discordant = only_b + only_a
    p_errors = 1.0 if discordant == 0 else float(stats.binomtest(only_a, discordant).pvalue)
    if identical == n:
        verdict = "identical"
    elif min(p_samples, p_errors) >= level:
        verdict = "statistically unchanged"
    else:
        verdict = "CHANGED"
    return {
        "seeds": n,
        "identical": identical,
        "mean_before": float(sb.mean()),
        "mean_after": float(sa.mean()),
        "mean_difference": float(diff.mean()),
        "ci95": [float(diff.mean() - half), float(diff.mean() + half)],
        "wilcoxon_p": p_samples,
        "errors_before": int(wb.sum()),
        "errors_after": int(wa.sum()),
        "mcnemar_p": p_errors,
        "verdict": verdict,
    }


def report(args: argparse.Namespace, s: dict[str, Any], seconds: float) -> str:
    rel = s["mean_difference"] / s["mean_before"] if s["mean_before"] else math.nan
    kws = " ".join(args.agent_kw or [])
    for side in ("before", "after"):
        if getattr(args, f"{side}_agent_kw"):
            kws += f" {side}: " + " ".join(getattr(args, f"{side}_agent_kw"))
    kws += " " + " ".join(k[:40] for k in args.env_kw or [])
    return "\n".join(
        [
            f"{args.agent} on {args.env} {kws}".rstrip()
            + f": seeds {args.first_seed}..{args.first_seed + s['seeds'] - 1} ({seconds:.0f} s)",
            f"  identical records      {s['identical']}/{s['seeds']}",
            f"  mean samples           before {s['mean_before']:.1f}, after {s['mean_after']:.1f}",
            f"  paired difference      {s['mean_difference']:+.2f} ({rel:+.3%}), 95 % CI "
            f"[{s['ci95'][0]:+.2f}, {s['ci95'][1]:+.2f}]; Wilcoxon p = {s['wilcoxon_p']:.3g}",
            f"  wrong answers          before {s['errors_before']}, after {s['errors_after']}; "
            f"McNemar p = {s['mcnemar_p']:.3g}",
            f"  verdict                {s['verdict']} (level {args.level})",
        ]
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", help="checkout of the earlier code")
    parser.add_argument("--after", default=str(HERE.parent.parent), help="checkout (default: this)")
    parser.add_argument("--env", required=True, help="registered env id")
    parser.add_argument("--agent", required=True, help="agent name")
    parser.add_argument("--agent-kw", action="append", metavar="KEY=VALUE")
    parser.add_argument(
        "--before-agent-kw",
        action="append",
        metavar="KEY=VALUE",
        help="for the before side only (e.g. compare two settings of one checkout)",
    )
    parser.add_argument("--after-agent-kw", action="append", metavar="KEY=VALUE")
    parser.add_argument(
        "--env-kw", action="append", metavar="KEY=VALUE", help="VALUE: JSON, or @file of JSON"
    )
    parser.add_argument("--seeds", type=int, default=1000)
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=1, help="worker processes per side")
    parser.add_argument("--level", type=float, default=0.01, help="test level of the verdict")
    parser.add_argument("--out", help="write both sides' per-seed records and the statistics")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--code", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.seeds < 1:
        parser.error("--seeds must be at least 1")
    if args.worker:
        worker(args)
        return
    if not args.before:
        parser.error("--before DIR is required (a checkout of the earlier code)")
    for side in ("before", "after"):
        if not (Path(getattr(args, side)) / "agents").is_dir():
            parser.error(f"--{side} {getattr(args, side)} is not a checkout (no agents/ folder)")
    start = time.perf_counter()
    records = collect(args)
    stats = compare(records["before"], records["after"], args.level)
    print(report(args, stats, time.perf_counter() - start))
    if args.out:
        Path(args.out).write_text(json.dumps({"statistics": stats, **records}, indent=1))


if __name__ == "__main__":
    main()
