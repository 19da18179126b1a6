"""Per-pull cost of the sequential agents (LinGapE, linear Track-and-Stop, APE) vs K and h.

The library's target: a sequential agent costs ≤ 10 µs per pull at K = 1000 arms, h = 20,
amortised and including its stopping test (by design O(K·h + h²) per pull: incremental inverses, no
Python loop over arms).

**What is timed.** The agent alone: ``select()`` + ``observe()`` in a plain loop, the outcome of
the chosen arm being ``means[arm] + σ·noise`` with the noise drawn before the timing (so the
environment's own cost — see ``bench_env_throughput.py`` — is not counted; the driver's own cost,
measured with a constant agent, is printed first). Costs are **amortised over a fixed number of
pulls from reset**, N = 20 000 + 2K (``--quick``: 5 000 + 2K; Track-and-Stop: 5 000 + 2K and
2 000 + 2K, because of its design solves), everything included — ``reset``, the initial round,
set-up, design solves and every stopping test. An episode that stops before N pulls is followed
by fresh episodes (next seeds) until N pulls are made; the number of episodes is printed.
``steady`` is the cost of the pulls after the first 2K (initial round and set-up excluded),
on the wall clock and on the process CPU clock (``process_time``, which other processes on the
shared 2-core machine barely move; the wall clock can double under load). Best of ``--repeats``
runs (3; ``--quick``, K = 10⁴ and Track-and-Stop: 1), with LinGapE's memo of ratio-rule LPs
cleared before each run (cold). For Track-and-Stop the time inside its design solves
(``_solve``, i.e. :func:`bandit_envs.theory.design.transductive_design`) is measured too, and the
cost without them.

**Instances.** Linear best arm: ``LinearBAI-Custom-v0`` with K seeded Gaussian features on the
unit sphere of R^h, θ = u + 0.45 (v − u) for arm u = 0 and its nearest neighbour v (u is the best
arm and v trails it by 0.1 (1 − uᵀv): a sphere-like instance as in PELEG's setting 2, built in
O(K h)), σ = 1, δ = 0.05. Episodes then last thousands of pulls at K = 1000 and run past N at
K = 10⁴ or small h, so the stopping test is evaluated at every pull. APE is unstructured: its
cost depends on K and on the number of objectives d, not on h, so it runs on
``LinearPSI-Custom-v0`` with the same kind of features and a seeded Gaussian h × d parameter
(h = 20), σ = 0.5, δ = 0.1, for d ∈ {2, 5} (the ``h`` column then reads d). Skipped: APE at
K = 10⁴ (its state holds two K × K matrices, 1.6 GB), Track-and-Stop at K = 10⁴ or h = 50
(seconds to minutes per design solve; ``--all`` runs them).

**Split** (``--profile``): cProfile of one episode per agent at K = 1000, h = 20 (APE: d = 2),
after its first 2K pulls: the shares of ``select`` and ``observe`` and, inside them, of the
stopping test, of the statistics update (LinGapE's and Track-and-Stop's rank-one updates, APE's
row and column updates of its pairwise matrices) and of the design solves (proportions: cProfile
inflates Python-heavy code).

Usage (repository root): ``python benchmarks/bench_sequential_scaling.py [--quick] [--profile]
[--repeats 3] [--agents lingape-greedy,lingape-ratio,tas,ape] [--K 10,100,1000,10000]
[--h 2,5,20,50] [--all]``; ``--quick`` (K ≤ 1000, h ∈ {2, 20}) takes about ten minutes, most of
it Track-and-Stop's design solves.
"""

from __future__ import annotations

import argparse
import cProfile
import dataclasses
import math
import pstats
import time
from collections.abc import Callable

import gymnasium as gym
import numpy as np

import bandit_envs  # noqa: F401
from agents.common.design_cache import DESIGNS
from agents.linear_bai.lingape import LinGapE
from agents.linear_bai.track_and_stop import LinearTrackAndStop
from agents.pareto.psi_confidence import APE
from bandit_envs.core.problem import ProblemSpec

