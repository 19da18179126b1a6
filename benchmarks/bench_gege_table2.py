"""GEGE runtimes on the shapes of Kone, Kaufmann & Richert's Table 2 (App. I.1).

The paper reports, for instances of shape [K, h, d] it does not describe, the mean time of one
GEGE episode (50 runs, an ARM laptop): fixed confidence at δ = 0.1 and fixed budget at T = 500.
We cannot rebuild its instances, so each shape gets a seeded random instance built the way
``LinearPSI-Synthetic-v0`` builds its extra arms: features drawn from U([0, 1]^h) and normalised
to the unit sphere, Θ with entries from U([0, 1]) rescaled so that the smallest PSI gap is
``MIN_GAP`` (unscaled random instances have gaps near 10⁻⁴ and never stop), σ = 0.5 (the paper's
NoC value). The time
includes the design solves (the memo is cleared once per shape, so the first episode pays them
and later ones reuse them, as any sweep would).

Run: ``python benchmarks/bench_gege_table2.py [--runs 50] [--constants practical]``.
"""

from __future__ import annotations

import argparse
import time

import gymnasium as gym
import numpy as np

import bandit_envs  # noqa: F401 - registers the ids
from agents.common.design_cache import DESIGNS
from agents.pareto.gege import GEGE
from bandit_envs import run_episode
from bandit_envs.theory.pareto import psi_gaps

#: (K, h, d) and the paper's milliseconds: (fixed confidence δ = 0.1, fixed budget T = 500).
TABLE2 = {
    (10, 2, 2): (6, 217),
    (50, 8, 2): (7, 464),
    (100, 8, 4): (545, 791),
    (200, 8, 8): (768, 1139),
    (500, 8, 8): (1013, 2425),
}


#: the smallest PSI gap of every benchmark instance (the synthetic family's value).
MIN_GAP = 0.1


def instance(n_arms: int, h: int, d: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """A seeded random instance of shape [K, h, d]: unit-norm features, Θ ~ U([0, 1])^{h×d}
    scaled so that the smallest PSI gap is :data:`MIN_GAP`."""
    rng = np.random.default_rng(seed)
    features = rng.uniform(size=(n_arms, h))
    features /= np.linalg.norm(features, axis=1, keepdims=True)
    theta = rng.uniform(size=(h, d))
    min_gap = float(psi_gaps(features @ theta).gaps.min())
    return features, theta * (MIN_GAP / min_gap)


def time_block(env: gym.Env, constants: str, runs: int) -> tuple[float, float, float]:
    """Mean ms per episode, mean samples and error rate over ``runs`` seeds."""
    t0 = time.perf_counter()
    records = [run_episode(env, GEGE(constants=constants), seed) for seed in range(runs)]
    ms = 1000.0 * (time.perf_counter() - t0) / runs
    return (
        ms,
        float(np.mean([r.samples for r in records])),
        float(np.mean([not r.correct for r in records])),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=50, help="episodes per cell (paper: 50)")
    parser.add_argument(
        "--constants",
        default="practical",
        choices=["practical", "theory"],
        help="GEGE's fixed-confidence constants (default: the authors' practical)",
    )
    args = parser.parse_args()
    print(
        f"GEGE, {args.runs} episodes per cell, FC constants={args.constants!r}; "
        "times in ms per episode (paper's Table 2 in brackets)"
    )
    print(
        f"{'[K, h, d]':>12} | {'FC δ=0.1 ms':>16} {'FC samples':>11} {'FC err':>6} | "
        f"{'FB T=500 ms':>16} {'FB err':>6}"
    )
    for (k, h, d), (paper_fc, paper_fb) in TABLE2.items():
        features, theta = instance(k, h, d)
        DESIGNS.clear()
        fc = gym.make("LinearPSI-Custom-v0", features=features, theta=theta, sigma=0.5, delta=0.1)
        fc_ms, fc_samples, fc_err = time_block(fc, args.constants, args.runs)
        fb = gym.make("LinearPSI-Custom-v0", features=features, theta=theta, sigma=0.5, budget=500)
        fb_ms, _, fb_err = time_block(fb, args.constants, args.runs)
        print(
            f"{str([k, h, d]):>12} | {fc_ms:8.2f} [{paper_fc:5d}] {fc_samples:11.3g} "
            f"{fc_err:6.2f} | {fb_ms:8.2f} [{paper_fb:5d}] {fb_err:6.2f}"
        )


if __name__ == "__main__":
    main()
