"""Grade a student's agent: the protocol checks, then a small benchmark, then a score.

Usage::

    python examples/course/grader.py path/to/student_file.py [more files or folders ...]
        [--class NAME] [--seeds N] [--csv FILE] [--quiet]

For each file the grader

1. loads the agent class (``--class NAME``, or the only class of the file that has ``reset``,
   ``select``, ``observe`` and ``recommend``) and builds it with no arguments;
2. runs ``agents.check_agent(..., on_fail=None)`` and prints every check with its status and
   reason; every broken rule gets a feedback paragraph that names it and says how to fix it;
3. if no rule is broken, runs the benchmark (:data:`BENCHMARK`: three fixed-confidence linear
   best-arm instances, δ = 0.05) for ``--seeds`` episodes each, next to :data:`BASELINES`
   (``Uniform`` and the zoo's ``RAGE``), and prints the error rate, the mean number of samples,
   its ratio to the lower bound T*·log(1/δ), and the time per episode;
4. prints the score (:class:`Rubric`, out of 100):

   * **protocol, 40**: 40 × (passed checks) / (passed + failed checks); skipped checks (e.g. the
     batch path, which is optional) do not count. Any failed check scores 0 for the two other
     parts (the benchmark is not run).
   * **correctness, 30**: 10 per instance when the number of wrong answers (truncated episodes
     count as wrong) is not significantly above δ: P(Binomial(N, δ) ≥ errors) ≥ 1 %.
   * **efficiency, 30**: 10 per instance, only if that instance's correctness passed; with U
     Uniform's mean number of samples and S the agent's, 10 × clip(½ + log₂(U/S)/2, 0, 1): 5 at
     Uniform's level, 10 with half of Uniform's samples (or fewer), 0 with twice as many.

   An agent that takes longer than ``Rubric.time_limit`` seconds on one instance scores 0 on it.

The exit code is 0 when every graded agent passes the protocol, 1 otherwise (2 when the grader
itself is misconfigured: its reference baseline cannot run on a benchmark instance). From Python,
:func:`grade` returns a :class:`GradeReport` (``report.render()`` is the printed text).
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import hashlib
import importlib.util
import inspect
import math
import sys
import time
import traceback
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

import bandit_envs  # noqa: F401 - registers the environment ids
from agents import CheckResult, check_agent
from agents.checks import CheckFailure
from bandit_envs import run_episode
from bandit_envs.envs.linear_best_arm import soare_features, sphere_instance
from bandit_envs.errors import AgentProtocolError
from registry import make_agent

# --------------------------------------------------------------------------- configuration


@dataclasses.dataclass(frozen=True)
class BenchmarkEnv:
    """One benchmark instance: a label, a registered id and its ``gym.make`` keywords."""

    label: str
    env_id: str
    kwargs: Mapping[str, Any]

    def make(self) -> gym.Env:
        """Build the environment."""
        return gym.make(self.env_id, **self.kwargs)

    @property
    def delta(self) -> float:
        """The instance's δ."""
        return float(self.kwargs["delta"])

    @property
    def key(self) -> str:
        """A digest of the id and keywords (arrays by value): the baseline cache's key."""
        parts = [self.label, self.env_id] + [
            f"{k}={np.asarray(v).tobytes().hex() if isinstance(v, np.ndarray) else v!r}"
            for k, v in sorted(self.kwargs.items())
        ]
        return hashlib.sha1("|".join(parts).encode()).hexdigest()


def shuffled_instance(
    label: str,
    features: Any,
    theta: Any,
    *,
    delta: float = 0.05,
    sigma: float = 1.0,
    max_samples: int = 200_000,
) -> BenchmarkEnv:
    """A ``LinearBAI-Custom-v0`` instance whose arms are listed in a fixed shuffled order.

    The order is the first permutation (seeds 0, 1, …) that puts the best arm neither first nor
    last, so that an agent answering a fixed index cannot score.

    Args:
        label: the name shown in the tables.
        features: the arms, shape (K, h), K ≥ 3.
        theta: the parameter, shape (h,).
        delta: the confidence δ.
        sigma: the noise standard deviation.
        max_samples: the safety cap of an episode (truncated episodes count as wrong).
    """
    x, th = np.asarray(features, dtype=float), np.asarray(theta, dtype=float)
    best = int(np.argmax(x @ th))
    for seed in range(1000):
        order = np.random.default_rng(seed).permutation(x.shape[0])
        if 0 < int(np.flatnonzero(order == best)[0]) < x.shape[0] - 1:
            break
    return BenchmarkEnv(
        label,
        "LinearBAI-Custom-v0",
        {
            "features": x[order],
            "theta": th,
            "sigma": sigma,
            "delta": delta,
            "max_samples": max_samples,
        },
    )