#: agents of the table: a factory and the family of instance it runs on.
AGENTS: dict[str, tuple[Callable[[], object], str]] = {
    "lingape-greedy": (lambda: LinGapE(), "linear"),
    "lingape-ratio": (lambda: LinGapE(selection="ratio"), "linear"),
    "tas": (lambda: LinearTrackAndStop(), "linear"),
    "tas-heuristic": (lambda: LinearTrackAndStop(threshold="heuristic"), "linear"),
    "ape": (lambda: APE(), "pareto"),
}
DEFAULT_AGENTS = ("lingape-greedy", "lingape-ratio", "tas", "ape")
APE_OBJECTIVES = (2, 5)


@dataclasses.dataclass
class Instance:
    """What the driver needs: the public spec, the true means (K, m) and the noise level."""

    spec: ProblemSpec
    means: np.ndarray
    sigma: float


def linear_instance(k: int, h: int, seed: int = 0) -> Instance:
    """``LinearBAI-Custom-v0``: unit-norm Gaussian features, θ = u + 0.45 (v − u) (see above)."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((k, h))
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    inner = x @ x[0]
    inner[0] = -np.inf
    v = int(np.argmax(inner))
    theta = x[0] + 0.45 * (x[v] - x[0])
    env = gym.make(
        "LinearBAI-Custom-v0", features=x, theta=theta, sigma=1.0, delta=0.05, max_samples=10**9
    )
    _, info = env.reset(seed=0)
    return Instance(info["problem"], np.asarray(env.unwrapped.model.means), 1.0)


def pareto_instance(k: int, d: int, h: int = 20, seed: int = 0) -> Instance:
    """``LinearPSI-Custom-v0``: the same features, a Gaussian h × d parameter, σ = 0.5."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((k, h))
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    theta = rng.standard_normal((h, d))
    env = gym.make(
        "LinearPSI-Custom-v0", features=x, theta=theta, sigma=0.5, delta=0.1, max_samples=10**9
    )
    _, info = env.reset(seed=0)
    return Instance(info["problem"], np.asarray(env.unwrapped.model.means), 0.5)


def drive(
    make_agent: Callable[[], object],
    inst: Instance,
    pulls: int,
    warm: int,
    seed: int = 0,
    clock: Callable[[], float] = time.perf_counter,
) -> tuple[float, float, int]:
    """Agent-only loop over ``pulls`` pulls from reset (fresh episodes when one stops).

    Returns ``(total seconds, seconds after the first warm pulls, episodes)`` read on ``clock``.
    """
    k, m = inst.means.shape
    noise = inst.sigma * np.random.default_rng(seed + 1).standard_normal((pulls, m))
    means = inst.means
    n, episodes, warm_time = 0, 0, 0.0
    start = clock()
    while n < pulls:
        agent = make_agent()
        agent.reset(inst.spec, np.random.default_rng(seed + episodes))
        episodes += 1
        select, observe = agent.select, agent.observe
        while n < pulls:
            arm = select()
            if arm is None:
                break
            y = noise[n]
            y += means[arm]
            observe(arm, y)
            n += 1
            if n == warm:
                warm_time = clock() - start
    total = clock() - start
    return total, total - warm_time, episodes


class _Constant:
    """A do-nothing agent (always arm 0), to measure the driver's own cost."""

    def reset(self, spec: ProblemSpec, rng: np.random.Generator) -> None:
        pass

    def select(self) -> int:
        return 0

    def observe(self, arm: int, outcome: np.ndarray) -> None:
        pass


def instance_for(name: str, k: int, h: int) -> Instance:
    """The instance an agent runs on (APE: h is read as the number of objectives d)."""
    family = AGENTS[name][1]
    return pareto_instance(k, h) if family == "pareto" else linear_instance(k, h)


@dataclasses.dataclass
class Row:
    """One line of the table (times in µs per pull, best of the repeats)."""

    amortised: float
    steady: float
    cpu_steady: float
    episodes: int
    solves: int = 0
    solve_share: float = 0.0  # fraction of the time spent in design solves


def _with_timed_solves(name: str, spent: list) -> Callable[[], object]:
    """A factory of agents whose design solves (``_solve``) add their time to ``spent``."""

    def make() -> object:
        agent = AGENTS[name][0]()
        solve = getattr(agent, "_solve", None)
        if solve is not None:

            def timed() -> None:
                start = time.perf_counter()
                solve()
                spent[0] += time.perf_counter() - start
                spent[1] += 1

            agent._solve = timed  # type: ignore[attr-defined]
        return agent

    return make


