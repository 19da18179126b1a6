"""PELEG (Zaki, Mohan & Gopalan) on LinearBAI-Soare-v0: samples vs T*·log(1/δ), error, wall time.

Usage: python benchmarks/bench_peleg.py [--seeds 20] [--d5-cap 200000]

(d=2, ω=0.1) at δ ∈ {0.05, 0.01}: mean samples over the seeds (exact batch path; phases are
cached across seeds), ratio to T*·log(1/δ), error rate, wall time per episode, and the phase
lengths of the first seed. (d=5, ω=0.01): PELEG needs ~10⁹ pulls there (ε_m must fall below
Δ_min = 10⁻⁴, and N_m grows ×4 per phase), far beyond what the per-round game simulation can
play; one capped episode shows the phases reached and the script prints the projection
N_m ≈ N_last·4^(m − m_last) up to the phase m* = ⌈log2(1/Δ_min)⌉ − 1. Plain script, no asserts.
"""

from __future__ import annotations

import argparse
import math
import time

import gymnasium as gym
import numpy as np

import bandit_envs  # noqa: F401
from agents.linear_bai.peleg import PELEG
from bandit_envs import run_episode


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--d5-cap", type=int, default=200_000)
    args = parser.parse_args()
    print(
        f"{'instance':12} {'delta':>6} {'mean τ':>10} {'T*log(1/δ)':>10} {'ratio':>7} "
        f"{'error':>6} {'s/episode':>9}  phases (m, |X_m|, N_m) of seed 0",
        flush=True,
    )
    for delta in (0.05, 0.01):
        env = gym.make("LinearBAI-Soare-v0", delta=delta)
        samples, wrong, walls, phases = [], 0, [], None
        for seed in range(args.seeds):
            agent = PELEG()
            t0 = time.perf_counter()
            rec = run_episode(env, agent, seed)
            walls.append(time.perf_counter() - t0)
            samples.append(rec.samples)
            wrong += not rec.correct
            if phases is None:
                phases = [(p["m"], len(p["active"]), p["samples"]) for p in agent.phase_log]
        s = np.asarray(samples, dtype=float)
        print(
            f"{'d=2, ω=0.1':12} {delta:6.2f} {s.mean():10.0f} {rec.lower_bound:10.0f} "
            f"{s.mean() / rec.lower_bound:7.2f} {wrong / s.size:6.3f} {np.mean(walls):9.2f}  "
            f"{phases}",
            flush=True,
        )
    for delta in (0.05, 0.01):
        env = gym.make("LinearBAI-Soare-v0", d=5, omega=0.01, delta=delta, max_samples=args.d5_cap)
        agent = PELEG()
        t0 = time.perf_counter()
        rec = run_episode(env, agent, 0)
        wall = time.perf_counter() - t0
        log = [(p["m"], len(p["active"]), p["samples"]) for p in agent.phase_log]
        gap = env.unwrapped.complexity()["min_gap"]
        m_star = max(1, math.ceil(math.log2(1.0 / gap)) - 1)
        m_last, _, n_last = log[-1]
        projected = sum(p[2] for p in log) + sum(
            n_last * 4.0 ** (m - m_last) for m in range(m_last + 1, m_star + 1)
        )
        print(
            f"{'d=5, ω=0.01':12} {delta:6.2f} capped at {args.d5_cap} ({rec.stop_reason}, "
            f"{wall:.0f} s): phases {log}; projected τ ≈ {projected:.2e} = "
            f"{projected / rec.lower_bound:.0f} × T*log(1/δ) (T*log(1/δ) = "
            f"{rec.lower_bound:.0f})",
            flush=True,
        )


if __name__ == "__main__":
    main()
