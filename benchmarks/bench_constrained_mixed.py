"""SFSR, SFSR-L and USLP (Tang, Jain, Nayyar & Nuzzo): time per episode, growth with K and L.

The library's target: one SFSR episode on a Table-1 instance (K = 24, L = 2) at N = 5000 in ≤ 50 ms,
with the 2600-basis enumeration per round vectorised (:func:`bandit_envs.theory.lp.scan_bases`).
Both runner paths are timed: the exact batch path (one batch per round: the per-episode cost no
longer depends on N) and the one-pull path (N calls of select/observe).

Then the growth: the enumeration solves C(|X|, L + 1) systems per round over K − 1 rounds, so an
episode costs about Σ_k C(K + L − k + 1, L + 1) ≈ C(K + L + 1, L + 2) small solves — K^{L+2}
growth — on random L = 1 instances (K = 8 … 128) and on Custom instances with L = 1, 2, 3
(K = 24). Run: ``python benchmarks/bench_constrained_mixed.py`` (``--quick`` for fewer repeats).
"""

from __future__ import annotations

import argparse
import math
import time

import gymnasium as gym
import numpy as np

import bandit_envs  # noqa: F401
from agents.constrained.sfsr import SFSR, SFSRL, USLP
from bandit_envs import run_episode

AGENTS = {
    "SFSR": SFSR,
    "SFSR-L": SFSRL,
    "SFSR-L (HiGHS dual)": lambda: SFSRL(dual="highs"),
    "USLP": USLP,
}


def ms_per_episode(env: gym.Env, make, seeds: range, batch: bool) -> float:
    """Best of three passes over ``seeds`` (ms per episode)."""
    best = math.inf
    for _ in range(3):
        t0 = time.perf_counter()
        for seed in seeds:
            run_episode(env, make(), seed, batch=batch)
        best = min(best, (time.perf_counter() - t0) / len(seeds))
    return 1000 * best


def random_instance(k: int, n_cost: int, rng: np.random.Generator):
    """A feasible instance with K arms and L constraints (Assumption 1 holds a.s.)."""
    costs = rng.uniform(0.2, 1.8, size=(n_cost, k))
    rewards = 0.2 + 0.6 * costs.mean(axis=0) + rng.uniform(-0.35, 0.35, size=k)
    return rewards, costs


def random_env(k: int, n_cost: int, budget: int, rng: np.random.Generator) -> gym.Env:
    """A Custom env on a random instance (redrawn until Assumption 1 holds)."""
    while True:
        rewards, costs = random_instance(k, n_cost, rng)
        try:
            return gym.make(
                "ConstrainedMixed-Custom-v0", rewards=rewards, costs=costs, budget=budget
            )
        except bandit_envs.InvalidInstanceError:
            continue


def bases_per_episode(k: int, n_cost: int) -> int:
    """Σ_k C(|X_k|, L + 1) over SFSR's K − 1 rounds (|X_k| = K + L − k + 1)."""
    return sum(math.comb(k + n_cost - r + 1, n_cost + 1) for r in range(1, k))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer seeds per cell")
    args = parser.parse_args()
    seeds = range(10 if args.quick else 40)

    print("Table 1 (K = 24, L = 2), N = 5000: ms per episode (best of 3)")
    print(f"{'instance':>8} {'agent':>20} {'batch path':>11} {'one-pull path':>14}")
    for instance in ("D1P", "D3P", "D3I"):
        env = gym.make("ConstrainedMixed-Table1-v0", instance=instance, budget=5000)
        for name, make in AGENTS.items():
            fast = ms_per_episode(env, make, seeds, batch=True)
            slow = ms_per_episode(env, make, range(min(len(seeds), 10)), batch=False)
            print(f"{instance:>8} {name:>20} {fast:11.2f} {slow:14.2f}", flush=True)

    rng = np.random.default_rng(0)
    few = range(min(len(seeds), 10))
    header = f"{'bases/episode':>14} " + " ".join(f"{n:>10}" for n in ("SFSR", "SFSR-L", "USLP"))
    print("\nGrowth with K (L = 1, random feasible instances, N = 20 K), batch path, ms/episode")
    print(f"{'K':>5} " + header)
    for k in (8, 16, 32, 64, 128):
        env = random_env(k, 1, 20 * k, rng)
        cells = [ms_per_episode(env, make, few, batch=True) for make in (SFSR, SFSRL, USLP)]
        print(
            f"{k:>5} {bases_per_episode(k, 1):>14} " + " ".join(f"{c:10.2f}" for c in cells),
            flush=True,
        )

    print("\nGrowth with L (K = 24, random feasible instances, N = 5000), batch path, ms/episode")
    print(f"{'L':>5} " + header)
    for n_cost in (1, 2, 3):
        env = random_env(24, n_cost, 5000, rng)
        cells = [ms_per_episode(env, make, few, batch=True) for make in (SFSR, SFSRL, USLP)]
        print(
            f"{n_cost:>5} {bases_per_episode(24, n_cost):>14} "
            + " ".join(f"{c:10.2f}" for c in cells),
            flush=True,
        )


if __name__ == "__main__":
    main()
