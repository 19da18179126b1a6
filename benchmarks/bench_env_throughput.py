"""Throughput of the environment: single-pull overhead and batch-path pulls per second.

First the linear Gaussian model in detail (through ``gym.make``'s wrappers, through
``env.unwrapped``, and a whole ``run_episode`` with ``Uniform``), then one row per reward model:
linear Gaussian, multi-output Gaussian (Pareto), Bernoulli-logistic (GLM), misspecified
Gaussian and constrained (reward + costs), each on a standard id. The library's targets:
``env.unwrapped`` single pull ≤ 5 µs, batch path ≥ 10⁷ pulls per second.
Run: ``python benchmarks/bench_env_throughput.py`` (``--pulls``, ``--repeats``).
"""

from __future__ import annotations

import argparse
import time

import gymnasium as gym
import numpy as np

import bandit_envs  # noqa: F401
from agents import Uniform
from bandit_envs import run_episode


def best_of(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def single_pull_us(env, pulls: int, repeats: int) -> float:
    k = env.unwrapped.n_arms

    def loop():
        env.reset(seed=0)
        step = env.step
        for t in range(pulls):
            step(t % k)

    return best_of(loop, repeats) / pulls * 1e6


def run_episode_us(budget: int, repeats: int) -> float:
    env = gym.make("LinearBAI-Soare-v0", budget=budget)
    return best_of(lambda: run_episode(env, Uniform(), 0, batch=False), repeats) / budget * 1e6


def batch_pulls_per_second(k: int, per_arm: int, batches: int, repeats: int) -> float:
    features = np.eye(k)
    theta = np.linspace(1.0, 0.0, k)
    env = gym.make(
        "LinearBAI-Custom-v0", features=features, theta=theta, budget=k * per_arm * batches * 2
    ).unwrapped
    counts = np.full(k, per_arm, dtype=np.int64)

    def loop():
        env.reset(seed=0)
        for _ in range(batches):
            env.step_batch(counts)

    return k * per_arm * batches / best_of(loop, repeats)


#: one standard id per reward model (keywords keep the instances small and data-free)
MODELS = {
    "linear Gaussian (m=1)": ("LinearEpsGood-Adaptive-v0", {}),
    "multi-output Gaussian (Pareto, m=2)": ("LinearPSI-Synthetic-v0", {"K": 100}),
    "Bernoulli-logistic (GLM)": ("LogisticEpsGood-Adaptive-v0", {}),
    "misspecified Gaussian": ("MisspecifiedEpsGood-Adaptive-v0", {}),
    "constrained (reward + 2 costs)": ("ConstrainedMixed-Table1-v0", {}),
}


def model_rows(pulls: int, repeats: int) -> None:
    """µs per pull (wrapped, unwrapped) and batch pulls per second, per reward model."""
    print(
        f"\n{'reward model':<38} {'id':<34} {'K':>4} {'gym.make':>9} {'unwrapped':>10} "
        f"{'batch 100/arm':>14} {'batch 1e4/arm':>14}"
    )
    for label, (env_id, kwargs) in MODELS.items():
        env = gym.make(env_id, budget=10**12, **kwargs)
        k = env.unwrapped.n_arms
        wrapped_us = single_pull_us(env, pulls, repeats)
        bare_us = single_pull_us(env.unwrapped, pulls, repeats)
        rates = []
        for per_arm in (100, 10_000):
            counts = np.full(k, per_arm, dtype=np.int64)
            base = env.unwrapped

            def loop(base=base, counts=counts):
                base.reset(seed=0)
                for _ in range(20):
                    base.step_batch(counts)

            rates.append(k * per_arm * 20 / best_of(loop, repeats))
        print(
            f"{label:<38} {env_id:<34} {k:>4} {wrapped_us:8.2f}µs {bare_us:9.2f}µs "
            f"{rates[0]:14.3g} {rates[1]:14.3g}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--pulls", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    print(f"numpy {np.__version__}, gymnasium {gym.__version__}")
    wrapped = gym.make("LinearBAI-Soare-v0", budget=10**9)
    n, r = args.pulls, args.repeats
    print(f"single pull, gym.make(...) wrappers : {single_pull_us(wrapped, n, r):6.2f} µs/pull")
    bare = single_pull_us(wrapped.unwrapped, n, r)
    print(f"single pull, env.unwrapped          : {bare:6.2f} µs/pull")
    print(f"run_episode + Uniform, single path  : {run_episode_us(n, r):6.2f} µs/pull (budget {n})")
    for k in (3, 1000):
        rate = batch_pulls_per_second(k, per_arm=10_000, batches=100, repeats=args.repeats)
        print(f"batch path, K={k:<5} 10^4 pulls/arm/batch: {rate:.3g} pulls/s")
    model_rows(n // 5, r)


if __name__ == "__main__":
    main()