#: the three instances of the benchmark (fixed confidence, δ = 0.05, σ = 1, arms shuffled):
#: Soare et al.'s hard instance (LinearBAI-Soare-v0, d=2, ω=0.1), the standard bandit
#: (LinearBAI-Basis-v0's defaults d=5, gap=0.2) and 20 arms on the sphere of R⁴
#: (LinearBAI-Sphere-v0, K=20, d=4, γ=0.1).
BENCHMARK: tuple[BenchmarkEnv, ...] = (
    shuffled_instance("Soare d=2 w=0.1", soare_features(2, 0.1), [2.0, 0.0]),
    shuffled_instance("Basis d=5 gap=0.2", np.eye(5), [0.2, 0.0, 0.0, 0.0, 0.0]),
    shuffled_instance("Sphere K=20 d=4", *sphere_instance(20, 4, 0.1, 0)),
)

#: zoo agents run next to the student's (registry names); efficiency is scored against the first.
BASELINES: tuple[str, ...] = ("Uniform", "RAGE")

DEFAULT_SEEDS = 30


@dataclasses.dataclass(frozen=True)
class Rubric:
    """Points and tolerances of the score (see the module docstring).

    Attributes:
        protocol: points for the protocol checks.
        correctness: points for correctness, split evenly between the instances.
        efficiency: points for efficiency, split evenly between the instances.
        alpha: an instance fails correctness when P(Binomial(N, δ) ≥ errors) < alpha.
        full_speedup: U/S at which efficiency is full (its inverse scores 0; U/S = 1 half).
        time_limit: seconds the student's agent may spend on one instance (all seeds).
    """

    protocol: float = 40.0
    correctness: float = 30.0
    efficiency: float = 30.0
    alpha: float = 0.01
    full_speedup: float = 2.0
    time_limit: float = 60.0


#: the plain-language rule behind each check of ``agents.check_agent``, and how to fix it.
RULES: dict[str, str] = {
    "check_protocol": "your agent must define reset(spec, rng), select(), observe(arm, outcome) "
    "and recommend()",
    "check_valid_actions": "select() must return an arm index in 0..K-1 (a Python int) or None, "
    "and recommend() a frozenset of arm indices such as frozenset({2})",
    "check_global_rng": "your agent draws from a global random state; use the rng passed to "
    "reset(spec, rng), e.g. self.rng.integers(K) instead of np.random.randint(K)",
    "check_seed_determinism": "two runs with the same seed must be identical: take every random "
    "number from the rng passed to reset, and do not depend on the clock, on set ordering or on "
    "object ids",
    "check_reset_clears_state": "reset(spec, rng) must clear everything from the previous "
    "episode (counts, sums, active arms, phase number, ...): the same agent object runs many "
    "episodes, so create the per-episode state in reset, not in __init__",
    "check_no_peeking": "your agent may use only the spec and the outcomes it observes, never "
    "the hidden parameters of the environment",
    "check_stops_when_easy": "on an easy instance your agent must stop (select() returns None) "
    "with the right answer; check your stopping rule and that select() returns None once a "
    "single arm is left",
    "check_batch_equivalence": "select_batch/observe_batch (optional) must behave like the "
    "one-pull path; remove them if you do not need them",
    "check_pickle": "your agent must survive pickle.dumps/pickle.loads (no lambdas, generators "
    "or open files in its attributes)",
}

# --------------------------------------------------------------------------- results


