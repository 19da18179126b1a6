"""Watching a long episode: progress reports and the runaway warning.

An episode that does not stop is otherwise silent until the safety cap (10⁸ pulls by default)
truncates it, which can take hours. :func:`~bandit_envs.core.runner.run_episode` therefore looks at
the episode every few thousand pulls (a counter on the hot path; nothing else) and

* calls an optional ``progress`` callback with an :class:`EpisodeProgress` at most once per
  ``progress_every`` seconds (the first call after that long: short episodes get none);
* once the episode has drawn :data:`RUNAWAY_FLOOR` samples, reads the instance's lower bound
  T*·log(1/δ) (computed then, and cached: short episodes never pay for it) and emits one
  :class:`~bandit_envs.errors.RunawayEpisodeWarning` naming the agent when the samples pass
  ``runaway`` times that bound, or :data:`RUNAWAY_SAMPLES_WITHOUT_BOUND` samples when the
  instance has no known lower bound.

The multiple is generous on purpose: correct agents with analysed stopping rules use from about
one to a few hundred times the lower bound, so a warning means "look at this agent's stopping
rule", not "this agent is slow". The cap itself stays the environment's ``max_samples``: it is
part of the problem every agent is told before the first pull, so it cannot wait for the lower
bound to be solved.
"""

from __future__ import annotations

import dataclasses
import math
import time
import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING

from bandit_envs.errors import InvalidParameterError, RunawayEpisodeWarning

if TYPE_CHECKING:
    from bandit_envs.core.env import PureExplorationEnv

__all__ = [
    "CHECK_EVERY",
    "RUNAWAY_FLOOR",
    "RUNAWAY_MULTIPLE",
    "RUNAWAY_SAMPLES_WITHOUT_BOUND",
    "EpisodeProgress",
    "EpisodeWatch",
    "lower_bound_samples",
]

#: pulls between two looks at a one-pull-at-a-time episode (batch episodes: every batch).
CHECK_EVERY = 4096
#: default multiple of T*·log(1/δ) past which an episode is reported as a runaway.
RUNAWAY_MULTIPLE = 1000.0
#: samples before the lower bound is even looked at (short episodes never compute it).
RUNAWAY_FLOOR = 100_000
#: the runaway threshold of instances without a known lower bound.
RUNAWAY_SAMPLES_WITHOUT_BOUND = 10_000_000


@dataclasses.dataclass(frozen=True)
class EpisodeProgress:
    """A snapshot of a running episode, handed to ``run_episode``'s ``progress`` callback.

    Attributes:
        env_id: the environment's id (or instance name).
        agent: the agent's name.
        seed: the episode seed.
        samples: pulls made so far.
        elapsed: seconds since the episode started.
        max_samples: the safety cap of a fixed-confidence episode, else ``None``.
        budget: the budget of a fixed-budget episode, else ``None``.
        lower_bound: T*·log(1/δ) once the episode is long enough to have looked it up, else
            ``None`` (also when the instance has none).

    """

    env_id: str
    agent: str
    seed: int
    samples: int
    elapsed: float
    max_samples: int | None
    budget: int | None
    lower_bound: float | None

    @property
    def limit(self) -> int | None:
        """The most pulls the episode can make (``budget`` or ``max_samples``)."""
        return self.budget if self.budget is not None else self.max_samples


def lower_bound_samples(env: PureExplorationEnv) -> float | None:
    """T*·log(1/δ) of a fixed-confidence instance with a known lower bound, else ``None``.

    Computes the instance's complexity measures if nobody has yet (cached per instance).
    """
    if env.delta is None:
        return None
    bound = env.complexity().get("lower_bound")
    if bound is None or not math.isfinite(float(bound)) or float(bound) <= 0.0:
        return None
    return float(bound) * math.log(1.0 / env.delta)


