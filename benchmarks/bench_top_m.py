"""m-LinGapE and LinGIFA on the LinFACT paper's d = 8 instances: samples, errors, time per episode.

Run from the repository root: ``python benchmarks/bench_top_m.py [--seeds 20] [--quick]
[--scaling]``. Instances (Li et al., EC.12.1–EC.12.2, δ = 0.05, N(0, 1) noise, m = E[m̃] = 4 as
the paper gives its top-m baselines):

* static d = 8: arms e_1..e_8, θ = (1, 1, 1, 1, 0, 0, 0, 0), ε = 0.5 (Table 1 setting 7);
* adaptive d = 8, ε = 0.2 with the on-threshold fix: θ = (1.2, 1.15, 1.1, 1.05, 0, 0, 0, 0),
  e_1..e_8 and n = 2 disturbing arms x_i = (c_i, 0, …, 0, √(1 − c_i²)), μ(x_i) = 1 − 0.2·i/2,
  c_i = μ(x_i)/1.2 (Table 1 setting 2, m̃ = 4, X̃ = 1).

The paper's Table 2 times (seconds per run, their code and machine) are printed next to ours.
``--scaling`` times one decision (the pair indices, J(t), b_t, c_t) on a Free-Wilson-shaped
instance (960 compounds, 21 indicator features of rank 16, m = 20) and smaller slices of it, with
the exact pruning and with the dense K × K computation (``np.partition`` per column for LinGIFA).
A reference line gives the one-pull cost of ``Uniform`` in the same process, since the shared
machine's load changes every timing.
"""

from __future__ import annotations

import argparse
import itertools
import math
import time

import numpy as np

from agents import Uniform
from agents.eps_good.top_m import LinGIFA, MLinGapE
from bandit_envs import run_episode
from bandit_envs.core.env import PureExplorationEnv
from bandit_envs.core.models import LinearGaussian
from bandit_envs.core.tasks import AllEpsilonGood, BestArm

DELTA = 0.05
PAPER_SECONDS = {  # Li et al.'s Table 2: (instance, agent) -> s per run
    ("static d=8", "MLinGapE"): 0.116,
    ("static d=8", "LinGIFA"): 0.160,
    ("adaptive d=8 ε=0.2", "MLinGapE"): 0.166,
    ("adaptive d=8 ε=0.2", "LinGIFA"): 0.265,
}
CONFIGS = {
    "m=4, self_normalized_ols (default width)": (dict(m=4), True),
    "m=4, heuristic width": (dict(m=4, confidence="heuristic"), False),
    "m=None (re-estimated), default width": (dict(), True),
}


def static_env() -> PureExplorationEnv:
    theta = np.array([1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0])
    return PureExplorationEnv(
        LinearGaussian(np.eye(8), theta, 1.0), AllEpsilonGood(0.5), delta=DELTA, name="static d=8"
    )


def adaptive_env(eps: float = 0.2) -> PureExplorationEnv:
    rows = list(np.eye(8))
    for i in (1, 2):
        c = (1.0 - eps * i / 2) / 1.2
        x = np.zeros(8)
        x[0], x[-1] = c, math.sqrt(1.0 - c * c)
        rows.append(x)
    theta = np.array([1.2, 1.15, 1.1, 1.05, 0.0, 0.0, 0.0, 0.0])
    return PureExplorationEnv(
        LinearGaussian(np.array(rows), theta, 1.0),
        AllEpsilonGood(eps),
        delta=DELTA,
        name=f"adaptive d=8 ε={eps}",
    )


def uniform_us_per_pull(pulls: int = 50_000) -> float:
    model = LinearGaussian(np.eye(8), np.arange(8.0), 1.0)
    env = PureExplorationEnv(model, BestArm(), budget=pulls)
    start = time.perf_counter()
    run_episode(env, Uniform(), 0, batch=False)
    return (time.perf_counter() - start) / pulls * 1e6