def measure(name: str, k: int, h: int, pulls: int, repeats: int) -> Row:
    """Best-of-``repeats`` costs of one configuration, cold design memo at every repeat.

    Each repeat runs twice: once on the wall clock (``perf_counter``) and once on the process
    CPU clock (``process_time``, barely moved by other processes on the shared machine).
    Track-and-Stop's design solves (``_solve``) are timed separately, so that the table can
    also show the cost of everything else.
    """
    inst = instance_for(name, k, h)
    warm = min(2 * k, pulls - 1)
    best: Row | None = None
    for _ in range(repeats):
        DESIGNS.clear()  # cold: LinGapE's ratio-rule LPs are memoised process-wide
        spent = [0.0, 0]
        total, steady, episodes = drive(_with_timed_solves(name, spent), inst, pulls, warm)
        if name.startswith("tas"):
            cpu = math.nan  # a second run would double minutes of design solves
        else:
            DESIGNS.clear()
            cpu = drive(AGENTS[name][0], inst, pulls, warm, clock=time.process_time)[1]
            cpu = cpu / (pulls - warm) * 1e6
        row = Row(
            total / pulls * 1e6,
            steady / (pulls - warm) * 1e6,
            cpu,
            episodes,
            spent[1],
            spent[0] / total,
        )
        if best is None or row.amortised < best.amortised:
            best = Row(
                row.amortised,
                row.steady,
                min(cpu, best.cpu_steady) if best else cpu,
                episodes,
                row.solves,
                row.solve_share,
            )
        elif cpu < best.cpu_steady:
            best.cpu_steady = cpu
    assert best is not None
    return best


#: per agent family: (label, function, caller) whose cumulative profiled times make the split
#: (``_steady_pulls`` is the profiled loop); the stopping test is LinGapE's ``_decide`` (the gap
#: index B(t), which also gives the pair to sample; inside ``select``), Track-and-Stop's GLR test
#: (the O(h) certificate, the full statistic and β; inside ``observe``) and APE's ``_stop_test``
#: (inside ``select``).
SPLIT = {
    "lingape": [
        ("select", "select", "_steady_pulls"),
        ("observe", "observe", "_steady_pulls"),
        ("stopping test", "_decide", "select"),
        ("state update", "_on_observe", "observe"),
    ],
    "tas": [
        ("select", "select", "_steady_pulls"),
        ("observe", "observe", "_steady_pulls"),
        ("stopping test", "_glr_certainly_below", "_on_observe"),
        ("stopping test", "_glr", "_on_observe"),
        ("stopping test", "_threshold_value", "_on_observe"),
        ("state update", "_on_observe", "observe"),
        ("state update", "-_glr_certainly_below", "_on_observe"),
        ("state update", "-_glr", "_on_observe"),
        ("state update", "-_threshold_value", "_on_observe"),
        ("design solves", "_solve", "select"),
    ],
    "ape": [
        ("select", "select", "_steady_pulls"),
        ("observe", "observe", "_steady_pulls"),
        ("stopping test", "_stop_test", "select"),
        ("state update", "_flush", "select"),
    ],
}
SPLIT_COLUMNS = ("select", "observe", "stopping test", "state update", "design solves")


def _steady_pulls(agent: object, inst: Instance, noise: np.ndarray, start: int) -> int:
    """Pulls ``start`` … of one episode (the profiled part); returns the pulls made."""
    select, observe, means = agent.select, agent.observe, inst.means
    n = start
    while n < noise.shape[0]:
        arm = select()
        if arm is None:
            break
        y = noise[n]
        y += means[arm]
        observe(arm, y)
        n += 1
    return n