class EpisodeWatch:
    """The runner's look at one episode: progress calls and the runaway warning.

    Args:
        env: the (unwrapped) environment of the episode.
        env_id, agent, seed: what the reports and the warning name.
        start: ``time.perf_counter()`` at the start of the episode.
        progress: called with an :class:`EpisodeProgress` at most once per ``progress_every``
            seconds, or ``None``. An exception it raises ends the episode (it propagates).
        progress_every: seconds between two progress calls (> 0).
        runaway: the multiple of T*·log(1/δ) past which to warn, or ``None`` for never.

    """

    def __init__(
        self,
        env: PureExplorationEnv,
        *,
        env_id: str,
        agent: str,
        seed: int,
        start: float,
        progress: Callable[[EpisodeProgress], object] | None,
        progress_every: float,
        runaway: float | None,
    ) -> None:
        self.env = env
        self.env_id, self.agent, self.seed = env_id, agent, seed
        self.start = start
        self.progress = progress
        self.progress_every = progress_every
        self.next_report = start + progress_every
        self.runaway = runaway if env.delta is not None else None  # a budget bounds the rest
        self.threshold: float | None = None
        self.lower_bound: float | None = None
        self.warned = False

    @property
    def active(self) -> bool:
        """Whether there is anything to do (else the loops never look)."""
        return self.progress is not None or self.runaway is not None

    def check(self, samples: int) -> None:
        """Look at the episode after ``samples`` pulls."""
        if self.runaway is not None and not self.warned and samples >= RUNAWAY_FLOOR:
            self._check_runaway(samples)
        if self.progress is not None:
            now = time.perf_counter()
            if now >= self.next_report:
                self.next_report = now + self.progress_every
                self.progress(self.snapshot(samples, now))

    def snapshot(self, samples: int, now: float) -> EpisodeProgress:
        """The :class:`EpisodeProgress` after ``samples`` pulls at time ``now``."""
        env = self.env
        return EpisodeProgress(
            env_id=self.env_id,
            agent=self.agent,
            seed=self.seed,
            samples=int(samples),
            elapsed=now - self.start,
            max_samples=env.max_samples,
            budget=env.budget,
            lower_bound=self.lower_bound,
        )

    def _check_runaway(self, samples: int) -> None:
        assert self.runaway is not None
        if self.threshold is None:
            self.lower_bound = lower_bound_samples(self.env)
            if self.lower_bound is None:
                self.threshold = float(RUNAWAY_SAMPLES_WITHOUT_BOUND)
            else:
                self.threshold = max(self.runaway * self.lower_bound, float(RUNAWAY_FLOOR))
        if samples < self.threshold:
            return
        self.warned = True
        cap = self.env.max_samples
        if self.lower_bound is None:
            measure = (
                f"and the instance has no known lower bound to compare with (the warning "
                f"comes at {RUNAWAY_SAMPLES_WITHOUT_BOUND:,} samples)"
            )
        else:
            measure = (
                f"{samples / self.lower_bound:,.0f} times the lower bound T*·log(1/δ) = "
                f"{self.lower_bound:,.4g} (the warning comes at {self.runaway:g} times)"
            )
        ends = (
            f"it is truncated, and counted wrong, at max_samples={cap:,}"
            if cap is not None
            else "it has no sample cap"
        )
        warnings.warn(
            RunawayEpisodeWarning(
                f"{self.agent} on {self.env_id} (seed {self.seed}) has drawn {samples:,} samples "
                f"in {time.perf_counter() - self.start:.1f} s, {measure}; it may never stop. "
                f"Check its stopping rule; {ends} (lower it with gym.make(..., max_samples=N))."
            ),
            stacklevel=5,  # the caller of run_episode
        )


def check_watch_options(
    progress: Callable[[EpisodeProgress], object] | None,
    progress_every: float,
    runaway: float | None,
) -> None:
    """Refuse a bad ``progress``, ``progress_every`` or ``runaway`` of ``run_episode``."""
    if progress is not None and not callable(progress):
        raise InvalidParameterError(
            f"run_episode: progress must be a callable taking an EpisodeProgress, or None; got "
            f"{progress!r}."
        )
    if not _positive_number(progress_every):
        raise InvalidParameterError(
            f"run_episode: progress_every must be a positive number of seconds; got "
            f"{progress_every!r}."
        )
    if runaway is not None and not _positive_number(runaway):
        raise InvalidParameterError(
            f"run_episode: runaway must be a positive multiple of T*·log(1/δ), or None to never "
            f"warn; got {runaway!r}."
        )


def _positive_number(value: object) -> bool:
    """A finite real number > 0 (not a bool)."""
    return (
        isinstance(value, (int, float))
        and not isinstance(value, bool)
        and math.isfinite(value)
        and value > 0
    )
