"""The episode runner: one agent, one environment, one seed → one :class:`EpisodeResult`."""

from __future__ import annotations

import dataclasses
import math
import numbers
import time
from collections.abc import Callable
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.wrappers import OrderEnforcing, PassiveEnvChecker

from bandit_envs.core.env import PureExplorationEnv
from bandit_envs.core.protocols import Agent, BatchAgent, OracleAgent, compatibility
from bandit_envs.core.watch import (
    CHECK_EVERY,
    RUNAWAY_MULTIPLE,
    EpisodeProgress,
    EpisodeWatch,
    check_watch_options,
)
from bandit_envs.errors import AgentProtocolError, IncompatibleAgentError, InvalidParameterError
from bandit_envs.theory.answers import Answer, as_answer


@dataclasses.dataclass(frozen=True)
class EpisodeResult:
    """The record of one episode.

    Attributes:
        env_id: the environment's id (or instance name).
        agent: the agent's name.
        seed: the episode seed (noise and agent randomness are both derived from it).
        samples: the number of pulls made.
        correct: whether the final answer was right (``False`` when truncated).
        answer: the answer given, a ``frozenset`` of item indices as in the final ``info``
            (``None`` when truncated).
        true_answer: the correct answer, a ``frozenset``.
        stop_reason: ``"stopped"``, ``"budget"`` or ``"max_samples"``.
        wall_time: seconds spent in the episode, from reset to grading (the instance's lower
            bound, looked up afterwards for ``lower_bound``, is not counted).
        pulls: pulls per arm.
        precision, recall, f1: set-overlap metrics of the answer.
        path: ``"single"`` or ``"batch"``.
        oracle: whether the agent was told the truth.
        lower_bound: T*·log(1/δ) for fixed-confidence problems where T* is known, else ``None``.
        delta: the problem's δ (fixed confidence), else ``None``.
        budget: the problem's budget (fixed budget), else ``None``.
    """

    env_id: str
    agent: str
    seed: int
    samples: int
    correct: bool
    answer: Answer | None
    true_answer: Answer
    stop_reason: str
    wall_time: float
    pulls: tuple[int, ...]
    precision: float
    recall: float
    f1: float
    path: str
    oracle: bool = False
    lower_bound: float | None = None
    delta: float | None = None
    budget: int | None = None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-friendly dict of the record; answers become sorted tuples."""
        out = dataclasses.asdict(self)
        for key in ("answer", "true_answer"):
            if out[key] is not None:
                out[key] = tuple(sorted(out[key]))
        return out


def episode_seeds(seed: int) -> tuple[int, np.random.Generator]:
    """Derive the environment's noise seed and the agent's generator from one episode seed."""
    env_ss, agent_ss = np.random.SeedSequence(seed).spawn(2)
    return int(env_ss.generate_state(1, dtype=np.uint32)[0]), np.random.default_rng(agent_ss)


def supports_batch(agent: Any) -> bool:
    """Whether ``agent`` offers the exact batch path."""
    caps = getattr(agent, "capabilities", None)
    declared = True if caps is None else bool(getattr(caps, "batch", True))
    return declared and isinstance(agent, BatchAgent)


def run_episode(
    env: gym.Env,
    agent: Agent,
    seed: int,
    *,
    batch: bool | None = None,
    check_compatible: bool = True,
    progress: Callable[[EpisodeProgress], object] | None = None,
    progress_every: float = 1.0,
    runaway: float | None = RUNAWAY_MULTIPLE,
) -> EpisodeResult:
    """Run one episode of ``agent`` on ``env`` and return its record.

    The episode seed derives both the environment's noise (``env.reset(seed=...)``) and the
    agent's generator, so the same seed gives the same record.

    Args:
        env: a :class:`PureExplorationEnv`, possibly wrapped (e.g. from ``gym.make``).
        agent: any object implementing the agent protocol.
        seed: the episode seed (a non-negative int).
        batch: ``None`` uses the exact batch path when the agent offers it; ``True`` requires
            it; ``False`` forces one pull at a time.
        check_compatible: refuse an agent whose declared capabilities do not cover the problem.
        progress: called with an :class:`~bandit_envs.core.watch.EpisodeProgress` (agent, env,
            seed, samples, elapsed seconds, cap) at most once per ``progress_every`` seconds
            while the episode runs; never for an episode shorter than that. An exception it
            raises ends the episode and propagates (the env then needs a reset).
        progress_every: seconds between two ``progress`` calls.
        runaway: warn (:class:`~bandit_envs.errors.RunawayEpisodeWarning`, once, naming the
            agent) when a fixed-confidence episode passes this many times the lower bound
            T*·log(1/δ), or 10⁷ samples on instances without one; ``None`` never warns. The
            bound is looked up only once the episode has drawn 10⁵ samples.

    Raises:
        IncompatibleAgentError: the agent declares it cannot solve this problem.
        AgentProtocolError: the agent broke the protocol (bad arm; an answer that is not a
            set of item indices, or that no instance of the task could have, e.g. two arms or
            none for best arm: ``Task.impossible_answer`` says why).

    """
    base = env.unwrapped
    if not isinstance(base, PureExplorationEnv):
        raise InvalidParameterError(
            f"run_episode: env must be a PureExplorationEnv (possibly wrapped); got "
            f"{type(base).__name__}."
        )
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise InvalidParameterError(f"run_episode: seed must be an integer >= 0; got {seed!r}.")
    check_watch_options(progress, progress_every, runaway)
    if not isinstance(agent, Agent):
        missing = [m for m in ("reset", "select", "observe", "recommend") if not hasattr(agent, m)]
        raise AgentProtocolError(
            f"run_episode: {type(agent).__name__} is not an agent; it lacks {missing}."
        )
    name = str(getattr(agent, "name", type(agent).__name__))
    if check_compatible:
        ok, why = compatibility(agent, base.problem)
        if not ok:
            raise IncompatibleAgentError(f"{name} cannot run on {base.name}: {why}")
    use_batch = supports_batch(agent) if batch is None else batch
    if use_batch and not supports_batch(agent):
        raise InvalidParameterError(
            f"run_episode: batch=True, but {name} does not offer select_batch/observe_batch."
        )
    env_seed, rng = episode_seeds(int(seed))
    env_id = env.spec.id if env.spec is not None else base.name
    start = time.perf_counter()
    watch = EpisodeWatch(
        base,
        env_id=env_id,
        agent=name,
        seed=int(seed),
        start=start,
        progress=progress,
        progress_every=float(progress_every),
        runaway=None if runaway is None else float(runaway),
    )
    _, info = env.reset(seed=env_seed)
    spec = info["problem"]
    agent.reset(spec, rng)
    caps = getattr(agent, "capabilities", None)
    oracle = bool(getattr(caps, "oracle", False))
    if oracle:
        if not isinstance(agent, OracleAgent):
            raise AgentProtocolError(f"{name} declares oracle=True but has no receive_truth().")
        agent.receive_truth(base.model.truth())
    loop = _batch_loop if use_batch else _single_loop
    final = loop(env, base, agent, name, watch)
    wall = time.perf_counter() - start
    answer = final["answer"]
    lower = None
    if base.delta is not None:  # solved once per instance, after the episode's clock stopped
        lb = final["complexity"].get("lower_bound")
        lower = None if lb is None else float(lb) * math.log(1.0 / base.delta)
    return EpisodeResult(
        env_id=env_id,
        agent=name,
        seed=int(seed),
        samples=int(final["samples"]),
        correct=bool(final["correct"]),
        answer=None if answer is None else frozenset(answer),
        true_answer=frozenset(final["true_answer"]),
        stop_reason=str(final["stop_reason"]),
        wall_time=wall,
        pulls=tuple(int(c) for c in final["pulls"]),
        precision=float(final["precision"]),
        recall=float(final["recall"]),
        f1=float(final["f1"]),
        path="batch" if use_batch else "single",
        oracle=oracle,
        lower_bound=lower,
        delta=base.delta,
        budget=base.budget,
    )


def _recommend(env: gym.Env, base: PureExplorationEnv, agent: Agent, name: str) -> dict:
    raw = agent.recommend()
    if isinstance(raw, (list, tuple, np.ndarray)):  # a set is required: no order, no repeats
        raise AgentProtocolError(
            f"{name}.recommend() must return a set of item indices such as frozenset({{0}}), "
            f"not a {type(raw).__name__}; got {raw!r}. Return frozenset(...) of it."
        )
    try:
        answer = as_answer(raw, base.n_items, who=f"{name}.recommend()")
    except (ValueError, TypeError) as exc:
        raise AgentProtocolError(str(exc)) from None
    why = base.task.impossible_answer(answer, base.problem)
    if why is not None:
        raise AgentProtocolError(
            f"{name}.recommend() returned an answer no {base.task.name} instance can have: "
            f"{why}. Return {base.task.answer_rule}."
        )
    result = env.step(base.stop_action(answer))
    return result[4]


def _check_arm(arm: Any, n_arms: int, name: str) -> int:
    if type(arm) is int and 0 <= arm < n_arms:  # the hot path: a plain in-range int
        return arm
    if isinstance(arm, (bool, np.bool_)) or not isinstance(arm, numbers.Integral):
        raise AgentProtocolError(
            f"{name}.select() must return an arm index (int) or None; got {arm!r}."
        )
    if not 0 <= int(arm) < n_arms:
        raise AgentProtocolError(
            f"{name}.select() returned arm {int(arm)}, outside the valid range 0..{n_arms - 1}."
        )
    return int(arm)


#: Wrappers ``gym.make`` adds that do nothing once the episode has been reset (order enforcing,
#: and a passive checker that only inspects the first reset and step); stepping the base env
#: past them saves about a microsecond per pull.
_TRANSPARENT_WRAPPERS = (OrderEnforcing, PassiveEnvChecker)


def _stepper(env: gym.Env) -> Callable[[Any], tuple]:
    """``env.unwrapped.step`` when every wrapper is transparent, else ``env.step``."""
    layer = env
    while isinstance(layer, gym.Wrapper):
        if type(layer) not in _TRANSPARENT_WRAPPERS:
            return env.step
        layer = layer.env
    return layer.step


def _single_loop(
    env: gym.Env, base: PureExplorationEnv, agent: Agent, name: str, watch: EpisodeWatch
) -> dict:
    budget, k = base.budget, base.n_arms
    step = _stepper(env)
    # one countdown per pull; the watch looks every CHECK_EVERY pulls (never if it has no job)
    every = CHECK_EVERY if watch.active else -1
    countdown = every
    while True:
        if budget is not None and base.samples >= budget:
            return _recommend(env, base, agent, name)
        arm = agent.select()
        if arm is None:
            return _recommend(env, base, agent, name)
        arm = _check_arm(arm, k, name)
        obs, _, terminated, truncated, info = step(arm)
        if terminated or truncated:
            return info
        agent.observe(arm, obs)
        countdown -= 1
        if not countdown:
            countdown = every
            watch.check(base.samples)


def _batch_loop(
    env: gym.Env, base: PureExplorationEnv, agent: Any, name: str, watch: EpisodeWatch
) -> dict:
    budget, k = base.budget, base.n_arms
    active = watch.active
    while True:
        if budget is not None and base.samples >= budget:
            return _recommend(env, base, agent, name)
        counts = agent.select_batch()
        if counts is None:
            return _recommend(env, base, agent, name)
        arr = np.asarray(counts)
        if arr.shape != (k,) or arr.dtype.kind not in "iu" or (arr < 0).any() or arr.sum() == 0:
            raise AgentProtocolError(
                f"{name}.select_batch() must return None or {k} non-negative integer counts with "
                f"a positive total; got {counts!r}."
            )
        if budget is not None and base.samples + int(arr.sum()) > budget:
            raise AgentProtocolError(
                f"{name}.select_batch() asked for {int(arr.sum())} pulls, but only "
                f"{budget - base.samples} of the budget {budget} remain."
            )
        sums, _, terminated, truncated, info = base.step_batch(arr)
        if terminated or truncated:
            return info
        agent.observe_batch(arr.copy(), sums)
        if active:
            watch.check(base.samples)