@dataclasses.dataclass(frozen=True)
class BenchmarkRow:
    """One agent on one benchmark instance.

    Attributes:
        env: the instance's label.
        agent: the agent's name.
        episodes: episodes run (fewer than the seeds if the agent crashed or ran out of time).
        errors: wrong answers, truncated episodes included.
        truncated: episodes cut at ``max_samples``.
        mean_samples: mean number of samples per episode.
        lower_bound: T*·log(1/δ) of the instance.
        seconds: mean wall time per episode.
        path: ``"single"`` (one pull at a time) or ``"batch"``.
        problem: why the run ended early (a crash or the time limit), else ``None``.
    """

    env: str
    agent: str
    episodes: int
    errors: int
    truncated: int
    mean_samples: float
    lower_bound: float | None
    seconds: float
    path: str
    problem: str | None = None

    @property
    def error_rate(self) -> float:
        """Errors per episode."""
        return self.errors / self.episodes if self.episodes else math.nan

    @property
    def lb_ratio(self) -> float:
        """Mean samples / (T*·log(1/δ))."""
        if not self.lower_bound:
            return math.nan
        return self.mean_samples / self.lower_bound


@dataclasses.dataclass(frozen=True)
class EnvScore:
    """The points one instance gives, and why."""

    env: str
    correctness: float
    efficiency: float
    allowed_errors: int
    note: str


@dataclasses.dataclass
class GradeReport:
    """Everything the grader found about one agent; ``render()`` is the printed report.

    Attributes:
        agent: the agent's name.
        source: where it came from (a file path, or a class name).
        checks: one record per ``check_agent`` check.
        feedback: one paragraph per broken rule (empty when the protocol passes).
        rows: the benchmark table (the agent's rows and the baselines').
        env_scores: the points of each instance (empty when the benchmark did not run).
        protocol_points: out of ``rubric.protocol``.
        correctness_points: out of ``rubric.correctness``.
        efficiency_points: out of ``rubric.efficiency``.
        rubric: the rubric used.
        seeds: the episode seeds of the benchmark.
        elapsed: seconds spent grading.
    """

    agent: str
    source: str
    checks: list[CheckResult]
    feedback: list[str]
    rows: list[BenchmarkRow]
    env_scores: list[EnvScore]
    protocol_points: float
    correctness_points: float
    efficiency_points: float
    rubric: Rubric
    seeds: tuple[int, ...]
    elapsed: float = 0.0

    @property
    def protocol_ok(self) -> bool:
        """Whether no protocol check failed."""
        return bool(self.checks) and not any(r.status == "failed" for r in self.checks)

    @property
    def total(self) -> float:
        """The score out of 100 (with the default rubric)."""
        return self.protocol_points + self.correctness_points + self.efficiency_points

    def render(self) -> str:
        """The report as text."""
        out = [
            f"== Grading {self.agent} ({self.source})",
            "",
            "Protocol checks (agents.check_agent)",
        ]
        width = max((len(r.check) for r in self.checks), default=10)
        for r in self.checks:
            mark = {"passed": "PASS", "failed": "FAIL", "skipped": "skip", "xfail": "xfail"}
            line = f"  {mark.get(r.status, r.status):5} {r.check:{width}}"
            out.append(f"{line}  {r.reason}".rstrip())
        if self.feedback:
            out += ["", "What to fix:"]
            out += [f"  * {text}" for text in self.feedback]
        out.append("")
        if not self.protocol_ok:
            out.append("Benchmark not run: fix the protocol first (the benchmark part scores 0).")
        else:
            out.append(f"Benchmark (fixed confidence, {len(self.seeds)} seeds per instance)")
            out.append(_table(self.rows))
            out += ["", "Points per instance"]
            for s in self.env_scores:
                out.append(
                    f"  {s.env:22} correctness {s.correctness:5.1f}  efficiency "
                    f"{s.efficiency:5.1f}  ({s.note})"
                )
        r = self.rubric
        out += [
            "",
            f"Score: protocol {self.protocol_points:.1f}/{r.protocol:g}, correctness "
            f"{self.correctness_points:.1f}/{r.correctness:g}, efficiency "
            f"{self.efficiency_points:.1f}/{r.efficiency:g}  =>  total {self.total:.1f}/"
            f"{r.protocol + r.correctness + r.efficiency:g}"
            f"   (graded in {self.elapsed:.1f} s)",
        ]
        return "\n".join(out)


