"""LinFACT-G / LinFACT-XY time per episode on the nine settings of Li et al.'s Table 1.

The paper's §7.1 and EC.12: adaptive instances (EC.12.1, with the disturbing arm that the printed
construction puts on the threshold moved below it) with d ∈ {8, 12}, ε ∈ {0.1, 0.2, 0.3}, m̃ = 4,
X̃ = 1; static instances (EC.12.2) with d ∈ {8, 12, 16}, Δ = 1, ε = 1/2.
δ = 0.05, N(0, 1) noise, the exact batch path. Each block runs ``RUNS`` episodes after clearing
the design memo, so the mean includes the design solves of the first episode (reported
separately as "cold"); imports (scipy's optimisers) are warmed up once before the first block.

The library's target: at most the paper's Table 2 time per run, 0.005–0.163 s for LinFACT-G/XY.
Run: ``python benchmarks/bench_linfact.py`` (``--runs N`` to change the number of episodes).
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from agents.common.design_cache import DESIGNS
from agents.eps_good.linfact import LinFACTG, LinFACTXY
from bandit_envs import run_episode
from bandit_envs.core.env import PureExplorationEnv
from bandit_envs.core.models import LinearGaussian
from bandit_envs.core.tasks import AllEpsilonGood

#: the paper's Table 2 (seconds per run): (LinFACT-G, LinFACT-XY) per setting.
PAPER = {
    "A d=8 eps=0.1": (0.028, 0.037),
    "A d=8 eps=0.2": (0.030, 0.038),
    "A d=8 eps=0.3": (0.028, 0.038),
    "A d=12 eps=0.1": (0.078, 0.163),
    "A d=12 eps=0.2": (0.078, 0.155),
    "A d=12 eps=0.3": (0.076, 0.145),
    "S d=8": (0.005, 0.015),
    "S d=12": (0.007, 0.028),
    "S d=16": (0.009, 0.049),
}


def adaptive(d: int, eps: float, m: int = 4, x: float = 1.0) -> PureExplorationEnv:
    """EC.12.1, on-threshold arm moved: e_1..e_d with θ_k = X + (m − k + 1)ε/m for k ≤ m, plus
    n = 6 − m disturbing arms (c_i, 0, …, 0, √(1 − c_i²)) of means X − iε/n."""
    n = 6 - m
    theta = np.zeros(d)
    theta[:m] = x + (m - np.arange(m)) * eps / m
    rows = list(np.eye(d))
    for i in range(1, n + 1):
        c = (x - i * eps / n) / (x + eps)
        row = np.zeros(d)
        row[0], row[-1] = c, math.sqrt(1.0 - c * c)
        rows.append(row)
    model = LinearGaussian(np.array(rows), theta, 1.0)
    return PureExplorationEnv(model, AllEpsilonGood(eps), delta=0.05)


def static(d: int, m: int = 4, gap: float = 1.0) -> PureExplorationEnv:
    """EC.12.2: e_1..e_d, θ = (Δ,…,Δ,0,…,0) with m entries Δ, ε = Δ/2."""
    theta = np.zeros(d)
    theta[:m] = gap
    return PureExplorationEnv(
        LinearGaussian(np.eye(d), theta, 1.0), AllEpsilonGood(gap / 2), delta=0.05
    )


SETTINGS = {
    **{
        f"A d={d} eps={e}": (lambda d=d, e=e: adaptive(d, e))
        for d in (8, 12)
        for e in (0.1, 0.2, 0.3)
    },
    **{f"S d={d}": (lambda d=d: static(d)) for d in (8, 12, 16)},
}


def block(env: PureExplorationEnv, agent_cls: type, runs: int) -> dict:
    DESIGNS.clear()
    times, samples, correct, rounds = [], [], [], []
    for seed in range(runs):
        agent = agent_cls()
        t0 = time.perf_counter()
        record = run_episode(env, agent, seed)
        times.append(time.perf_counter() - t0)
        samples.append(record.samples)
        correct.append(record.correct)
        rounds.append(len(agent.phase_history))
    return {
        "ms": 1000 * float(np.mean(times)),
        "cold": 1000 * times[0],
        "samples": float(np.mean(samples)),
        "error": 1.0 - float(np.mean(correct)),
        "rounds": f"{min(rounds)}-{max(rounds)}",
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=100, help="episodes per block")
    args = parser.parse_args()
    for cls in (LinFACTG, LinFACTXY):  # warm-up: imports and first-call overheads
        run_episode(static(4, 2), cls(), 0)
    print(
        f"{'setting':16s} {'agent':10s} {'mean samples':>13s} {'error':>6s} {'rounds':>6s} "
        f"{'ms/episode':>11s} {'cold ms':>8s} {'paper ms':>9s}"
    )
    for name, make in SETTINGS.items():
        env = make()
        for i, cls in enumerate((LinFACTG, LinFACTXY)):
            r = block(env, cls, args.runs)
            print(
                f"{name:16s} {cls.__name__:10s} {r['samples']:13.4g} {r['error']:6.3f} "
                f"{r['rounds']:>6s} {r['ms']:11.2f} {r['cold']:8.1f} "
                f"{1000 * PAPER[name][i]:9.0f}"
            )


if __name__ == "__main__":
    main()
