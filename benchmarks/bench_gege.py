"""GEGE timings and accuracy (issue 5 targets; spec 000 §3.6, §5.3, §5.5).

* LinearPSI-NoC-v0, fixed confidence, δ = 0.1, ``constants="practical"`` (the authors'
  constants): mean samples, error rate, ms per episode over 50 seeds (and the theory preset).
* LinearPSI-NoC-v0, fixed budget T = 2331: error rate, ms per episode over 50 seeds.
* LinearPSI-Synthetic-v0 with K = 10,000: one fixed-confidence episode (cold: empty design memo).

Targets: FC ≤ 60 ms/episode, FB ≤ 35 ms/episode on NoC, K = 10,000 ≤ 10 s. Timings include the
design solves of the first episode (the memo is cleared before each block).
Run: ``BANDIT_ENVS_DATA=../shared/data python benchmarks/bench_gege.py``.
"""

from __future__ import annotations

import time

import gymnasium as gym
import numpy as np

import bandit_envs  # noqa: F401
from agents._design_cache import DESIGNS
from agents.gege import GEGE
from bandit_envs import run_episode

SEEDS = range(50)


def block(env_id: str, agent_kw: dict, seeds=SEEDS, **env_kw) -> dict:
    env = gym.make(env_id, **env_kw)
    DESIGNS.clear()
    t0 = time.perf_counter()
    records = [run_episode(env, GEGE(**agent_kw), seed) for seed in seeds]
    elapsed = time.perf_counter() - t0
    return {
        "samples": float(np.mean([r.samples for r in records])),
        "error": float(np.mean([not r.correct for r in records])),
        "ms": 1000 * elapsed / len(records),
        "n": len(records),
    }


def main() -> None:
    rows = [
        ("NoC FC practical δ=0.1", block("LinearPSI-NoC-v0", {"constants": "practical"},
                                         delta=0.1)),
        ("NoC FC theory δ=0.1", block("LinearPSI-NoC-v0", {"constants": "theory"}, delta=0.1)),
        ("NoC FB T=2331", block("LinearPSI-NoC-v0", {}, budget=2331)),
        ("NoC FB T=8000", block("LinearPSI-NoC-v0", {}, budget=8000)),
        ("Synthetic K=10000 FC practical (1 ep.)",
         block("LinearPSI-Synthetic-v0", {"constants": "practical"}, seeds=[0], K=10_000)),
        ("Synthetic K=10000 FC theory (1 ep.)",
         block("LinearPSI-Synthetic-v0", {"constants": "theory"}, seeds=[0], K=10_000)),
    ]
    print(f"{'setting':42s} {'runs':>5s} {'mean samples':>13s} {'error':>6s} {'ms/episode':>11s}")
    for name, r in rows:
        print(f"{name:42s} {r['n']:5d} {r['samples']:13.0f} {r['error']:6.2f} {r['ms']:11.2f}")


if __name__ == "__main__":
    main()