def _table(rows: Sequence[BenchmarkRow]) -> str:
    head = (
        f"  {'instance':22} {'agent':18} {'runs':>4} {'errors':>7} {'mean samples':>12} "
        f"{'LB ratio':>8} {'ms/run':>7}  path"
    )
    lines = [head, "  " + "-" * (len(head) - 2)]
    for row in rows:
        lines.append(
            f"  {row.env:22} {row.agent[:18]:18} {row.episodes:4d} "
            f"{row.error_rate:7.2f} {row.mean_samples:12.0f} {row.lb_ratio:8.1f} "
            f"{1000 * row.seconds:7.1f}  {row.path}"
        )
        if row.problem:
            lines.append(f"  {'':22} ^ {row.problem}")
    return "\n".join(lines)


# --------------------------------------------------------------------------- loading


class GradingError(Exception):
    """The submission could not be loaded or built; the message says why, for the student."""


def _where(exc: BaseException, source: Path | None = None) -> str:
    """``file:line in function`` of the deepest frame in the student's code, if any."""
    frames = traceback.extract_tb(exc.__traceback__)
    library = (
        Path(bandit_envs.__file__).parent,
        Path(check_agent.__code__.co_filename).parent,
        Path(np.__file__).parent.parent,
        Path(__file__).resolve(),
    )
    mine = [
        f
        for f in frames
        if (source is not None and Path(f.filename).resolve() == source)
        or (
            source is None
            and not any(str(Path(f.filename).resolve()).startswith(str(lib)) for lib in library)
        )
    ]
    if not mine:
        return ""
    f = mine[-1]
    return f" (at {Path(f.filename).name}:{f.lineno}, in {f.name})"


def load_agent_class(path: str | Path, class_name: str | None = None) -> type:
    """Import a student's file and return its agent class.

    The file's folder is on ``sys.path`` while it is imported, so a submission may import its
    own helper modules. The module is registered under a unique name so that the agent pickles.

    Args:
        path: the student's ``.py`` file.
        class_name: the class to grade; by default the only class defined in the file that has
            ``reset``, ``select``, ``observe`` and ``recommend``.

    Raises:
        GradingError: the file is missing or does not import, or no (unique) agent class is
            found.
    """
    path = Path(path).resolve()
    if not path.is_file():
        raise GradingError(f"{path}: no such file.")
    digest = hashlib.sha1(str(path).encode()).hexdigest()[:8]
    module_name = f"course_submission_{path.stem}_{digest}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise GradingError(f"{path}: not a Python file.")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    sys.path.insert(0, str(path.parent))
    try:
        spec.loader.exec_module(module)
    except Exception as exc:  # noqa: BLE001 - any import failure is reported to the student
        del sys.modules[module_name]
        text = traceback.format_exception_only(type(exc), exc)[-1].strip()
        where = _where(exc, path)
        if isinstance(exc, SyntaxError) and exc.lineno is not None:
            where = f" (at {path.name}:{exc.lineno})"
        raise GradingError(f"{path.name} does not import: {text}{where}") from None
    finally:
        sys.path.remove(str(path.parent))
    protocol = ("reset", "select", "observe", "recommend")
    if class_name is not None:
        cls = getattr(module, class_name, None)
        if not isinstance(cls, type):
            raise GradingError(f"{path.name} defines no class named {class_name!r}.")
        return cls
    candidates = [
        obj
        for _, obj in inspect.getmembers(module, inspect.isclass)
        if obj.__module__ == module_name and all(callable(getattr(obj, m, None)) for m in protocol)
    ]
    if len(candidates) != 1:
        names = sorted(c.__name__ for c in candidates)
        found = f"found {names}" if names else "found none"
        raise GradingError(
            f"{path.name}: expected exactly one class with reset/select/observe/recommend, "
            f"{found}; name the one to grade with --class NAME."
        )
    return candidates[0]


# --------------------------------------------------------------------------- grading


def _todo_methods(make: Callable[[], Any]) -> list[str]:
    """Protocol methods that still raise NotImplementedError (an untouched template)."""
    env = gym.make("LinearBAI-Basis-v0", d=3, gap=0.5, delta=0.1)
    _, info = env.reset(seed=0)
    agent = make()
    todo = []
    try:
        agent.reset(info["problem"], np.random.default_rng(0))
    except NotImplementedError:
        return ["reset"]
    except Exception:  # noqa: BLE001 - other failures are reported by the checks
        return []
    calls = {
        "select": lambda: agent.select(),
        "observe": lambda: agent.observe(0, np.zeros(1)),
        "recommend": lambda: agent.recommend(),
    }
    for name, call in calls.items():
        try:
            call()
        except NotImplementedError:
            todo.append(name)
        except Exception:  # noqa: BLE001, S112 - only NotImplementedError matters here
            continue
    return todo


