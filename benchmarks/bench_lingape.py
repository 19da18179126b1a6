"""LinGapE on the standard instances: samples, ratio to T*·log(1/δ), error rate, time.

Run from the repository root: ``python benchmarks/bench_lingape.py [--seeds 20]
[--proven-seeds 5] [--quick]``. Configurations: the default (greedy, heuristic width), the
ratio rule with the heuristic width, and the two proven widths (``self_normalized_ols``, which
needs nothing, and the paper's ``self_normalized``, told S = ‖θ‖ = 2 — knowledge a real user
would not have). A reference line gives the single-path cost per pull of ``Uniform`` in the same
process, since the shared machine's load changes every timing.
"""

from __future__ import annotations

import argparse
import time

import gymnasium as gym
import numpy as np

import bandit_envs  # noqa: F401
from agents import Uniform
from agents.linear_bai.lingape import LinGapE
from bandit_envs import run_episode

INSTANCES = (dict(d=2, omega=0.1), dict(d=5, omega=0.01))
DELTAS = (0.05, 0.01)
CONFIGS = {
    "greedy, heuristic (default)": (dict(), False),
    "ratio, heuristic": (dict(selection="ratio"), False),
    "greedy, self_normalized_ols": (dict(confidence="self_normalized_ols"), True),
    "ratio, self_normalized (S=2)": (
        dict(selection="ratio", confidence="self_normalized", theta_bound=2.0),
        True,
    ),
}


def uniform_us_per_pull(pulls: int = 50_000) -> float:
    env = gym.make("LinearBAI-Soare-v0", budget=pulls)
    start = time.perf_counter()
    run_episode(env, Uniform(), 0, batch=False)
    return (time.perf_counter() - start) / pulls * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument(
        "--proven-seeds",
        type=int,
        default=20,
        help="seeds for the proven widths on d=5, ω=0.01 (≈ 10⁶ pulls each)",
    )
    parser.add_argument("--quick", action="store_true", help="only the default configuration")
    args = parser.parse_args()
    print(f"reference: Uniform, single path, run_episode: {uniform_us_per_pull():.1f} µs/pull")
    print(
        "| instance | δ | configuration | seeds | mean samples | ratio to T*·log(1/δ) | "
        "error rate | s/episode | µs/pull |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    configs = dict(list(CONFIGS.items())[:1]) if args.quick else CONFIGS
    for kw in INSTANCES:
        for delta in DELTAS:
            env = gym.make("LinearBAI-Soare-v0", delta=delta, max_samples=10**8, **kw)
            for label, (params, proven) in configs.items():
                seeds = args.proven_seeds if proven and kw["d"] == 5 else args.seeds
                start = time.perf_counter()
                records = [run_episode(env, LinGapE(**params), s) for s in range(seeds)]
                wall = (time.perf_counter() - start) / seeds
                samples = np.mean([r.samples for r in records])
                errors = np.mean([not r.correct for r in records])
                print(
                    f"| Soare d={kw['d']} ω={kw['omega']} | {delta} | {label} | {seeds} | "
                    f"{samples:,.0f} | {samples / records[0].lower_bound:.2f} | "
                    f"{errors:.3f} | {wall:.3f} | {wall / samples * 1e6:.1f} |",
                    flush=True,
                )
    print(f"reference: Uniform, single path, run_episode: {uniform_us_per_pull():.1f} µs/pull")


if __name__ == "__main__":
    main()
