"""Per-pull cost of the sample-efficient agents next to the physical floor and the reference code.

One row per figure of the "compiled speed" targets (docs/performance.md, section 5): for each, our
cost on the CPU clock (``time.process_time``, barely moved by other processes) and the wall clock
(``time.perf_counter``), read in the same run; the *physical floor* of the row; their ratio; and,
where the authors' code is public, the paired cost of a model of the reference code's per-pull
work, run in the same process.

**What is timed.**

* Sequential agents (``lingape-greedy`` … ``lingifa``): the agent alone — ``select()`` +
  ``observe()`` in a plain loop, the outcome ``means[arm] + σ·noise`` with the noise drawn before
  the clock starts (the environment's own cost is the ``env-pull`` row). ``steady``: µs per pull
  over the pulls after the first 2K (initial round and set-up excluded); ``amortised``: over all
  pulls from reset, everything included (set-up, design solves, every stopping test). An episode
  that stops early is followed by fresh ones until the pulls are made.
* Episode rows (``lingape-soare``, ``g-allocation`` … ``fully-adaptive-xy``): one
  fixed-confidence episode through ``env.unwrapped.step`` (environment included, complexity not
  computed), seconds and µs per pull.
* ``env-pull``: one ``env.unwrapped.step(arm)`` on the linear Gaussian model at K, h.
* ``xy-design``: :func:`bandit_envs.theory.design.xy_design` on all pairs of seeded Gaussian
  features at K = 10⁴, h = 50 (``--design-K``, ``--design-h``): cold, and warm from the cold
  optimum after the features move by 10⁻³ (a new θ̂).
* ``rage``: one RAGE episode on the planted instance of ``bench_phase_scaling.py`` at the same
  K, h, batch path (environment sampling included, complexity not computed).

**Warm process.** Before its clock starts, every agent row runs its agent untimed on a small
instance of the same family (:func:`warm_process`), so that the row does not carry the process's
one-off load of the compiled kernels from numba's cache (about 0.2 s, reported per agent by
``bench_compile.py``); the measured instance itself stays cold.

**Floor.** The multiply-adds a pull cannot avoid, turned into µs with this machine's measured
multiply-add rate — a cache-resident BLAS product ``X (K×h) @ V (h×128)`` of the row's size, best
of several calls (the rate is printed per size). Per pull, a sequential linear agent must at least
update its statistics (h² for a rank-one update of A⁻¹) and rescore its candidates (K·h):
K·h + h². APE (unstructured, d objectives): its pulled arm's pairwise statistics against every
other arm, 2·K·d. KGCB (Frazier, Powell & Dayanik 2009): the knowledge gradient of every
candidate needs the covariance of every pair of arms, updated by a rank-one step, K² + K·h.
``env-pull``: the mean x·θ (h) and one Gaussian draw (its cost measured from a batch of 10⁶
draws). XY design and RAGE: one certifying scan of all K(K−1)/2 pairs at the design, K(K−1)/2·h
(a design cannot be certified without it; RAGE's first phase is such a design). The floor is a
lower bound of a compiled implementation, not a target: the targets of the table (column
``target``) sit a few times above it.

**Reference cost models** (paired, same process, same clocks). Xu, Honda & Sugiyama (2018) publish
their experiment scripts (github.com/liyuan9988/LinGapE, Python 2). Per pull, their LinGapE script
updates A and b, solves for θ̂, computes each arm's confidence width with a fresh h×h inverse of A
(K inverses) and chooses the arm by K inverses of A + x xᵀ (the ``decide_arm`` step); their
adaptive XY script chooses each pull of the greedy XY allocation (Soare, Lazaric & Munos 2014) by
K inverses of A + x xᵀ and, for each, the largest of |Y| quadratic forms over the directions Y
(all pairs of arms). The models below do exactly that work, written for Python 3 and NumPy 2
(the scripts do not run under Python 3), and are timed over ``--reference-pulls`` pulls.

Usage (repository root)::

    python benchmarks/bench_per_pull.py [--markdown] [--rows lingape-greedy,xy-design,...]
        [--K 1000] [--h 20] [--pulls 20000] [--design-K 10000] [--design-h 50] [--quick]
        [--baseline DIR] [--code DIR] [--json] [--profile N]

``--baseline DIR`` is the paired before/after comparison: each row runs in two fresh processes,
one on the packages of the checkout DIR (e.g. a worktree of the commit before a change) and one
on this checkout's (or ``--code``'s), the order alternating from row to row, and the table puts
the two CPU and wall times side by side with the speed-up. DIR must have the same public names
(agent ids, env ids, ``agents.common.design_cache``).

``--quick`` (small sizes, a few hundred pulls, about 6 s) is the smoke test of
``tests/integration/test_bench_per_pull.py``; the full table takes about four minutes (most of it
Track-and-Stop's design solves, the XY design and RAGE at 10⁴ arms).
"""