def _error_text(exc: BaseException) -> str:
    """``Type: message`` of an exception, without the module path."""
    return f"{type(exc).__name__}: {exc}"


def _feedback(
    results: Sequence[CheckResult], name: str, make: Callable[[], Any], source: Path | None
) -> list[str]:
    """One paragraph per broken rule; crashes with the same error are reported once."""
    failed = [r for r in results if r.status == "failed"]
    if not failed:
        return []
    notes: list[str] = []
    if any(isinstance(r.exception, NotImplementedError) for r in failed):
        todo = _todo_methods(make)
        listed = ", ".join(f"{m}()" for m in todo) if todo else "some protocol methods"
        notes.append(
            f"not implemented yet: {listed} still raise NotImplementedError (the TODOs of the "
            "template). Implement them, then run the grader again."
        )
    seen: dict[str, list[str]] = {}  # an error's text -> the checks it stopped
    for r in failed:
        exc = r.exception
        if isinstance(exc, NotImplementedError):
            continue
        if exc is None or isinstance(exc, CheckFailure):  # a verdict: the rule is broken
            reason = r.reason.removeprefix(f"{name}: ")
            notes.append(
                f"{r.check}: {RULES.get(r.check, 'see agents.check_agent')}.\n"
                f"      What happened: {reason}"
            )
            continue
        text = _error_text(exc)
        if str(exc) and any(str(exc) in note for note in notes):  # another check said it
            seen.setdefault(text, []).append(r.check)
            continue
        if text in seen:
            seen[text].append(r.check)
            continue
        seen[text] = []
        if isinstance(exc, AgentProtocolError):  # the runner caught a bad arm or answer
            notes.append(f"{r.check}: {RULES['check_valid_actions']}.\n      What happened: {exc}")
        else:
            notes.append(
                f"{r.check}: your agent crashed with {text}{_where(exc, source)}. "
                f"Fix the crash first; this check verifies the rule: "
                f"{RULES.get(r.check, 'the agent honours the protocol')}."
            )
    also = [r.check for r in failed if any(r.check in checks for checks in seen.values())]
    if also:
        notes.append(
            f"the same error also stopped {', '.join(also)}; they will run once it is fixed."
        )
    if len(notes) > 1:
        notes.append(
            "one mistake often fails several checks: fix the first item, then run the grader again."
        )
    return notes


def _row(
    env: BenchmarkEnv,
    make: Callable[[], Any],
    name: str,
    seeds: Sequence[int],
    time_limit: float | None,
    source: Path | None,
) -> BenchmarkRow:
    gym_env = env.make()
    records, problem = [], None
    start = time.perf_counter()
    for seed in seeds:
        try:
            records.append(run_episode(gym_env, make(), seed))
        except Exception as exc:  # noqa: BLE001 - a crash scores 0 on this instance
            text = traceback.format_exception_only(type(exc), exc)[-1].strip()
            problem = f"crashed on seed {seed}: {text}{_where(exc, source)}"
            break
        if time_limit is not None and time.perf_counter() - start > time_limit:
            if len(records) < len(seeds):
                problem = (
                    f"stopped after {len(records)} of {len(seeds)} seeds: more than "
                    f"{time_limit:g} s on this instance"
                )
            break
    n = len(records)
    return BenchmarkRow(
        env=env.label,
        agent=name,
        episodes=n,
        errors=sum(not r.correct for r in records),
        truncated=sum(r.stop_reason == "max_samples" for r in records),
        mean_samples=float(np.mean([r.samples for r in records])) if n else math.nan,
        lower_bound=records[0].lower_bound if n else None,
        seconds=float(np.mean([r.wall_time for r in records])) if n else math.nan,
        path=records[0].path if n else "-",
        problem=problem,
    )


#: baseline rows already computed in this process: grading a folder runs them once.
_BASELINE_ROWS: dict[tuple[Any, ...], BenchmarkRow] = {}


