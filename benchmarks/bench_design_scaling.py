"""Scaling of the design solvers in the number of arms K and the dimension h (docs/performance.md).

For the G-optimal design (:func:`bandit_envs.theory.design.g_optimal_design`), the XY design on
all K(K−1)/2 pairs (:func:`bandit_envs.theory.design.xy_design`) and a transductive design whose
targets are the differences ``x* − x`` between a given best arm and the others (the oracle /
Track-and-Stop targets of :func:`bandit_envs.theory.complexity`, unit weights), on seeded standard
Gaussian features, over K ∈ {10, 100, 1000, 10⁴} × h ∈ {2, 5, 20, 50}, each solver at its default
tolerance, this prints:

* **cold**: seconds for a solve from the solver's default start (best of the repeats);
* **warm (drop)**: a phase-elimination re-solve — 1% of the arms (at least one; never the best
  arm) are removed at random and ``init=`` is the cold solution restricted to the survivors;
* **warm (near)**: a nearby problem — the features move by 10⁻³·N(0, 1) per coordinate and
  ``init=`` is the cold solution (what a re-solve with updated estimates sees);
* the cold solve's iterations, value, certified lower bound, relative gap and convergence flag;
* the peak of traced allocations during a cold solve (:mod:`tracemalloc`; numpy buffers are
  traced), measured in a separate, untimed run.

A cell whose cold solve is predicted to exceed 60 s (from the two previous K of the same row:
growth ``K^e`` with the measured exponent ``e`` clipped to [1, 3]; ``e = 1`` while only one
previous K took over 0.05 s) is skipped with the prediction in the notes; a run that still
exceeds 60 s is interrupted (``SIGALRM``) and reported as such.

Run from the repository root: ``python benchmarks/bench_design_scaling.py [--quick]
[--json out.json]`` (``--quick``: K ≤ 1000, h ∈ {2, 20}, one repeat, no memory pass; about a
minute). The full grid takes several minutes.
"""

from __future__ import annotations

import argparse
import json
import math
import signal
import time
import tracemalloc
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from bandit_envs.theory.design import DesignResult, g_optimal_design, transductive_design, xy_design

K_GRID = (10, 100, 1000, 10_000)
H_GRID = (2, 5, 20, 50)
LIMIT = 60.0
SOLVERS = ("G", "XY", "transductive")


class _Timeout(Exception):
    """Raised by the alarm when a run exceeds the limit."""


def _alarm(signum: int, frame: Any) -> None:
    raise _Timeout


def features(k: int, h: int) -> np.ndarray:
    """Seeded standard Gaussian features, shape (k, h)."""
    return np.random.default_rng([k, h, 10]).standard_normal((k, h))


def best_arm(x: np.ndarray) -> int:
    """The best arm for a seeded parameter θ ~ N(0, I)."""
    theta = np.random.default_rng([x.shape[1], 11]).standard_normal(x.shape[1])
    return int(np.argmax(x @ theta))


def solve(solver: str, x: np.ndarray, best: int, init: np.ndarray | None) -> DesignResult:
    """One solve of ``solver`` on features ``x`` (``best``: the transductive best arm)."""
    if solver == "G":
        return g_optimal_design(x, init=init)
    if solver == "XY":
        return xy_design(x, init=init)
    targets = x[best] - np.delete(x, best, axis=0)
    return transductive_design(x, targets, init=init)


def timed(fn: Callable[[], DesignResult], repeats: int) -> tuple[float, DesignResult]:
    """Best wall time of ``repeats`` runs (one run if the first takes over 5 s), with SIGALRM."""
    best, res = math.inf, None
    for _ in range(repeats):
        signal.setitimer(signal.ITIMER_REAL, LIMIT)
        try:
            start = time.perf_counter()
            res = fn()
            elapsed = time.perf_counter() - start
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0.0)
        best = min(best, elapsed)
        if elapsed > 5.0:
            break
    assert res is not None
    return best, res


def peak_memory(fn: Callable[[], DesignResult]) -> float:
    """Peak traced allocation (MB) during one run."""
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()


def _warm(row: dict[str, Any], key: str, fn: Callable[[], DesignResult], repeats: int) -> None:
    """Time a warm solve into ``row[key]`` (``inf`` and a note if it is interrupted)."""
    try:
        row[key], res = timed(fn, repeats)
        row[key + "_gap"] = res.relative_gap
    except _Timeout:
        row[key] = math.inf
        row["notes"].append(f"{key} interrupted after {LIMIT:.0f} s")


