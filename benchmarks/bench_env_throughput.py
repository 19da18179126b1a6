"""Throughput of the environment: single-pull overhead and batch-path pulls per second."""

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
    env = gym.make("LinearBAI-Custom-v0", features=features, theta=theta,
                   budget=k * per_arm * batches * 2).unwrapped
    counts = np.full(k, per_arm, dtype=np.int64)

    def loop():
        env.reset(seed=0)
        for _ in range(batches):
            env.step_batch(counts)

    return k * per_arm * batches / best_of(loop, repeats)


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


if __name__ == "__main__":
    main()