def _baseline_row(env: BenchmarkEnv, name: str, seeds: tuple[int, ...]) -> BenchmarkRow:
    key = (env.key, name, seeds)
    if key not in _BASELINE_ROWS:
        _BASELINE_ROWS[key] = _row(env, lambda: make_agent(name), name, seeds, None, None)
    return _BASELINE_ROWS[key]


def allowed_errors(episodes: int, delta: float, alpha: float) -> int:
    """The largest error count e with P(Binomial(episodes, δ) ≥ e) ≥ alpha."""
    from scipy.stats import binom

    e = 0
    while e < episodes and binom.sf(e, episodes, delta) >= alpha:  # sf(e) = P(X ≥ e + 1)
        e += 1
    return e


def _score_env(
    env: BenchmarkEnv,
    mine: BenchmarkRow,
    uniform: BenchmarkRow,
    seeds: int,
    rubric: Rubric,
    n_envs: int,
) -> EnvScore:
    c_max, e_max = rubric.correctness / n_envs, rubric.efficiency / n_envs
    allowed = allowed_errors(seeds, env.delta, rubric.alpha)
    if mine.problem is not None or mine.episodes < seeds:
        return EnvScore(env.label, 0.0, 0.0, allowed, mine.problem or "incomplete")
    if mine.errors > allowed:
        return EnvScore(
            env.label,
            0.0,
            0.0,
            allowed,
            f"{mine.errors} wrong of {seeds}, more than the {allowed} allowed at "
            f"delta={env.delta:g}; no efficiency points",
        )
    speedup = uniform.mean_samples / mine.mean_samples if mine.mean_samples > 0 else math.inf
    frac = 0.5 + 0.5 * math.log(speedup) / math.log(rubric.full_speedup)
    frac = min(max(frac, 0.0), 1.0)
    return EnvScore(
        env.label,
        c_max,
        e_max * frac,
        allowed,
        f"{mine.errors} wrong (<= {allowed} allowed); samples x{1 / speedup:.2f} of Uniform's",
    )


def grade(
    agent_cls: Callable[[], Any],
    seeds: int | Iterable[int] = DEFAULT_SEEDS,
    *,
    envs: Sequence[BenchmarkEnv] = BENCHMARK,
    baselines: Sequence[str] = BASELINES,
    rubric: Rubric | None = None,
    source: str | Path | None = None,
    progress: Callable[[str], None] | None = None,
) -> GradeReport:
    """Grade an agent class: protocol checks, then (if they pass) the benchmark and the score.

    Args:
        agent_cls: the agent's class (or any callable returning a fresh agent).
        seeds: the number of benchmark episodes per instance (seeds 0..N-1), or the seeds.
        envs: the benchmark instances (fixed confidence).
        baselines: registry names of the agents shown next to the student's; the first is the
            efficiency reference (Uniform by default).
        rubric: points and tolerances; :class:`Rubric` by default.
        source: where the class came from (a path is used to point at lines of the student's
            file in crash messages).
        progress: called with a short message before each stage (e.g. ``print``).

    Returns:
        A :class:`GradeReport`.

    Raises:
        GradingError: the first baseline cannot run on one of ``envs`` (a configuration error).
        ValueError: ``seeds`` is empty.
    """
    rubric = rubric or Rubric()
    seed_list = tuple(range(seeds)) if isinstance(seeds, int) else tuple(int(s) for s in seeds)
    if not seed_list:
        raise ValueError("grade: seeds must be a positive number or a non-empty list of seeds.")
    say = progress or (lambda _: None)
    name = getattr(agent_cls, "__name__", type(agent_cls).__name__)
    path = Path(source).resolve() if source is not None and Path(source).is_file() else None
    label = str(source) if source is not None else name
    start = time.perf_counter()

    def report(checks, feedback, rows=(), scores=(), p=0.0, c=0.0, e=0.0) -> GradeReport:
        return GradeReport(
            name,
            label,
            list(checks),
            list(feedback),
            list(rows),
            list(scores),
            p,
            c,
            e,
            rubric,
            seed_list,
            time.perf_counter() - start,
        )

    try:
        agent_cls()
    except Exception as exc:  # noqa: BLE001 - reported to the student
        text = traceback.format_exception_only(type(exc), exc)[-1].strip()
        return report(
            [CheckResult("check_protocol", "failed", f"{name}() failed: {text}", exc)],
            [
                f"could not build your agent with {name}() (no arguments): {text}"
                f"{_where(exc, path)}. The constructor must not require arguments."
            ],
        )
    say(f"{name}: protocol checks")
    checks = check_agent(agent_cls, on_fail=None)
    counted = [r for r in checks if r.status in ("passed", "failed")]
    passed = sum(r.status == "passed" for r in counted)
    protocol = rubric.protocol * passed / len(counted) if counted else 0.0
    feedback = _feedback(checks, name, agent_cls, path)
    if feedback or any(r.status == "failed" for r in checks):
        return report(checks, feedback, p=protocol)

    rows, scores = [], []
    for env in envs:
        say(f"{name}: benchmark on {env.label}")
        mine = _row(env, agent_cls, name, seed_list, rubric.time_limit, path)
        base = [_baseline_row(env, b, seed_list) for b in baselines]
        if base[0].problem is not None or base[0].episodes == 0:
            raise GradingError(
                f"the reference baseline {baselines[0]} cannot run on {env.label} "
                f"({base[0].problem}); pass baselines= whose first agent solves this task."
            )
        rows += [mine, *base]
        scores.append(_score_env(env, mine, base[0], len(seed_list), rubric, len(envs)))
    return report(
        checks,
        [],
        rows,
        scores,
        protocol,
        sum(s.correctness for s in scores),
        sum(s.efficiency for s in scores),
    )


