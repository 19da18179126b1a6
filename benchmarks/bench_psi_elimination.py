"""Unstructured PSI baselines vs GEGE on NoC, fixed budget (Kone, Kaufmann & Richert, Fig. 3).

LinearPSI-NoC-v0 (K = 259, h = 4, d = 2, σ = 0.5), budgets T ∈ linspace(2331, 3995, 5) (the
authors' range, K⌈log₂K⌉ to ≈ H₁), 100 seeds each: error rate (± its standard error) and ms per
episode of EGE-SH, EGE-SR, PSIUniform and GEGE. The paper's §5.2: GEGE's error is below EGE-SH's by
up to 0.5. Run: ``python benchmarks/bench_psi_elimination.py`` (needs the NoC data: downloaded on
first use, or read from the folder named by BANDIT_ENVS_DATA).
"""

from __future__ import annotations

import time

import gymnasium as gym
import numpy as np

import bandit_envs  # noqa: F401
from agents.pareto.gege import GEGE
from agents.pareto.psi_elimination import EGESH, EGESR, PSIUniform
from bandit_envs import run_episode

SEEDS = range(100)
BUDGETS = [int(round(t)) for t in np.linspace(2331, 3995, 5)]
AGENTS = {"EGE-SH": EGESH, "EGE-SR": EGESR, "PSIUniform": PSIUniform, "GEGE": GEGE}


def block(agent_cls: type, budget: int) -> tuple[float, float, float]:
    env = gym.make("LinearPSI-NoC-v0", budget=budget)
    t0 = time.perf_counter()
    wrong = [not run_episode(env, agent_cls(), seed).correct for seed in SEEDS]
    ms = 1000 * (time.perf_counter() - t0) / len(SEEDS)
    err = float(np.mean(wrong))
    return err, float(np.sqrt(err * (1 - err) / len(SEEDS))), ms


def main() -> None:
    print(f"LinearPSI-NoC-v0, fixed budget, {len(SEEDS)} seeds per cell: error ± s.e. (ms/episode)")
    print(f"{'T':>6} " + " ".join(f"{name:>22}" for name in AGENTS))
    for budget in BUDGETS:
        cells = []
        for cls in AGENTS.values():
            err, se, ms = block(cls, budget)
            cells.append(f"{err:5.2f} ± {se:4.2f} ({ms:6.1f} ms)")
        print(f"{budget:>6} " + " ".join(f"{c:>22}" for c in cells), flush=True)


if __name__ == "__main__":
    main()
