"""Sweep machinery: overhead per episode, and the process backend's speed-up with 2 workers."""

from __future__ import annotations

import argparse
import os
import tempfile
import time

import gymnasium as gym

import bandit_envs  # noqa: F401
from agents import Uniform
from bandit_envs import run_episode
from registry.sweeps import sweep


def timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--episodes", type=int, default=2000, help="tiny episodes (overhead)")
    parser.add_argument("--long", type=int, default=40, help="long episodes (speed-up)")
    args = parser.parse_args()
    print(f"cpus: {os.cpu_count()}")

    # 1. overhead: tiny fixed-budget episodes (one batch of 3 pulls each)
    env_kw = {"budget": 3}
    n = args.episodes
    env = gym.make("LinearBAI-Soare-v0", **env_kw)
    bare = timed(lambda: [run_episode(env, Uniform(), s) for s in range(n)]) / n
    envs = [{"id": "LinearBAI-Soare-v0", "kwargs": env_kw}]
    memory = timed(lambda: sweep(envs, ["Uniform"], n, backend="serial", progress=False)) / n
    with tempfile.TemporaryDirectory() as tmp:
        disk = (
            timed(lambda: sweep(envs, ["Uniform"], n, backend="serial", out=tmp, progress=False))
            / n
        )
    print(f"run_episode alone            : {bare * 1e6:8.1f} µs/episode")
    print(
        f"sweep, serial, in memory     : {memory * 1e6:8.1f} µs/episode "
        f"(overhead {(memory - bare) * 1e6:.1f} µs)"
    )
    print(
        f"sweep, serial, results file  : {disk * 1e6:8.1f} µs/episode "
        f"(overhead {(disk - bare) * 1e6:.1f} µs: JSON + flush + fsync per record)"
    )

    # 2. speed-up: long episodes (Uniform at delta=0.05 on the default instance, ~0.2 s each)
    long_envs = [{"id": "LinearBAI-Soare-v0"}]
    m = args.long
    serial = timed(lambda: sweep(long_envs, ["Uniform"], m, backend="serial", progress=False))
    process = timed(
        lambda: sweep(long_envs, ["Uniform"], m, backend="process", n_jobs=2, progress=False)
    )
    print(f"{m} long episodes, serial     : {serial:6.2f} s")
    print(
        f"{m} long episodes, process x2 : {process:6.2f} s (speed-up {serial / process:.2f}x, "
        "including worker start-up)"
    )


if __name__ == "__main__":
    main()