# --------------------------------------------------------------------------- command line


def _expand(paths: Sequence[str]) -> list[Path]:
    files: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            files += sorted(f for f in p.glob("*.py") if not f.name.startswith("_"))
        else:
            files.append(p)
    return files


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point; returns the exit code."""
    parser = argparse.ArgumentParser(
        description="Grade course submissions: protocol checks, benchmark, score."
    )
    parser.add_argument(
        "paths",
        nargs="+",
        help="student .py files, or folders of them (files starting with _ are skipped)",
    )
    parser.add_argument(
        "--class",
        dest="class_name",
        default=None,
        help="the agent class to grade (default: the only agent class in a file)",
    )
    parser.add_argument(
        "--seeds",
        type=int,
        default=DEFAULT_SEEDS,
        help=f"benchmark episodes per instance (default {DEFAULT_SEEDS})",
    )
    parser.add_argument("--csv", default=None, help="also write one row per submission here")
    parser.add_argument("--quiet", action="store_true", help="no progress messages on stderr")
    args = parser.parse_args(argv)
    if args.seeds < 1:
        parser.error("--seeds must be >= 1")
    files = _expand(args.paths)
    if not files:
        parser.error("no .py file found in the given paths")
    progress = None if args.quiet else (lambda m: print(f"... {m}", file=sys.stderr, flush=True))
    summary = []
    for path in files:
        try:
            cls = load_agent_class(path, args.class_name)
        except GradingError as exc:
            print(f"== {path}\nCannot grade: {exc}\nScore: 0/100\n")
            summary.append((str(path), "-", False, 0.0, 0.0, 0.0, 0.0))
            continue
        try:
            rep = grade(cls, args.seeds, source=path, progress=progress)
        except GradingError as exc:  # a configuration problem of the grader itself
            print(f"grader.py: {exc}", file=sys.stderr)
            return 2
        print(rep.render() + "\n", flush=True)
        summary.append(
            (
                str(path),
                rep.agent,
                rep.protocol_ok,
                rep.protocol_points,
                rep.correctness_points,
                rep.efficiency_points,
                rep.total,
            )
        )
    if len(summary) > 1:
        print("== Summary")
        for row in summary:
            print(f"  {row[6]:6.1f}  {'ok  ' if row[2] else 'FAIL'}  {row[0]} ({row[1]})")
    if args.csv:
        with open(args.csv, "w", newline="") as fh:
            writer = csv.writer(fh)
            writer.writerow(
                ["file", "class", "protocol_ok", "protocol", "correctness", "efficiency", "total"]
            )
            writer.writerows([r[:3] + tuple(round(x, 2) for x in r[3:]) for r in summary])
    return 0 if all(row[2] for row in summary) else 1


if __name__ == "__main__":
    sys.exit(main())