def run_cell(solver: str, k: int, h: int, repeats: int, memory: bool) -> dict[str, Any]:
    """Cold, warm (drop) and warm (near) solves of one grid cell."""
    x = features(k, h)
    best = best_arm(x)
    row: dict[str, Any] = {"solver": solver, "K": k, "h": h, "notes": []}
    cold_t, cold = timed(lambda: solve(solver, x, best, None), repeats)
    row.update(
        cold=cold_t,
        iterations=cold.iterations,
        value=cold.value,
        lower_bound=cold.lower_bound,
        relative_gap=cold.relative_gap,
        converged=cold.converged,
    )
    rng = np.random.default_rng([k, h, 12])
    n_drop = max(1, k // 100) if k > 2 else 0
    if n_drop:
        candidates = np.delete(np.arange(k), best)
        drop = rng.choice(candidates, size=n_drop, replace=False)
        keep = np.setdiff1d(np.arange(k), drop)
        xd, bd = x[keep], int(np.searchsorted(keep, best))
        init = cold.weights[keep]
        try:
            _warm(row, "warm_drop", lambda: solve(solver, xd, bd, init), repeats)
        except ValueError:  # the survivors' weights do not span: mix in a little uniform
            init = init + 1e-3 * init.sum() / init.size
            row["notes"].append("drop: init mixed with 0.1% uniform (survivors did not span)")
            _warm(row, "warm_drop", lambda: solve(solver, xd, bd, init), repeats)
    xn = x + 1e-3 * rng.standard_normal(x.shape)
    _warm(row, "warm_near", lambda: solve(solver, xn, best, cold.weights), repeats)
    if memory and cold_t <= 10.0:
        row["peak_mb"] = peak_memory(lambda: solve(solver, x, best, None))
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="K <= 1000, h in {2, 20}, 1 repeat")
    parser.add_argument("--solvers", nargs="*", default=list(SOLVERS), choices=SOLVERS)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json", help="also write the rows to this JSON file")
    args = parser.parse_args()
    k_grid = K_GRID[:3] if args.quick else K_GRID
    h_grid = (2, 20) if args.quick else H_GRID
    repeats = 1 if args.quick else args.repeats
    signal.signal(signal.SIGALRM, _alarm)
    warnings.simplefilter("ignore")
    rows: list[dict[str, Any]] = []
    print(
        "| solver | K | h | cold s | warm (drop) s | warm (near) s | iterations | value | "
        "lower bound | rel. gap | converged | peak MB | notes |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for solver in args.solvers:
        for h in h_grid:
            done: list[tuple[int, float]] = []
            for k in k_grid:
                if len(done) >= 1:
                    (k1, t1) = done[-1]
                    e = 1.0  # optimistic with a single point: the alarm bounds the cost
                    if len(done) >= 2 and done[-2][1] > 0.05:
                        k0, t0 = done[-2]
                        e = math.log(t1 / t0) / math.log(k1 / k0)
                    e = min(3.0, max(1.0, e))
                    predicted = t1 * (k / k1) ** e
                    if predicted > LIMIT:
                        row = {
                            "solver": solver,
                            "K": k,
                            "h": h,
                            "skipped": True,
                            "predicted": predicted,
                            "notes": [
                                f"skipped: predicted {predicted:,.0f} s "
                                f"(K^{e:.2f} from K={k1}, {t1:.3g} s)"
                            ],
                        }
                        rows.append(row)
                        print(
                            f"| {solver} | {k} | {h} | — | — | — | — | — | — | — | — | — | "
                            f"{row['notes'][0]} |",
                            flush=True,
                        )
                        continue
                try:
                    row = run_cell(solver, k, h, repeats, memory=not args.quick)
                except _Timeout:
                    row = {
                        "solver": solver,
                        "K": k,
                        "h": h,
                        "skipped": True,
                        "notes": [f"interrupted after {LIMIT:.0f} s"],
                    }
                    rows.append(row)
                    print(
                        f"| {solver} | {k} | {h} | > {LIMIT:.0f} | — | — | — | — | — | — | — "
                        f"| — | {row['notes'][0]} |",
                        flush=True,
                    )
                    done.append((k, LIMIT))
                    continue
                rows.append(row)
                done.append((k, row["cold"]))
                mem = f"{row['peak_mb']:.1f}" if "peak_mb" in row else "—"
                wd = f"{row['warm_drop']:.4f}" if "warm_drop" in row else "—"
                wn = f"{row['warm_near']:.4f}"
                print(
                    f"| {solver} | {k} | {h} | {row['cold']:.4f} | {wd} | "
                    f"{wn} | {row['iterations']} | {row['value']:.6g} | "
                    f"{row['lower_bound']:.6g} | {row['relative_gap']:.1e} | "
                    f"{'yes' if row['converged'] else 'no'} | {mem} | "
                    f"{'; '.join(row['notes'])} |",
                    flush=True,
                )
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(rows, fh, indent=1)


if __name__ == "__main__":
    main()
