"""Phase-based agents (RAGE, GEGE, LinFACT) as K and h grow: seconds per episode.

The library's target: a phase-based agent's episode at K = 10⁴ arms, h = 50 in ≤ 10 s. Instances are
seeded random linear problems with a *planted* answer, so that their difficulty does not grow with
K and h (unit-norm features, σ = 1, fixed confidence δ = 0.1):

* best arm (RAGE): θ = e₁, the best arm is e₁, every other arm has x₁ ≤ 0.7 (gap ≥ 0.3);
* Pareto set (GEGE): objectives x₁ and x₂, five Pareto arms on the unit quarter circle, every other
  arm with (x₁, x₂) inside the disc of radius 0.7;
* all ε-good (LinFACT-G, ε = 0.1): θ = e₁, three arms with x₁ ∈ {1, 0.97, 0.95}, the others
  x₁ ≤ 0.7.

Each cell runs in its own process with a time limit (``--limit``, default 120 s, which also
covers the environment's one-off complexity computation, timed in its own column); a cell over the
limit is reported as such, and the larger cells of that agent are skipped. The batch path is used
(all three agents offer it), so the time is the agents' own computation (designs, estimates,
eliminations), not the sampling.
Run: ``python benchmarks/bench_phase_scaling.py [--limit 120] [--quick] [--agents RAGE GEGE]``.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import time

import numpy as np

CELLS = [(100, 5), (100, 20), (1000, 20), (1000, 50), (10_000, 20), (10_000, 50)]


def _rest(k: int, h: int, rng: np.random.Generator, radius: float, dims: int) -> np.ndarray:
    """``k`` unit vectors whose first ``dims`` coordinates have norm ≤ ``radius``."""
    x = rng.normal(size=(k, h))
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    head = np.linalg.norm(x[:, :dims], axis=1)
    shrink = np.minimum(1.0, radius * rng.uniform(0.2, 1.0, size=k) / np.maximum(head, 1e-12))
    x[:, :dims] *= shrink[:, None]
    tail = np.linalg.norm(x[:, dims:], axis=1, keepdims=True)
    x[:, dims:] *= np.sqrt(
        np.maximum(1.0 - np.sum(x[:, :dims] ** 2, axis=1, keepdims=True), 0.0)
    ) / np.maximum(tail, 1e-12)
    return x


def build(agent: str, k: int, h: int):
    """The environment of a cell (a Custom id with a planted answer)."""
    import gymnasium as gym

    import bandit_envs  # noqa: F401

    rng = np.random.default_rng(1000 * k + h)
    if agent == "GEGE":
        angles = np.linspace(0.1, np.pi / 2 - 0.1, 5)
        front = np.zeros((5, h))
        front[:, 0], front[:, 1] = np.cos(angles), np.sin(angles)
        x = np.vstack([front, _rest(k - 5, h, rng, 0.7, 2)])
        theta = np.zeros((h, 2))
        theta[0, 0] = theta[1, 1] = 1.0
        return gym.make("LinearPSI-Custom-v0", features=x, theta=theta, sigma=1.0, delta=0.1)
    theta = np.zeros(h)
    theta[0] = 1.0
    if agent == "RAGE":
        top = np.zeros((1, h))
        top[0, 0] = 1.0
        x = np.vstack([top, _rest(k - 1, h, rng, 0.7, 1)])
        return gym.make("LinearBAI-Custom-v0", features=x, theta=theta, sigma=1.0, delta=0.1)
    top = np.zeros((3, h))
    top[:, 0] = (1.0, 0.97, 0.95)
    top[:, 1] = np.sqrt(1.0 - top[:, 0] ** 2)
    x = np.vstack([top, _rest(k - 3, h, rng, 0.7, 1)])
    return gym.make(
        "LinearEpsGood-Custom-v0", features=x, theta=theta, epsilon=0.1, sigma=1.0, delta=0.1
    )


def _cell(agent: str, k: int, h: int, queue: mp.Queue) -> None:
    import bandit_envs
    import registry

    env = build(agent, k, h)
    name = {"LinFACT": "LinFACTG"}.get(agent, agent)
    # The environment's complexity (T*(θ) for best arm: a design solve over K − 1 targets at a
    # tight tolerance; Pareto gaps; the ε-good lower bound) is computed once per instance, cached,
    # and reported in the final info. Computed here first and timed apart, so that the episode
    # column is the agent's work plus sampling and grading.
    c0 = time.perf_counter()
    env.unwrapped.complexity()
    complexity_s = time.perf_counter() - c0
    t0, p0 = time.perf_counter(), time.process_time()
    record = bandit_envs.run_episode(env, registry.make_agent(name), 0)
    queue.put(
        (
            time.perf_counter() - t0,
            time.process_time() - p0,
            complexity_s,
            record.samples,
            record.correct,
        )
    )


def main() -> None:
    """Run the grid and print a Markdown table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=float, default=120.0)
    parser.add_argument("--quick", action="store_true", help="only K ≤ 1000")
    parser.add_argument(
        "--agents",
        nargs="+",
        choices=("RAGE", "GEGE", "LinFACT"),
        default=["RAGE", "GEGE", "LinFACT"],
        help="which agents (default: all)",
    )
    args = parser.parse_args()
    cells = [c for c in CELLS if not args.quick or c[0] <= 1000]
    print(
        "| agent | K | h | s/episode (wall) | s/episode (CPU) | samples | correct "
        "| env complexity, once per instance (s) |"
    )
    print("|---|---|---|---|---|---|---|---|")
    ctx = mp.get_context("spawn")
    for agent in args.agents:
        over = False
        for k, h in cells:
            if over:
                print(
                    f"| {agent} | {k} | {h} | skipped (a smaller cell was over the limit) | | | | |"
                )
                continue
            queue = ctx.Queue()
            proc = ctx.Process(target=_cell, args=(agent, k, h, queue))
            proc.start()
            proc.join(args.limit)
            if proc.is_alive():
                proc.terminate()
                proc.join()
                over = True
                print(f"| {agent} | {k} | {h} | > {args.limit:g} (stopped) | | | | |", flush=True)
                continue
            if queue.empty():
                print(f"| {agent} | {k} | {h} | crashed (exit code {proc.exitcode}) | | | | |")
                continue
            seconds, cpu, complexity_s, samples, correct = queue.get()
            print(
                f"| {agent} | {k} | {h} | {seconds:.3g} | {cpu:.3g} | {samples:.3g} | {correct} "
                f"| {complexity_s:.3g} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
