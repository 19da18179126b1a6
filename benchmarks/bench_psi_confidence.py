"""Fixed-confidence PSI baselines on LinearPSI-NoC-v0 (δ = 0.1, σ = 0.5): APE, Racing, PAL, GEGE.

Prints mean samples, error rate and wall time per episode over the seeds, and APE's agent-side
cost per pull (select + observe, without the environment). Spec 000 §5.3 reference: APE (the
authors' heuristic widths) needed ~2·10⁴–3·10⁴ samples, GEGE (practical constants) ≈ 1.4·10⁴.
Needs the NoC data (BANDIT_ENVS_DATA). Usage: python benchmarks/bench_psi_confidence.py [seeds]
"""

from __future__ import annotations

import sys
import time

import gymnasium as gym
import numpy as np

import bandit_envs  # noqa: F401
from agents.gege import GEGE
from agents.psi_confidence import APE, PAL, Racing
from bandit_envs import run_episode


def ape_cost_per_pull(env: gym.Env, agent: APE, seed: int) -> tuple[float, int]:
    """Agent-only µs per pull of one APE episode (outcomes drawn here, not by the env)."""
    _, info = env.reset(seed=seed)
    means = np.asarray(env.unwrapped.model.truth()["means"])
    agent.reset(info["problem"], np.random.default_rng(seed))
    rng = np.random.default_rng(seed + 1)
    spent, n = 0.0, 0
    while True:
        y = means[0] + 0.5 * rng.standard_normal(means.shape[1])  # drawn outside the timing
        t0 = time.perf_counter()
        arm = agent.select()
        if arm is None:
            break
        agent.observe(arm, y - means[0] + means[arm])
        spent += time.perf_counter() - t0
        n += 1
    return 1e6 * spent / n, n


def main() -> None:
    seeds = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    env = gym.make("LinearPSI-NoC-v0", delta=0.1, sigma=0.5)
    agents = [
        ("APE (heuristic widths, pull both)", APE(threshold="heuristic"), seeds),
        ("APE (heuristic, least sampled)", APE(pull="least_sampled", threshold="heuristic"), seeds),
        ("APE (union widths, δ-correct)", APE(), max(3, seeds // 4)),
        ("Racing (heuristic widths)", Racing(threshold="heuristic"), seeds),
        ("Racing (union widths, δ-correct)", Racing(), seeds),
        ("PAL (practical, /5)", PAL(), seeds),
        ("PAL (theory constant)", PAL(constants="theory"), max(3, seeds // 4)),
        ("GEGE (practical)", GEGE(constants="practical"), seeds),
    ]
    print("LinearPSI-NoC-v0, delta=0.1, sigma=0.5 (K=259, h=4, d=2)")
    print(f"{'agent':36s} {'runs':>4s} {'mean samples':>13s} {'sd':>9s} {'error':>6s} "
          f"{'s/episode':>9s}")
    for label, agent, n in agents:
        recs = [run_episode(env, agent.clone(), s) for s in range(n)]
        samples = np.array([r.samples for r in recs], dtype=float)
        err = np.mean([not r.correct for r in recs])
        wall = np.mean([r.wall_time for r in recs])
        print(f"{label:36s} {n:4d} {samples.mean():13.0f} {samples.std():9.0f} {err:6.2f} "
              f"{wall:9.2f}", flush=True)
    for label, agent in [("APE heuristic", APE(threshold="heuristic")), ("APE union", APE())]:
        cost, n = ape_cost_per_pull(env, agent, 0)
        print(f"{label}: agent-side cost {cost:.1f} µs per pull over {n} pulls (select + observe)")


if __name__ == "__main__":
    main()