from __future__ import annotations

import argparse
import cProfile
import dataclasses
import json
import math
import pstats
import subprocess
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

PACKAGES = ("agents", "bandit_envs", "registry")


def code_root(argv: list[str]) -> Path:
    """The checkout whose packages are measured: ``--code DIR``, else the one holding this script.

    Put ahead of any installed copy (an editable install may point at another checkout), before
    the packages are imported, so the numbers are those of the chosen code.
    """
    root = Path(__file__).resolve().parents[1]
    for i, arg in enumerate(argv):
        if arg == "--code" and i + 1 < len(argv):
            root = Path(argv[i + 1]).resolve()
        elif arg.startswith("--code="):
            root = Path(arg.split("=", 1)[1]).resolve()
    missing = [p for p in PACKAGES if not (root / p / "__init__.py").is_file()]
    if missing:
        sys.exit(
            f"bench_per_pull.py: --code {root} is not a checkout of the library (no "
            f"{', '.join(missing)} package there); give the folder that holds agents/, "
            "bandit_envs/ and registry/."
        )
    return root


CODE = code_root(sys.argv)
sys.path[:0] = [str(CODE), str(Path(__file__).resolve().parent)]

import gymnasium as gym  # noqa: E402
import numpy as np  # noqa: E402
from bench_phase_scaling import build as planted_instance  # noqa: E402

import bandit_envs  # noqa: E402, F401
import registry  # noqa: E402
from agents.common.design_cache import DESIGNS  # noqa: E402
from bandit_envs.core.problem import ProblemSpec  # noqa: E402
from bandit_envs.theory.design import xy_design  # noqa: E402

#: the columns of the table
HEAD = (
    "row",
    "instance",
    "measure",
    "CPU",
    "wall",
    "floor",
    "CPU / floor",
    "target",
    "reference model (CPU)",
    "reference / ours",
)


@dataclasses.dataclass
class Line:
    """One line of the table: a measure in ``unit`` on both clocks, its floor and target."""

    row: str
    instance: str
    measure: str
    unit: str  # "µs" (per pull) or "s"
    cpu: float
    wall: float
    floor: float  # same unit
    target: str
    reference: float = math.nan  # reference model, CPU, same unit

    def cells(self) -> list[str]:
        """The printed cells, in the order of ``HEAD``."""
        ref = "—" if math.isnan(self.reference) else _fmt(self.reference, self.unit)
        ratio = "—" if math.isnan(self.reference) else f"{self.reference / self.cpu:.1f}×"
        return [
            self.row,
            self.instance,
            self.measure,
            _fmt(self.cpu, self.unit),
            _fmt(self.wall, self.unit),
            _fmt(self.floor, self.unit),
            f"{self.cpu / self.floor:,.0f}×",
            self.target,
            ref,
            ratio,
        ]


def _fmt(value: float, unit: str) -> str:
    """A value with its unit, three significant digits."""
    if unit == "s":
        return f"{value:.3g} s"
    return f"{value:,.3g} µs" if value < 1000 else f"{value:,.0f} µs"


class Clock:
    """Both clocks read together: ``lap()`` returns (CPU, wall) seconds since the last lap."""

    def __init__(self) -> None:
        self.cpu, self.wall = time.process_time(), time.perf_counter()

    def lap(self) -> tuple[float, float]:
        cpu, wall = time.process_time(), time.perf_counter()
        out = (cpu - self.cpu, wall - self.wall)
        self.cpu, self.wall = cpu, wall
        return out


# ----------------------------------------------------------------------------- machine rates

_RATES: dict[tuple[int, int], float] = {}


