"""Cost of rounding a design to integer pulls (:func:`bandit_envs.theory.design.round_design`).

Phase-based agents (RAGE, GEGE, LinFACT, OD-LinBAI, the Soare et al. static allocations) round a
continuous design once per phase (Soare, Lazaric & Munos 2014, App. C; Adams' apportionment). This
script times that step on seeded Dirichlet weights over K ∈ {10³, 10⁴, 2·10⁴, 10⁵} support points
with n ∈ {K, 10·K} pulls: milliseconds of wall and CPU time, best of the repeats. n = K is the
hardest case for the count adjustment (one pull per point, almost every initial count changes).

Run from the repository root: ``python benchmarks/bench_rounding.py [--repeats 5]``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from bandit_envs.theory.design import round_design

K_GRID = (1_000, 10_000, 20_000, 100_000)
PULLS_PER_POINT = (1, 10)


def best_ms(weights: np.ndarray, n: int, repeats: int) -> tuple[float, float]:
    """Best wall and best CPU milliseconds of ``round_design(weights, n)`` over the repeats."""
    wall = cpu = float("inf")
    for _ in range(repeats):
        w0, c0 = time.perf_counter(), time.process_time()
        counts = round_design(weights, n)
        wall = min(wall, time.perf_counter() - w0)
        cpu = min(cpu, time.process_time() - c0)
        if int(counts.sum()) != n:  # a measurement of a wrong result is not a measurement
            raise RuntimeError(f"round_design returned {int(counts.sum())} pulls, not {n}")
    return 1e3 * wall, 1e3 * cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    print("| K (support) | n | wall ms | CPU ms |")
    print("|---|---|---|---|")
    for k in K_GRID:
        weights = np.random.default_rng(k).dirichlet(np.ones(k))
        for per_point in PULLS_PER_POINT:
            n = per_point * k
            wall, cpu = best_ms(weights, n, args.repeats)
            print(f"| {k:,} | {n:,} | {wall:.2f} | {cpu:.2f} |", flush=True)


if __name__ == "__main__":
    main()
