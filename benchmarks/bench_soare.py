"""Soare, Lazaric & Munos (2014) agents on the standard instances (their §6 and App. E).

For each fixed-confidence agent of ``agents.linear_bai.soare_static`` and
``agents.linear_bai.soare_xy_adaptive``, on ``LinearBAI-Soare-v0`` (d=2, ω=0.1) and
(d=5, ω=0.01), at δ = 0.05 and 0.01: mean samples (± standard error), the ratio to
T*·log(1/δ) (``EpisodeResult.lower_bound``), the error rate, and the wall time per episode
(mean over the seeds, and of the first episode, which computes and memoises the deterministic
greedy sequences / phase plans / designs that later episodes reuse).

Run from the repository root::

    python benchmarks/bench_soare.py [--seeds 20] [--instances small,big] [--agents G,XY,...]
                                     [--workers 2]

On the big instance (10⁶–10⁷ pulls per episode with valid thresholds) the static agents and the
oracle check the stopping rule on a 0.1% grid (``check_growth=1e-3``, also δ-correct, overshoot
≤ 0.1%) so that the batch path can draw the pulls between two checks at once; checking after
every pull there costs ~50 µs per pull (one-pull batches). Fully-adaptive XY has no batch path
(every round depends on the last reward) and runs pull by pull. Each (agent, instance) pair runs
in one process, so the per-process memo serves all its episodes. Plain script: measures, never
asserts.
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import time
from collections.abc import Callable
from typing import Any

import gymnasium as gym
import numpy as np

import bandit_envs  # noqa: F401
from agents.linear_bai.soare_static import GAllocation, XYAllocation, XYOracle
from agents.linear_bai.soare_xy_adaptive import FullyAdaptiveXY, XYAdaptive
from bandit_envs import run_episode

INSTANCES = {"small": dict(d=2, omega=0.1), "big": dict(d=5, omega=0.01)}
DELTAS = (0.05, 0.01)


def agents_for(instance: str) -> dict[str, Callable[[], Any]]:
    """The agents and their settings on an instance."""
    g = 1e-3 if instance == "big" else 0.0
    return {
        "G": lambda: GAllocation(check_growth=g),
        "XY": lambda: XYAllocation(check_growth=g),
        "XY-design": lambda: XYAllocation(allocation="design", check_growth=g),
        "XY-Oracle": lambda: XYOracle(check_growth=g),
        "XY-Oracle(Eq.4)": lambda: XYOracle(stop="oracle"),
        "XY-Adaptive": XYAdaptive,
        "XY-Adaptive(in-phase)": lambda: XYAdaptive(stop_within_phase=True, check_growth=g),
        "Fully-adaptive": FullyAdaptiveXY,
    }


def run_group(instance: str, name: str, seeds: int) -> list[dict[str, Any]]:
    """All seeds and deltas of one (instance, agent) pair, in one process."""
    make = agents_for(instance)[name]
    rows = []
    for delta in DELTAS:
        env = gym.make("LinearBAI-Soare-v0", delta=delta, **INSTANCES[instance])
        records, times = [], []
        for seed in range(seeds):
            start = time.perf_counter()
            records.append(run_episode(env, make(), seed))
            times.append(time.perf_counter() - start)
        samples = np.array([r.samples for r in records], dtype=float)
        rows.append(
            {
                "instance": instance,
                "agent": name,
                "repr": repr(make()),
                "delta": delta,
                "mean": samples.mean(),
                "se": samples.std(ddof=1) / np.sqrt(len(samples)) if len(samples) > 1 else 0.0,
                "ratio": samples.mean() / records[0].lower_bound,
                "error": np.mean([not r.correct for r in records]),
                "truncated": sum(r.stop_reason != "stopped" for r in records),
                "time": float(np.mean(times)),
                "first": times[0],
                "pulls": np.mean([r.pulls for r in records], axis=0).round(0),
            }
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--instances", default="small,big")
    parser.add_argument("--agents", default=",".join(agents_for("small")))
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()
    jobs = [(inst, name) for inst in args.instances.split(",") for name in args.agents.split(",")]
    print(f"{args.seeds} seeds per cell; T*·log(1/δ) = EpisodeResult.lower_bound")
    print(
        "| instance | agent | δ | mean samples (± s.e.) | ratio to T*·log(1/δ) | error rate | "
        "s/episode (mean; 1st) | mean pulls per arm |"
    )
    print("|---|---|---|---|---|---|---|---|")
    with cf.ProcessPoolExecutor(max_workers=args.workers) as pool:
        futures = [pool.submit(run_group, inst, name, args.seeds) for inst, name in jobs]
        for fut in futures:
            for row in fut.result():
                kw = INSTANCES[row["instance"]]
                trunc = f" ({row['truncated']} truncated)" if row["truncated"] else ""
                print(
                    f"| d={kw['d']} ω={kw['omega']} | {row['agent']} | {row['delta']} | "
                    f"{row['mean']:,.0f} (± {row['se']:,.0f}) | {row['ratio']:.1f} | "
                    f"{row['error']:.2f}{trunc} | {row['time']:.3g}; {row['first']:.3g} | "
                    f"{row['pulls'].astype(int).tolist()} |",
                    flush=True,
                )


if __name__ == "__main__":
    main()