def episodes(seeds: int, quick: bool) -> None:
    print(
        "| instance | agent | configuration | seeds | mean samples | error rate | mean F1 | "
        "s/episode | µs/pull | paper s/run |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    configs = dict(list(CONFIGS.items())[:1]) if quick else CONFIGS
    for env in (static_env(), adaptive_env()):
        for agent_cls, (label, (params, _)) in itertools.product(
            (MLinGapE, LinGIFA), configs.items()
        ):
            start = time.perf_counter()
            records = [run_episode(env, agent_cls(**params), s) for s in range(seeds)]
            wall = (time.perf_counter() - start) / seeds
            samples = float(np.mean([r.samples for r in records]))
            errors = float(np.mean([not r.correct for r in records]))
            f1 = float(np.mean([r.f1 for r in records]))
            paper = PAPER_SECONDS[(env.name, agent_cls.__name__)]
            print(
                f"| {env.name} | {agent_cls.__name__} | {label} | {seeds} | {samples:,.0f} | "
                f"{errors:.3f} | {f1:.3f} | {wall:.3f} | {wall / samples * 1e6:.1f} | "
                f"{paper} |",
                flush=True,
            )


def free_wilson(n_keep: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Indicator features of 4·5·4·3·4 = 960 compounds (a base column + one-hot sites, rank 16)."""
    sites = (4, 5, 4, 3, 4)
    rows = []
    for combo in itertools.product(*(range(n) for n in sites)):
        x = [1.0]
        for n, pick in zip(sites, combo, strict=True):
            x += [1.0 if i == pick else 0.0 for i in range(n)]
        rows.append(x)
    features = np.array(rows)[rng.permutation(960)[:n_keep]]
    return features, rng.normal(scale=0.3, size=features.shape[1])


def decision_us(agent, prune: bool, repeat: int) -> float:
    agent._prune = prune
    if not prune and agent._full:
        agent._dense = np.empty((agent.n_arms, agent.n_arms))
    start = time.perf_counter()
    for _ in range(repeat):
        agent._decide()
    return (time.perf_counter() - start) / repeat * 1e6


def scaling(pulls: int = 4000) -> None:
    print(
        "\nOne decision (µs), Free-Wilson-shaped features (rank 16), m = 20, heuristic width, "
        f"after {pulls} pulls:"
    )
    print("| K | agent | pruned | dense | pruned sets (rows × cols) |")
    print("|---|---|---|---|---|")
    rng = np.random.default_rng(0)
    for k in (100, 400, 960):
        features, theta = free_wilson(k, rng)
        means = np.sort(features @ theta)[::-1]
        eps = float(means[0] - (means[19] + means[20]) / 2)
        env = PureExplorationEnv(
            LinearGaussian(features, theta, 1.0),
            AllEpsilonGood(eps),
            delta=DELTA,
            max_samples=10**7,
        )
        for agent_cls in (MLinGapE, LinGIFA):
            agent = agent_cls(m=20, confidence="heuristic")
            _, info = env.reset(seed=0)
            agent.reset(info["problem"], np.random.default_rng(0))
            for _ in range(pulls):
                arm = agent.select()
                if arm is None:
                    break
                obs, *_ = env.step(arm)
                agent.observe(arm, obs)
            c = agent._width()
            if agent_cls is LinGIFA:
                rows, cols = agent._prune_indices(20, c)
            else:
                rows, cols = agent._prune_pairs(
                    agent._in_j.nonzero()[0], (~agent._in_j).nonzero()[0], c
                )
            fast = decision_us(agent, True, 200)
            slow = decision_us(agent, False, 20 if k > 400 else 50)
            print(
                f"| {k} | {agent_cls.__name__} | {fast:,.0f} | {slow:,.0f} | "
                f"{rows.size} × {cols.size} |",
                flush=True,
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--quick", action="store_true", help="only the default configuration")
    parser.add_argument("--scaling", action="store_true", help="also time decisions at large K")
    args = parser.parse_args()
    print(f"reference: Uniform, single path, run_episode: {uniform_us_per_pull():.1f} µs/pull")
    episodes(args.seeds, args.quick)
    if args.scaling:
        scaling()
    print(f"reference: Uniform, single path, run_episode: {uniform_us_per_pull():.1f} µs/pull")


if __name__ == "__main__":
    main()
