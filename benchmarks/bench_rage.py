"""RAGE on the standard instances: samples, ratio to T*·log(1/δ), error rate, time per episode.

Run from the repository root: ``python benchmarks/bench_rage.py [--seeds 50]``. The first
episode on an instance solves the XY designs (reported as "cold"); later episodes find them in
the process-wide design memo (``agents.common.design_cache``), which is what a sweep sees.
"""

from __future__ import annotations

import argparse
import time

import gymnasium as gym
import numpy as np

import bandit_envs  # noqa: F401
from agents.common.design_cache import DESIGNS
from agents.linear_bai.rage import RAGE
from bandit_envs import run_episode

INSTANCES = (dict(d=2, omega=0.1), dict(d=5, omega=0.01))
DELTAS = (0.05, 0.01)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seeds", type=int, default=50)
    args = parser.parse_args()
    print(
        "| instance | δ | mean samples | ratio to T*·log(1/δ) | error rate | phases | "
        "ms/episode (warm) | ms (cold, 1st episode) |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for kw in INSTANCES:
        for delta in DELTAS:
            env = gym.make("LinearBAI-Soare-v0", delta=delta, **kw)
            DESIGNS.clear()
            start = time.perf_counter()
            run_episode(env, RAGE(), 10**6)
            cold = time.perf_counter() - start
            records, phases = [], []
            start = time.perf_counter()
            for seed in range(args.seeds):
                agent = RAGE()
                records.append(run_episode(env, agent, seed))
                phases.append(len(agent.phase_history))
            warm = (time.perf_counter() - start) / args.seeds
            samples = np.mean([r.samples for r in records])
            errors = np.mean([not r.correct for r in records])
            print(
                f"| Soare d={kw['d']} ω={kw['omega']} | {delta} | {samples:,.0f} | "
                f"{samples / records[0].lower_bound:.1f} | {errors:.3f} | "
                f"{np.mean(phases):.1f} | {warm * 1e3:.2f} | {cold * 1e3:.0f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
