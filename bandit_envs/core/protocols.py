"""The agent protocol, its batch extension, and the compatibility rule (``docs/concepts.md``).

Any object with ``reset / select / observe / recommend`` is an agent: no base class is needed.
Agents *may* declare what they solve with a ``capabilities`` attribute
(:class:`AgentCapabilities`); :func:`compatibility` then says whether they can run on a problem,
and why not.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import numpy as np
from typing_extensions import Protocol, runtime_checkable

from bandit_envs.core.problem import SETTINGS, Answer, ProblemSpec


@runtime_checkable
class Agent(Protocol):
    """A pure-exploration agent.

    The episode runner calls ``reset`` once per episode, then alternates ``select`` (the next
    arm, or ``None`` to stop) and ``observe`` (the outcome vector of that arm), and finally
    ``recommend`` (the answer, a ``frozenset`` of item indices). All randomness must come from
    the generator given to ``reset``.
    """

    def reset(self, spec: ProblemSpec, rng: np.random.Generator) -> None:
        """Start an episode on the problem ``spec``; draw random numbers only from ``rng``."""
        ...

    def select(self) -> int | None:
        """The next arm to pull (``0 .. K-1``), or ``None`` to stop."""
        ...

    def observe(self, arm: int, outcome: np.ndarray) -> None:
        """Receive the outcome vector (shape (m,)) of one pull of ``arm``."""
        ...

    def recommend(self) -> Answer:
        """The current answer: a frozenset of item indices."""
        ...


@runtime_checkable
class BatchAgent(Agent, Protocol):
    """An agent that can also announce whole allocations (the exact batch path).

    ``select_batch`` returns pull counts per arm (int array of shape (K,)), or ``None`` to
    stop; ``observe_batch`` receives those counts and the per-arm sums of outcomes, shape
    (K, m). An agent offering this must give results statistically identical to its one-pull
    path (``agents.check_agent`` tests it).
    """

    def select_batch(self) -> np.ndarray | None:
        """Pull counts per arm for the next batch, or ``None`` to stop."""
        ...

    def observe_batch(self, counts: np.ndarray, sums: np.ndarray) -> None:
        """Receive per-arm sums of the outcomes of the batch just pulled."""
        ...


@runtime_checkable
class OracleAgent(Agent, Protocol):
    """A baseline that is told the truth through an explicit hook (marked oracle everywhere)."""

    def receive_truth(self, truth: Mapping[str, Any]) -> None:
        """Called by the runner after ``reset`` with the model's true parameters."""
        ...


#: structures an agent may assume; ``"none"`` means it uses no structure at all.
STRUCTURES: tuple[str, ...] = ("none", "linear", "glm", "misspecified_linear")


@dataclasses.dataclass(frozen=True)
class AgentCapabilities:
    """What an agent solves: tasks, settings and the reward structure it assumes.

    Attributes:
        tasks: task names it can answer (``ProblemSpec.task``).
        settings: ``"fixed_confidence"`` and/or ``"fixed_budget"``.
        structures: the reward structures it accepts (``ProblemSpec.structure``); an agent
            that uses no structure lists ``"none"`` and runs on every structure.
        outcome_dims: ``"scalar"`` (m = 1 only) or ``"any"``.
        oracle: whether the agent needs the truth (an oracle baseline).
        batch: whether it offers the exact batch path.
        extras: values of ``ProblemSpec.extras`` the agent accepts, key by key, e.g.
            ``{"multiplicative": {False}}`` for an agent that solves only the additive all-ε-good
            problem. A key the problem does not publish is not checked.

    """

    tasks: frozenset[str]
    settings: frozenset[str] = frozenset(SETTINGS)
    structures: frozenset[str] = frozenset({"none"})
    outcome_dims: str = "scalar"
    oracle: bool = False
    batch: bool = False
    extras: Mapping[str, frozenset[Any]] = dataclasses.field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in ("tasks", "settings", "structures"):
            object.__setattr__(self, name, frozenset(getattr(self, name)))
        object.__setattr__(
            self, "extras", {key: frozenset(values) for key, values in dict(self.extras).items()}
        )
        unknown = self.settings - set(SETTINGS)
        if unknown:
            raise ValueError(f"AgentCapabilities: unknown settings {sorted(unknown)}.")


def compatibility(
    agent_or_caps: Any, spec: ProblemSpec, name: str | None = None
) -> tuple[bool, str]:
    """Whether an agent can run on ``spec``, and a sentence saying why not.

    Agents without a ``capabilities`` attribute are assumed compatible (they declared nothing).
    ``name`` is the agent's name in the sentence (default: the agent's ``name`` or its type).
    """
    caps = (
        agent_or_caps
        if isinstance(agent_or_caps, AgentCapabilities)
        else getattr(agent_or_caps, "capabilities", None)
    )
    if name is None:
        name = getattr(agent_or_caps, "name", type(agent_or_caps).__name__)
    if caps is None:
        return True, f"{name} declares no capabilities; assumed compatible."
    if spec.task not in caps.tasks:
        return False, (
            f"{name} solves {sorted(caps.tasks)}, but the problem's task is {spec.task!r}."
        )
    if spec.setting not in caps.settings:
        return False, (
            f"{name} runs in {sorted(caps.settings)}, but the problem is {spec.setting!r}."
        )
    if "none" not in caps.structures and spec.structure not in caps.structures:
        return False, (
            f"{name} assumes a {'/'.join(sorted(caps.structures))} reward structure, but the "
            f"problem's structure is {spec.structure!r}."
        )
    if caps.outcome_dims == "scalar" and spec.outcome_dim != 1:
        return False, f"{name} needs scalar outcomes, but this problem has {spec.outcome_dim}."
    for key, accepted in caps.extras.items():
        if key in spec.extras and spec.extras[key] not in accepted:
            return False, (
                f"{name} accepts {key} in {sorted(accepted, key=repr)}, but the problem has "
                f"{key}={spec.extras[key]!r}."
            )
    return True, "compatible"