def profile_split(name: str, k: int, h: int, pulls: int) -> dict[str, float]:
    """Shares of the profiled time in select, observe, the stopping test and design solves.

    One episode: its first 2K pulls (initial round, set-up) run unprofiled, the next ``pulls``
    under cProfile. cProfile's own cost per Python call inflates the Python-heavy parts; read
    the split as proportions, not as times.
    """
    inst = instance_for(name, k, h)
    DESIGNS.clear()
    warm = 2 * k
    shape = (warm + pulls, inst.means.shape[1])
    noise = inst.sigma * np.random.default_rng(1).standard_normal(shape)
    agent = AGENTS[name][0]()
    agent.reset(inst.spec, np.random.default_rng(0))
    if _steady_pulls(agent, inst, noise[:warm], 0) < warm:
        raise RuntimeError(f"{name} stopped during the warm-up; use a harder instance.")
    prof = cProfile.Profile()
    prof.enable()
    _steady_pulls(agent, inst, noise, warm)
    prof.disable()
    stats = pstats.Stats(prof).stats  # type: ignore[attr-defined]
    total = sum(v[2] for v in stats.values())  # tottime of every function
    out = dict.fromkeys(SPLIT_COLUMNS, 0.0)
    for label, func, caller in SPLIT[name.split("-")[0]]:
        sign = -1.0 if func.startswith("-") else 1.0  # "-f": subtract f's time
        for (path, _, fname), (_, _, _, _, callers) in stats.items():
            if fname == func.lstrip("-") and "agents" in path:
                out[label] += sign * sum(
                    v[3] for (_, _, cname), v in callers.items() if cname == caller
                )
    return {key: value / total for key, value in out.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--quick",
        action="store_true",
        help="K ∈ {10, 100, 1000}, h ∈ {2, 20}, N = 5000 + 2K, 1 repeat",
    )
    parser.add_argument("--repeats", type=int, default=None)
    parser.add_argument("--agents", default=",".join(DEFAULT_AGENTS))
    parser.add_argument("--K", default=None)
    parser.add_argument("--h", default=None)
    parser.add_argument("--profile", action="store_true", help="the split at K = 1000, h = 20")
    parser.add_argument("--all", action="store_true", help="also Track-and-Stop at K = 10⁴")
    args = parser.parse_args()
    ks = [10, 100, 1000] if args.quick else [10, 100, 1000, 10_000]
    hs = [2, 20] if args.quick else [2, 5, 20, 50]
    if args.K:
        ks = [int(v) for v in args.K.split(",")]
    if args.h:
        hs = [int(v) for v in args.h.split(",")]
    repeats = args.repeats or (1 if args.quick else 3)
    base = 5_000 if args.quick else 20_000
    tas_base = 2_000 if args.quick else 5_000  # Track-and-Stop: seconds per design solve
    names = args.agents.split(",")
    driver = drive(_Constant, linear_instance(100, 2), 100_000, 1)[0] / 100_000 * 1e6
    print(f"driver (constant agent): {driver:.2f} µs per pull")
    print(
        "| agent | K | h | pulls N | episodes | µs/pull amortised | µs/pull steady | "
        "µs/pull steady (CPU) | design solves | µs/pull without solves |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name in names:
        tas = name.startswith("tas")
        for k in ks:
            for h in hs:
                if name == "ape" and (k >= 10_000 or h not in APE_OBJECTIVES):
                    continue
                if tas and (k >= 10_000 or h > 20) and not args.all:
                    continue
                pulls = (tas_base if tas else base) + 2 * k
                row = measure(name, k, h, pulls, 1 if tas or k >= 10_000 else repeats)
                solves = f"{row.solves} ({100 * row.solve_share:.0f} %)" if tas else "–"
                rest = f"{row.amortised * (1 - row.solve_share):.1f}" if tas else "–"
                cpu = "–" if math.isnan(row.cpu_steady) else f"{row.cpu_steady:.1f}"
                print(
                    f"| {name} | {k} | {h} | {pulls} | {row.episodes} | {row.amortised:.1f} | "
                    f"{row.steady:.1f} | {cpu} | {solves} | {rest} |",
                    flush=True,
                )
    if args.profile:
        print(
            "\n| agent (K = 1000, h = 20; APE: d = 2) | select | observe | of which: "
            "stopping test | of which: state update | of which: design solves |"
        )
        print("|---|---|---|---|---|---|")
        for name in names:
            h = 2 if name == "ape" else 20
            pulls = (tas_base if name.startswith("tas") else base) + 2000
            split = profile_split(name, 1000, h, pulls)
            print(
                f"| {name} | "
                + " | ".join(f"{100 * split[key]:.0f} %" for key in SPLIT_COLUMNS)
                + " |",
                flush=True,
            )


if __name__ == "__main__":
    main()
