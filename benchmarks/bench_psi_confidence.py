"""Fixed-confidence PSI baselines on LinearPSI-NoC-v0 (δ = 0.1, σ = 0.5): APE, Racing, PAL, GEGE.

Prints mean samples, error rate and time per episode over the seeds, and APE's cost per pull:

* agent only (``select`` + ``observe``, outcomes drawn outside the timing) on the first pulls of
  seed 0: the plain mean, and a load-robust figure — the pulls are timed in blocks of 100 and
  each block keeps its fastest of 5 identical replays (other processes only ever add time);
* through the runner (``run_episode``: agent + environment), per pull, as wall-clock and as
  process CPU time (the latter hardly moved by other processes on the machine).

Reference from an earlier prototype of ours: APE (the authors' heuristic widths) needed
~2·10⁴–3·10⁴ samples (2 runs), GEGE (practical constants) ≈ 1.4·10⁴ (50 runs). Needs the NoC
data (BANDIT_ENVS_DATA).

Usage: ``python benchmarks/bench_psi_confidence.py [seeds] [--quick]`` (default 20 seeds);
``--quick`` runs APE only (pull both, both widths) on 5 seeds (about a minute).
"""

from __future__ import annotations

import argparse
import time

import gymnasium as gym
import numpy as np

import bandit_envs  # noqa: F401
from agents.pareto.gege import GEGE
from agents.pareto.psi_confidence import APE, PAL, Racing
from bandit_envs import run_episode


def ape_cost_per_pull(
    env: gym.Env, agent: APE, seed: int, *, pulls: int = 20_000, block: int = 100, replays: int = 5
) -> tuple[float, float, int]:
    """Agent-only µs per pull on the first ``pulls`` pulls of one episode (outcomes drawn here).

    Returns ``(mean, robust, n)``: the mean over the first replay, the sum over blocks of
    ``block`` pulls of each block's fastest replay divided by the pulls, and the pulls timed.
    """
    _, info = env.reset(seed=seed)
    means = np.asarray(env.unwrapped.model.truth()["means"])
    noise = 0.5 * np.random.default_rng(seed + 1).standard_normal((pulls, means.shape[1]))
    best: np.ndarray | None = None
    mean = 0.0
    n = 0
    for _ in range(replays):
        fresh = agent.clone()
        fresh.reset(info["problem"], np.random.default_rng(seed))
        select, observe = fresh.select, fresh.observe
        blocks, spent, n = [], 0.0, 0
        while n < pulls:
            y = noise[n] + means  # every arm's outcome of this step, drawn outside the timing
            t0 = time.perf_counter()
            arm = select()
            if arm is None:
                break
            observe(arm, y[arm])
            spent += time.perf_counter() - t0
            n += 1
            if n % block == 0:
                blocks.append(spent)
                spent = 0.0
        times = np.array(blocks)
        if best is None:
            best, mean = times, 1e6 * times.sum() / max(1, times.size * block)
        else:
            best = np.minimum(best, times)
    robust = 1e6 * best.sum() / max(1, best.size * block)
    return mean, robust, n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("seeds", nargs="?", type=int, default=None)
    parser.add_argument("--quick", action="store_true", help="APE only, 5 seeds")
    args = parser.parse_args()
    seeds = args.seeds or (5 if args.quick else 20)
    env = gym.make("LinearPSI-NoC-v0", delta=0.1, sigma=0.5)
    agents = [
        ("APE (heuristic widths, pull both)", APE(threshold="heuristic"), seeds),
        ("APE (union widths, δ-correct)", APE(), seeds if args.quick else max(3, seeds // 4)),
    ]
    if not args.quick:
        agents[1:1] = [
            (
                "APE (heuristic, least sampled)",
                APE(pull="least_sampled", threshold="heuristic"),
                seeds,
            )
        ]
        agents += [
            ("Racing (heuristic widths)", Racing(threshold="heuristic"), seeds),
            ("Racing (union widths, δ-correct)", Racing(), seeds),
            ("PAL (practical, /5)", PAL(), seeds),
            ("PAL (theory constant)", PAL(constants="theory"), max(3, seeds // 4)),
            ("GEGE (practical)", GEGE(constants="practical"), seeds),
        ]
    print("LinearPSI-NoC-v0, delta=0.1, sigma=0.5 (K=259, h=4, d=2)")
    print(
        f"{'agent':36s} {'runs':>4s} {'mean samples':>13s} {'sd':>9s} {'error':>6s} "
        f"{'s/episode':>9s} {'µs/pull wall':>12s} {'µs/pull cpu':>11s}"
    )
    for label, agent, n in agents:
        recs, cpu = [], 0.0
        for s in range(n):
            c0 = time.process_time()
            recs.append(run_episode(env, agent.clone(), s))
            cpu += time.process_time() - c0
        samples = np.array([r.samples for r in recs], dtype=float)
        err = np.mean([not r.correct for r in recs])
        wall = np.array([r.wall_time for r in recs])
        print(
            f"{label:36s} {n:4d} {samples.mean():13.0f} {samples.std():9.0f} {err:6.2f} "
            f"{wall.mean():9.2f} {1e6 * wall.sum() / samples.sum():12.1f} "
            f"{1e6 * cpu / samples.sum():11.1f}",
            flush=True,
        )
    for label, agent in [("APE heuristic", APE(threshold="heuristic")), ("APE union", APE())]:
        mean, robust, n = ape_cost_per_pull(env, agent, 0)
        print(
            f"{label}: agent-side cost per pull (select + observe) over the first {n} pulls of "
            f"seed 0: {robust:.1f} µs (fastest of 5 replays per block of 100), "
            f"{mean:.1f} µs (plain mean)",
            flush=True,
        )


if __name__ == "__main__":
    main()
