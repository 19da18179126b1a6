"""BayesGap, KGCB and LazyTTS on two all-ε-good instances of Li et al.: time per episode.

Usage: python benchmarks/bench_eps_good_baselines.py [--seeds 5] [--budget 10000] [--agents ...]

Instances (Li, Ma, Hua & Zhu, EC.12.1–EC.12.2, built directly so that the script does not
depend on the registered ids):

* static d=8: arms e_1..e_8, θ = (1, 1, 1, 1, 0, 0, 0, 0), ε = 0.5 (Table 1 setting 7);
* adaptive d=8, ε=0.2: arms e_1..e_8 with θ = (1.2, 1.15, 1.1, 1.05, 0, 0, 0, 0) plus n = 2
  disturbing arms x_i = (c_i, 0, …, 0, √(1 − c_i²)), μ(x_i) = 1 − 0.1·i, c_i = μ(x_i)/1.2
  (setting 2 with m̃ = 4, X̃ = 1 and the on-threshold fix).

N(0, 1) noise. BayesGap and KGCB run with a fixed budget (default 10⁴ pulls; the paper uses
LinFACT's mean sample complexity); LazyTTS runs in fixed confidence at δ = 0.05 with the
paper's threshold τ = E[X̃] (1 adaptive, Δ/2 = 0.5 static) and with τ̂ = max μ̂ − ε
(``threshold=None``), at its defaults (proven GLR threshold) and with the heuristic one.

For each (instance, agent): mean samples, exact-set accuracy, mean F1, mean and median wall time
per episode, µs per pull, next to the paper's Table 2 seconds (d=8 columns: adaptive ε=0.2 and
static d=8). Plain script, no asserts.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from agents.eps_good.lazy_tts import LazyTTS
from agents.linear_bai.bayes_fb import KGCB, BayesGap
from bandit_envs import run_episode
from bandit_envs.core.env import PureExplorationEnv
from bandit_envs.core.models import LinearGaussian
from bandit_envs.core.tasks import AllEpsilonGood

#: Li et al. Table 2 (seconds per run): (adaptive (8, 4) ε = 0.2, static d = 8)
PAPER = {"BayesGap": (0.110, 0.036), "KGCB": (1.936, 0.303), "LazyTTS": (3.904, 0.198)}


def static_instance(delta=None, budget=None):
    theta = np.r_[np.ones(4), np.zeros(4)]
    return PureExplorationEnv(
        LinearGaussian(np.eye(8), theta, sigma=1.0),
        AllEpsilonGood(0.5),
        delta=delta,
        budget=budget,
        name="static d=8",
    )


def adaptive_instance(delta=None, budget=None):
    d = 8
    arms = list(np.eye(d))
    for i in (1, 2):
        c = (1.0 - 0.1 * i) / 1.2
        x = np.zeros(d)
        x[0], x[-1] = c, math.sqrt(1.0 - c * c)
        arms.append(x)
    theta = np.r_[1.2, 1.15, 1.1, 1.05, np.zeros(4)]
    return PureExplorationEnv(
        LinearGaussian(np.array(arms), theta, sigma=1.0),
        AllEpsilonGood(0.2),
        delta=delta,
        budget=budget,
        name="adaptive d=8 eps=0.2",
    )


def agents(tau):
    return {
        "BayesGap": ("fb", BayesGap),
        "KGCB": ("fb", KGCB),
        "LazyTTS(tau)": ("fc", lambda: LazyTTS(threshold=tau)),
        "LazyTTS(tau, heur)": ("fc", lambda: LazyTTS(threshold=tau, glr_threshold="heuristic")),
        "LazyTTS(None)": ("fc", LazyTTS),
        "LazyTTS(None, heur)": ("fc", lambda: LazyTTS(glr_threshold="heuristic")),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--budget", type=int, default=10_000)
    parser.add_argument("--delta", type=float, default=0.05)
    parser.add_argument("--agents", default=None, help="comma-separated subset of the names")
    parser.add_argument("--instances", default="static,adaptive")
    args = parser.parse_args()
    print(
        f"{'instance':22} {'agent':20} {'samples':>9} {'exact':>6} {'F1':>6} "
        f"{'s/episode':>9} {'median':>8} {'µs/pull':>8} {'paper s':>8}",
        flush=True,
    )
    for name in args.instances.split(","):
        make, tau, col = (
            (static_instance, 0.5, 1) if name == "static" else (adaptive_instance, 1.0, 0)
        )
        for label, (setting, factory) in agents(tau).items():
            if args.agents and label not in args.agents.split(","):
                continue
            env = make(budget=args.budget) if setting == "fb" else make(delta=args.delta)
            samples, exact, f1, walls = [], [], [], []
            for seed in range(args.seeds):
                agent = factory()
                t0 = time.perf_counter()
                rec = run_episode(env, agent, seed)
                walls.append(time.perf_counter() - t0)
                samples.append(rec.samples)
                exact.append(rec.correct)
                f1.append(rec.f1)
            paper = PAPER.get(label.split("(")[0])
            shown = f"{paper[col]:8.3f}" if paper else f"{'':8}"
            w = np.asarray(walls)
            print(
                f"{env.name:22} {label:20} {np.mean(samples):9.0f} {np.mean(exact):6.2f} "
                f"{np.mean(f1):6.3f} {w.mean():9.3f} {np.median(w):8.3f} "
                f"{1e6 * w.sum() / max(sum(samples), 1):8.1f} {shown}",
                flush=True,
            )


if __name__ == "__main__":
    main()