def mac_rate(k: int, h: int) -> float:
    """Multiply-adds per second of a cache-resident BLAS product of the row's size (K×h @ h×128)."""
    key = (k, h)
    if key not in _RATES:
        rng = np.random.default_rng(0)
        rows = max(k, 256)
        x, v = rng.standard_normal((rows, h)), rng.standard_normal((h, 128))
        calls = max(1, int(2e7 // (rows * h * 128)))
        best = math.inf
        for _ in range(5):
            start = time.perf_counter()
            for _ in range(calls):
                x @ v
            best = min(best, (time.perf_counter() - start) / calls)
        _RATES[key] = rows * h * 128 / best
    return _RATES[key]


def gaussian_draw_seconds() -> float:
    """Seconds per standard normal draw, from a batch of 10⁶ (the draw's compiled cost)."""
    rng = np.random.default_rng(0)
    best = math.inf
    for _ in range(3):
        start = time.perf_counter()
        rng.standard_normal(10**6)
        best = min(best, (time.perf_counter() - start) / 1e6)
    return best


def floor_us(macs: float, k: int, h: int) -> float:
    """µs for ``macs`` multiply-adds at the rate measured for size (k, h)."""
    return macs / mac_rate(k, h) * 1e6


# ----------------------------------------------------------------------------- instances


@dataclasses.dataclass
class Instance:
    """What the agent-only driver needs: the public spec, the true means (K, m), σ, the truth."""

    spec: ProblemSpec
    means: np.ndarray
    sigma: float
    truth: dict[str, Any]


def _sphere(k: int, h: int, seed: int) -> np.ndarray:
    """``k`` seeded Gaussian features on the unit sphere of R^h."""
    x = np.random.default_rng(seed).standard_normal((k, h))
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def _instance(env: gym.Env, sigma: float) -> Instance:
    _, info = env.reset(seed=0)
    model = env.unwrapped.model
    return Instance(info["problem"], np.asarray(model.means), sigma, model.truth())


def linear_instance(k: int, h: int, budget: int | None = None) -> Instance:
    """Best arm on the sphere, θ = u + 0.45 (v − u) for arm u = 0 and its nearest neighbour v.

    The instance of ``bench_sequential_scaling.py``: episodes last thousands of pulls at K = 1000,
    so the stopping test runs at every pull. ``budget``: fixed budget instead of δ = 0.05.
    """
    x = _sphere(k, h, 0)
    inner = x @ x[0]
    inner[0] = -np.inf
    v = int(np.argmax(inner))
    theta = x[0] + 0.45 * (x[v] - x[0])
    setting = {"budget": budget} if budget else {"delta": 0.05, "max_samples": 10**9}
    env = gym.make("LinearBAI-Custom-v0", features=x, theta=theta, sigma=1.0, **setting)
    return _instance(env, 1.0)


def eps_good_instance(k: int, h: int) -> Instance:
    """All ε-good arms (ε = 0.05) on the same sphere features and θ, δ = 0.05."""
    x = _sphere(k, h, 0)
    inner = x @ x[0]
    inner[0] = -np.inf
    theta = x[0] + 0.45 * (x[int(np.argmax(inner))] - x[0])
    env = gym.make(
        "LinearEpsGood-Custom-v0",
        features=x,
        theta=theta,
        epsilon=0.05,
        sigma=1.0,
        delta=0.05,
        max_samples=10**9,
    )
    return _instance(env, 1.0)


def pareto_instance(k: int, d: int, h: int = 20) -> Instance:
    """Pareto set on the sphere features, a seeded Gaussian h × d parameter, σ = 0.5, δ = 0.1."""
    theta = np.random.default_rng(1).standard_normal((h, d))
    env = gym.make(
        "LinearPSI-Custom-v0",
        features=_sphere(k, h, 0),
        theta=theta,
        sigma=0.5,
        delta=0.1,
        max_samples=10**9,
    )
    return _instance(env, 0.5)


# ----------------------------------------------------------------------------- drivers


@dataclasses.dataclass
class Cost:
    """µs per pull (CPU, wall), steady and amortised, and the episodes it took."""

    steady_cpu: float
    steady_wall: float
    amortised_cpu: float
    amortised_wall: float
    episodes: int


def drive(make: Callable[[], Any], inst: Instance, pulls: int, warm: int) -> Cost:
    """Agent-only loop over ``pulls`` pulls from reset (fresh episodes when one stops)."""
    k, m = inst.means.shape
    noise = inst.sigma * np.random.default_rng(1).standard_normal((pulls, m))
    means = inst.means
    n, episodes = 0, 0
    warm_cpu = warm_wall = 0.0
    clock = Clock()
    while n < pulls:
        agent = make()
        agent.reset(inst.spec, np.random.default_rng(episodes))
        if hasattr(agent, "receive_truth"):
            agent.receive_truth(inst.truth)
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
                warm_cpu, warm_wall = clock.lap()
    cpu, wall = clock.lap()
    total_cpu, total_wall = warm_cpu + cpu, warm_wall + wall
    steady = max(pulls - warm, 1)
    return Cost(
        cpu / steady * 1e6,
        wall / steady * 1e6,
        total_cpu / pulls * 1e6,
        total_wall / pulls * 1e6,
        episodes,
    )


class _Constant:
    """A do-nothing agent (always arm 0): the interpreter's own cost of a select + observe."""

    def reset(self, spec: ProblemSpec, rng: np.random.Generator) -> None:
        pass

    def select(self) -> int:
        return 0

    def observe(self, arm: int, outcome: np.ndarray) -> None:
        pass


def driver_us() -> float:
    """CPU µs per pull of the agent-only loop with a do-nothing agent (100 000 pulls)."""
    return drive(_Constant, linear_instance(10, 2), 100_000, 1).amortised_cpu


def episode(
    env: gym.Env, agent: Any, seed: int = 0, batch: bool | None = None
) -> tuple[float, float, int]:
    """One episode through ``env.unwrapped``: CPU s, wall s, samples.

    ``batch``: the batch path (``select_batch``/``step_batch``) when the agent offers it
    (``None``, as ``run_episode``), or ``False`` for one pull at a time. The instance's
    complexity is never computed (it is not part of an episode's cost).
    """
    base = env.unwrapped
    _, info = base.reset(seed=seed)
    clock = Clock()
    agent.reset(info["problem"], np.random.default_rng(seed))
    if hasattr(agent, "receive_truth"):
        agent.receive_truth(base.model.truth())
    if batch is not False and hasattr(agent, "select_batch"):
        while (counts := agent.select_batch()) is not None:
            arr = np.asarray(counts)
            sums, _, terminated, truncated, _ = base.step_batch(arr)
            if terminated or truncated:
                break
            agent.observe_batch(arr.copy(), sums)
    else:
        step = base.step
        while (arm := agent.select()) is not None:
            outcome, _, terminated, truncated, _ = step(arm)
            if terminated or truncated:
                break
            agent.observe(arm, outcome)
    cpu, wall = clock.lap()
    return cpu, wall, base.samples


# ----------------------------------------------------------------------------- reference models


def reference_lingape_us(
    x: np.ndarray, theta: np.ndarray, pulls: int, delta: float = 0.05
) -> float:
    """CPU µs per pull of the per-pull work of Xu et al.'s LinGapE script (see the docstring)."""
    rng = np.random.default_rng(2)
    k, h = x.shape
    a, b = np.eye(h), np.zeros(h)
    for i in range(k):
        a += np.outer(x[i], x[i])
        b += x[i] * (x[i] @ theta + rng.standard_normal())
    clock = Clock()
    for t in range(k, k + pulls):
        theta_hat = np.linalg.solve(a, b)
        est = x @ theta_hat
        best = int(np.argmax(est))
        scale = np.sqrt(h * np.log(k * k * (1 + t) / delta)) + 2.0
        widths = np.array(
            [np.sqrt((xi - x[best]) @ np.linalg.inv(a) @ (xi - x[best])) * scale for xi in x]
        )
        other = int(np.argmax(est - est[best] + widths))
        y = x[best] - x[other]
        arm = int(np.argmin([y @ np.linalg.inv(a + np.outer(xi, xi)) @ y for xi in x]))
        a += np.outer(x[arm], x[arm])
        b += x[arm] * (x[arm] @ theta + rng.standard_normal())
    return clock.lap()[0] / pulls * 1e6


def reference_xy_us(x: np.ndarray, pulls: int) -> float:
    """CPU µs per pull of the greedy XY step of the authors' adaptive XY script (see above)."""
    k, h = x.shape
    pairs = np.array([x[i] - x[j] for i in range(k) for j in range(i + 1, k)])
    a = x.T @ x + 1e-6 * np.eye(h)
    clock = Clock()
    for _ in range(pulls):
        scores = []
        for xi in x:
            inv = np.linalg.inv(a + np.outer(xi, xi))
            scores.append(max(y @ inv @ y for y in pairs))
        arm = int(np.argmin(scores))
        a += np.outer(x[arm], x[arm])
    return clock.lap()[0] / pulls * 1e6


# ----------------------------------------------------------------------------- rows


@dataclasses.dataclass
class Sizes:
    """The sizes and pull counts of a run."""

    k: int
    h: int
    pulls: int
    tas_pulls: int
    bayes_k: int
    slow_pulls: int
    design_k: int
    design_h: int
    soare: dict[str, Any]
    soare_lingape: dict[str, Any]
    reference_pulls: int


SEQUENTIAL: dict[str, tuple[str, dict[str, Any], str, str]] = {
    # row: (agent, keywords, instance family, target µs steady)
    "lingape-greedy": ("LinGapE", {}, "linear", "≤ 5"),
    "lingape-ratio": ("LinGapE", {"selection": "ratio"}, "linear", "≤ 5"),
    "tas": ("LinearTrackAndStop", {}, "linear", "≤ 50 steady, ≤ 200 amortised"),
    "ape": ("APE", {}, "pareto", "≤ 5"),
    "bayesgap": ("BayesGap", {}, "budget", "≤ 10"),
    "kgcb": ("KGCB", {}, "budget", "≤ 20"),
    "lazytts": ("LazyTTS", {}, "eps", "LinGapE's class (≤ 5)"),
    "mlingape": ("MLinGapE", {}, "eps", "LinGapE's class (≤ 5)"),
    "lingifa": ("LinGIFA", {}, "eps", "LinGapE's class (≤ 5)"),
}
EPISODES: dict[str, str] = {
    "g-allocation": "GAllocation",
    "xy-allocation": "XYAllocation",
    "xy-oracle": "XYOracle",
    "fully-adaptive-xy": "FullyAdaptiveXY",
}
#: rows whose pulls cost milliseconds today: 2K + ``--slow-pulls`` pulls instead of ``--pulls``
SLOW = ("kgcb", "lazytts")
ROWS = (
    "env-pull",
    *SEQUENTIAL,
    "lingape-soare",
    *EPISODES,
    "xy-design",
    "rage",
)


def warm_process(agent: str, kwargs: dict[str, Any], family: str) -> None:
    """Run ``agent`` untimed on a small instance of its family (not the measured one).

    The first call of a compiled kernel in a process loads it from numba's cache (about 0.2 s
    for the first, a few ms for each next one; ``bench_compile.py`` reports it per agent). A
    row measures the agent's work on its instance, so the process pays that before the clock
    starts; the measured instance stays cold (its designs, sequences and first round count).
    """
    if family == "soare":
        env = gym.make("LinearBAI-Soare-v0", d=3, omega=0.5, delta=0.1)  # not a measured one
        episode(env, registry.make_agent(agent, **kwargs), seed=1)
        return
    small = {
        "linear": lambda: linear_instance(40, 5),
        "budget": lambda: linear_instance(20, 5, budget=300),
        "eps": lambda: eps_good_instance(40, 5),
        "pareto": lambda: pareto_instance(40, 2, 5),
    }[family]()
    drive(lambda: registry.make_agent(agent, **kwargs), small, 300, 1)
    DESIGNS.clear()


def sequential_row(name: str, s: Sizes) -> list[Line]:
    """Steady and amortised µs per pull of one sequential agent at K, h (agent only)."""
    agent, kwargs, family, target = SEQUENTIAL[name]
    if family == "budget":  # KGCB's pull is O(K²): the Bayesian rows have their own K
        s = dataclasses.replace(s, k=s.bayes_k)
    pulls = s.tas_pulls if name == "tas" else 2 * s.k + s.slow_pulls if name in SLOW else s.pulls
    if family == "pareto":
        inst, d = pareto_instance(s.k, 2), 2
        where = f"LinearPSI-Custom K={s.k}, h=20, d=2"
        floor = floor_us(2 * s.k * d, s.k, d)
    else:
        inst = {
            "linear": lambda: linear_instance(s.k, s.h),
            "budget": lambda: linear_instance(s.k, s.h, budget=pulls),
            "eps": lambda: eps_good_instance(s.k, s.h),
        }[family]()
        where = {"linear": "LinearBAI", "budget": "LinearBAI (budget)", "eps": "LinearEpsGood"}
        where = f"{where[family]}-Custom K={s.k}, h={s.h}"
        macs = s.k * s.k + s.k * s.h if name == "kgcb" else s.k * s.h + s.h * s.h
        floor = floor_us(macs, s.k, s.h)
    warm_process(agent, kwargs, family)
    DESIGNS.clear()  # cold: memoised design solves (LinGapE's ratio rule) are process-wide
    cost = drive(lambda: registry.make_agent(agent, **kwargs), inst, pulls, min(2 * s.k, pulls - 1))
    ref = math.nan
    if name.startswith("lingape"):
        x = np.asarray(inst.spec.features)
        theta = np.asarray(inst.truth["theta"]).ravel()
        ref = reference_lingape_us(x, theta, max(2, s.reference_pulls // 10))
    eps = f", {cost.episodes} episodes" if cost.episodes > 1 else ""
    return [
        Line(name, where, f"µs/pull steady ({pulls} pulls{eps})", "µs", cost.steady_cpu,
             cost.steady_wall, floor, target, ref),
        Line(name, where, "µs/pull amortised (from reset)", "µs", cost.amortised_cpu,
             cost.amortised_wall, floor, "≤ 200" if name == "tas" else "—"),
    ]  # fmt: skip


def episode_row(name: str, s: Sizes) -> list[Line]:
    """One fixed-confidence episode on Soare et al.'s instance (environment included)."""
    if name == "lingape-soare":
        agent, kw, target = "LinGapE", s.soare_lingape, "≤ 0.3 s; ≥ 100× the reference per pull"
    else:
        agent, kw, target = EPISODES[name], s.soare, "≤ 5 µs/pull"
    warm_process(agent, {}, "soare")
    env = gym.make("LinearBAI-Soare-v0", max_samples=10**8, **kw)
    x = np.asarray(env.unwrapped.model.features)
    k, h = x.shape
    cpu, wall, samples = episode(env, registry.make_agent(agent))
    where = "Soare " + ", ".join(f"{key}={value}" for key, value in kw.items()) + f" (K={k})"
    floor = floor_us(k * h + h * h, k, h)
    ref = math.nan
    if name == "lingape-soare":
        ref = reference_lingape_us(x, np.asarray(env.unwrapped.model.theta), s.reference_pulls)
    elif name == "xy-allocation":
        ref = reference_xy_us(x, s.reference_pulls)
    per_pull = "≤ 5" if name != "lingape-soare" else "≤ 3.4"
    return [
        Line(name, where, f"s/episode ({samples} samples)", "s", cpu, wall,
             floor * samples * 1e-6, target if name == "lingape-soare" else "—",
             math.nan if math.isnan(ref) else ref * samples * 1e-6),
        Line(name, where, "µs/pull over the episode", "µs", cpu / samples * 1e6,
             wall / samples * 1e6, floor, per_pull, ref),
    ]  # fmt: skip


def env_pull_row(s: Sizes) -> list[Line]:
    """µs per ``env.unwrapped.step(arm)`` on the linear Gaussian model at K, h."""
    x = _sphere(s.k, s.h, 0)
    env = gym.make("LinearBAI-Custom-v0", features=x, theta=x[0], sigma=1.0, budget=10**12)
    base = env.unwrapped
    pulls = max(s.pulls, 10_000)
    arms = np.random.default_rng(0).integers(s.k, size=pulls).tolist()
    best = (math.inf, math.inf)
    for _ in range(3):
        base.reset(seed=0)
        step = base.step
        clock = Clock()
        for arm in arms:
            step(arm)
        best = min(best, clock.lap())
    floor = floor_us(s.h, s.k, s.h) + gaussian_draw_seconds() * 1e6
    where = f"LinearBAI-Custom K={s.k}, h={s.h}"
    return [Line("env-pull", where, "µs/pull, env.unwrapped.step", "µs",
                 best[0] / pulls * 1e6, best[1] / pulls * 1e6, floor, "≤ 2")]  # fmt: skip


def xy_design_row(s: Sizes) -> list[Line]:
    """Cold and warm XY design on all pairs (the features of ``bench_design_scaling.py``)."""
    k, h = s.design_k, s.design_h
    x = np.random.default_rng([k, h, 10]).standard_normal((k, h))
    clock = Clock()
    cold = xy_design(x)
    cold_t = clock.lap()
    moved = x + 1e-3 * np.random.default_rng([k, h, 12]).standard_normal(x.shape)
    clock = Clock()
    xy_design(moved, init=cold.weights)
    warm_t = clock.lap()
    floor = k * (k - 1) / 2 * h / mac_rate(k, h)
    where = f"Gaussian features K={k}, h={h}"
    return [
        Line("xy-design", where, "s cold", "s", *cold_t, floor, "≤ 1 s"),
        Line("xy-design", where, "s warm (features moved 10⁻³)", "s", *warm_t, floor, "≤ 0.1 s"),
    ]


def rage_row(s: Sizes) -> list[Line]:
    """One RAGE episode on the planted instance of ``bench_phase_scaling.py``, batch path."""
    k, h = s.design_k, s.design_h
    cpu, wall, samples = episode(planted_instance("RAGE", k, h), registry.make_agent("RAGE"))
    floor = k * (k - 1) / 2 * h / mac_rate(k, h)
    where = f"planted best arm K={k}, h={h} ({samples} samples)"
    return [Line("rage", where, "s/episode", "s", cpu, wall, floor, "≤ 10 s")]


def run_row(name: str, s: Sizes) -> list[Line]:
    """The lines of one row of the table."""
    if name == "env-pull":
        return env_pull_row(s)
    if name in SEQUENTIAL:
        return sequential_row(name, s)
    if name == "lingape-soare" or name in EPISODES:
        return episode_row(name, s)
    if name == "xy-design":
        return xy_design_row(s)
    return rage_row(s)


def _print(cells: list[str], markdown: bool) -> None:
    print(("| " + " | ".join(cells) + " |") if markdown else "  ".join(cells), flush=True)


#: the options a paired run passes on to its child processes
PASSED = ("K", "h", "pulls", "tas_pulls", "bayes_K", "slow_pulls", "design_K", "design_h")
PAIRED_HEAD = (
    "row",
    "instance",
    "measure",
    "CPU",
    "CPU, baseline",
    "speed-up (CPU)",
    "wall",
    "wall, baseline",
    "floor",
    "CPU / floor",
)


def _child(code: Path, row: str, args: argparse.Namespace) -> list[Line]:
    """The lines of one row measured in a fresh process on the packages of ``code``."""
    cmd = [sys.executable, str(Path(__file__).resolve()), "--rows", row, "--json"]
    cmd += ["--code", str(code), "--reference-pulls", "2"] + (["--quick"] if args.quick else [])
    for name in PASSED:
        value = getattr(args, name)
        if value is not None:
            cmd += ["--" + name.replace("_", "-"), str(value)]
    out = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if out.returncode != 0:
        sys.exit(f"bench_per_pull.py: row {row} failed on the code of {code}:\n{out.stderr}")
    return [Line(**json.loads(text)) for text in out.stdout.splitlines() if text.startswith("{")]


def paired(args: argparse.Namespace, rows: list[str]) -> None:
    """Each row on the baseline's code and on ours, in fresh processes, side by side."""
    base = code_root(["--code", args.baseline])
    print(f"this: {CODE}; baseline: {base}")
    _print(list(PAIRED_HEAD), args.markdown)
    if args.markdown:
        print("|" + "---|" * len(PAIRED_HEAD))
    for i, row in enumerate(rows):
        if i % 2:  # alternate the order, so that a drifting load favours neither side
            ours, theirs = _child(CODE, row, args), _child(base, row, args)
        else:
            theirs, ours = _child(base, row, args), _child(CODE, row, args)
        for a, b in zip(ours, theirs, strict=True):
            cells = a.cells()
            _print(
                [*cells[:4], _fmt(b.cpu, b.unit), f"{b.cpu / a.cpu:.2f}×", cells[4],
                 _fmt(b.wall, b.unit), cells[5], cells[6]],
                args.markdown,
            )  # fmt: skip


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--rows", default=",".join(ROWS), help="comma-separated, of: " + ", ".join(ROWS)
    )
    parser.add_argument("--K", type=int, default=None, help="arms of the sequential rows (1000)")
    parser.add_argument("--h", type=int, default=None, help="dimension of the sequential rows (20)")
    parser.add_argument("--pulls", type=int, default=None, help="pulls per sequential row (20000)")
    parser.add_argument(
        "--tas-pulls", type=int, default=None, help="pulls of Track-and-Stop (7000)"
    )
    parser.add_argument(
        "--bayes-K", type=int, default=None, help="arms of the BayesGap and KGCB rows (100)"
    )
    parser.add_argument(
        "--slow-pulls", type=int, default=None, help="KGCB and LazyTTS: 2K + this many (300)"
    )
    parser.add_argument("--design-K", type=int, default=None, help="XY design and RAGE (10⁴)")
    parser.add_argument("--design-h", type=int, default=None, help="XY design and RAGE (50)")
    parser.add_argument("--reference-pulls", type=int, default=None, help="(200)")
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument(
        "--code", metavar="DIR", help="measure the packages of this checkout (default: this one)"
    )
    parser.add_argument(
        "--baseline",
        metavar="DIR",
        help="paired before/after: each row in two fresh processes, on DIR's code then on --code's "
        "(alternating the order), printed side by side with the speed-up",
    )
    parser.add_argument("--json", action="store_true", help="one JSON object per line")
    parser.add_argument("--quick", action="store_true", help="small sizes: a smoke test")
    parser.add_argument(
        "--profile", type=int, default=0, metavar="N", help="cProfile each row: its top N functions"
    )
    args = parser.parse_args(argv)
    rows = [r.strip() for r in args.rows.split(",") if r.strip()]
    unknown = sorted(set(rows) - set(ROWS))
    if unknown:
        parser.error(f"unknown rows {unknown}; choose among {', '.join(ROWS)}")
    q = args.quick
    s = Sizes(
        k=args.K or (100 if q else 1000),
        h=args.h or (5 if q else 20),
        pulls=args.pulls or (400 if q else 20_000),
        tas_pulls=args.tas_pulls or (300 if q else 7000),
        bayes_k=args.bayes_K or (20 if q else 100),
        slow_pulls=args.slow_pulls or (100 if q else 300),
        design_k=args.design_K or (200 if q else 10_000),
        design_h=args.design_h or (5 if q else 50),
        soare={"d": 2, "omega": 0.5, "delta": 0.1} if q else {"d": 2, "omega": 0.1, "delta": 0.05},
        soare_lingape=(
            {"d": 2, "omega": 0.5, "delta": 0.1} if q else {"d": 5, "omega": 0.01, "delta": 0.05}
        ),
        reference_pulls=args.reference_pulls or (5 if q else 200),
    )
    for name, value in (("--K", s.k), ("--h", s.h), ("--pulls", s.pulls)):
        if value < 2:
            parser.error(f"{name} must be at least 2; got {value}")
    warnings.simplefilter("ignore")  # runaway and convergence notes would break the table
    if args.baseline:
        paired(args, rows)
        return
    if args.json:
        for name in rows:
            for line in run_row(name, s):
                print(json.dumps(dataclasses.asdict(line)), flush=True)
        return
    print(f"multiply-add rate (K={s.k}, h={s.h}): {mac_rate(s.k, s.h) / 1e9:.2f} G/s; "
          f"(K={s.design_k}, h={s.design_h}): {mac_rate(s.design_k, s.design_h) / 1e9:.2f} G/s; "
          f"one Gaussian draw: {gaussian_draw_seconds() * 1e9:.1f} ns; "
          f"driver with a do-nothing agent: {driver_us():.2f} µs/pull")  # fmt: skip
    _print(list(HEAD), args.markdown)
    if args.markdown:
        print("|" + "---|" * len(HEAD))
    for name in rows:
        prof = cProfile.Profile() if args.profile else None
        if prof:
            prof.enable()
        lines = run_row(name, s)
        if prof:
            prof.disable()
            print(f"\nprofile of {name} (cProfile inflates Python-heavy code; read as shares):")
            pstats.Stats(prof).sort_stats("tottime").print_stats(args.profile)
        for line in lines:
            _print(line.cells(), args.markdown)


if __name__ == "__main__":
    main()
