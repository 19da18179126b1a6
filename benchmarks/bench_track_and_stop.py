"""Linear Track-and-Stop on LinearBAI-Soare-v0: samples vs T*·log(1/δ), error, wall time.

Usage: python benchmarks/bench_track_and_stop.py [--seeds 20] [--quick]

For each instance ((d=2, ω=0.1) and (d=5, ω=0.01)), δ ∈ {0.05, 0.01} and threshold ∈ {"heuristic",
"proven"}: mean samples over the seeds, the ratio to T*·log(1/δ) (EpisodeResult.lower_bound) with
its standard error, the error rate, the mean wall time per episode, design solves and forced
pulls. Plain script, no asserts.
"""

from __future__ import annotations

import argparse
import time

import gymnasium as gym
import numpy as np

import bandit_envs  # noqa: F401
from agents.linear_bai.track_and_stop import LinearTrackAndStop
from bandit_envs import run_episode

INSTANCES = (("d=2, ω=0.1", {}), ("d=5, ω=0.01", {"d": 5, "omega": 0.01}))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--seed-start", type=int, default=0)
    parser.add_argument("--thresholds", default="heuristic,proven")
    parser.add_argument("--instances", default="0,1")
    parser.add_argument("--deltas", default="0.05,0.01")
    parser.add_argument("--solver", default="certified", help="certified or warm (re-solves)")
    parser.add_argument("--log", default=None, help="also append one line per episode here")
    args = parser.parse_args()
    header = (
        f"{'instance':12} {'delta':>6} {'threshold':>9} {'mean τ':>10} {'T*log(1/δ)':>10} "
        f"{'ratio':>6} {'±se':>5} {'error':>6} {'s/episode':>9} {'solves':>6} {'forced':>6}"
    )
    print(header, flush=True)
    for idx in (int(i) for i in args.instances.split(",")):
        label, kw = INSTANCES[idx]
        for delta in (float(x) for x in args.deltas.split(",")):
            env = gym.make("LinearBAI-Soare-v0", delta=delta, **kw)
            for threshold in args.thresholds.split(","):
                samples, wrong, walls, solves, forced = [], 0, [], [], []
                for seed in range(args.seed_start, args.seed_start + args.seeds):
                    agent = LinearTrackAndStop(threshold=threshold, solver=args.solver)
                    t0 = time.perf_counter()
                    rec = run_episode(env, agent, seed)
                    walls.append(time.perf_counter() - t0)
                    samples.append(rec.samples)
                    wrong += not rec.correct
                    solves.append(agent.design_solves)
                    forced.append(agent.forced_pulls)
                    lower = rec.lower_bound
                    if args.log:
                        with open(args.log, "a") as fh:
                            fh.write(
                                f"{label}\t{delta}\t{threshold}\t{seed}\t{rec.samples}\t"
                                f"{lower:.1f}\t{int(rec.correct)}\t{walls[-1]:.2f}\n"
                            )
                s = np.asarray(samples, dtype=float)
                print(
                    f"{label:12} {delta:6.2f} {threshold:>9} {s.mean():10.0f} {lower:10.0f} "
                    f"{s.mean() / lower:6.3f} {s.std(ddof=1) / np.sqrt(s.size) / lower:5.3f} "
                    f"{wrong / s.size:6.3f} {np.mean(walls):9.2f} {np.mean(solves):6.0f} "
                    f"{np.mean(forced):6.0f}",
                    flush=True,
                )


if __name__ == "__main__":
    main()
