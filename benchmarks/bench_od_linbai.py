"""OD-LinBAI against Uniform at equal budgets: error rates and time per episode.

Run from the repository root: ``python benchmarks/bench_od_linbai.py [--seeds 300]``. Both
agents use the exact batch path. Instances: Soare's (d=2 and d=5, ω=0.1) and 32 unstructured
arms with one close competitor (θ = (1, 0.9, 0, …, 0)).
"""

from __future__ import annotations

import argparse
import time

import gymnasium as gym
import numpy as np

import bandit_envs  # noqa: F401
from agents import Uniform
from agents.linear_bai.od_linbai import ODLinBAI
from bandit_envs import run_episode

INSTANCES = {
    "Soare d=2 ω=0.1": (dict(id="LinearBAI-Soare-v0", d=2, omega=0.1), (200, 1000, 5000)),
    "Soare d=5 ω=0.1": (dict(id="LinearBAI-Soare-v0", d=5, omega=0.1), (200, 1000, 5000, 20000)),
    "unstructured K=32": (
        dict(id="LinearBAI-Custom-v0", features=np.eye(32), theta=np.r_[1.0, 0.9, np.zeros(30)]),
        (800, 3200, 12800),
    ),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seeds", type=int, default=300)
    args = parser.parse_args()
    print("| instance | budget T | OD-LinBAI error | Uniform error | OD-LinBAI ms/episode |")
    print("|---|---|---|---|---|")
    for label, (make_kw, budgets) in INSTANCES.items():
        for budget in budgets:
            kw = dict(make_kw)
            env = gym.make(kw.pop("id"), budget=budget, **kw)
            run_episode(env, ODLinBAI(), 10**6)  # fills the design memo
            start = time.perf_counter()
            od = np.mean([not run_episode(env, ODLinBAI(), s).correct for s in range(args.seeds)])
            wall = (time.perf_counter() - start) / args.seeds
            uni = np.mean([not run_episode(env, Uniform(), s).correct for s in range(args.seeds)])
            print(f"| {label} | {budget} | {od:.3f} | {uni:.3f} | {wall * 1e3:.2f} |", flush=True)


if __name__ == "__main__":
    main()
