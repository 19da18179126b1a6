"""Helpers shared by the family modules of :mod:`bandit_envs.envs` (not public)."""

from __future__ import annotations

from typing import Any

import numpy as np

from bandit_envs.core.env import PureExplorationEnv
from bandit_envs.core.models import RewardModel
from bandit_envs.core.tasks import AllEpsilonGood, BestArm, Task
from bandit_envs.core.validation import check_finite, check_nonnegative
from bandit_envs.errors import InvalidParameterError

#: the tasks the Custom ids of the misspecified and logistic families pose.
TASKS = ("all_eps_good", "best_arm")


def build_env(
    model: RewardModel,
    task: Task,
    who: str,
    info: dict[str, Any],
    delta: float | None,
    budget: int | None,
    env_kwargs: dict[str, Any],
) -> PureExplorationEnv:
    """The environment of id ``who`` (the id's decorator has filled in the default setting)."""
    return PureExplorationEnv(
        model, task, name=who, instance_info=info, delta=delta, budget=budget, **env_kwargs
    )


def check_positive(value: Any, name: str, who: str) -> float:
    """Return ``value`` as a finite float > 0, or raise."""
    out = check_finite(value, name, who)
    if out <= 0.0:
        raise InvalidParameterError(f"{who}: {name} must be > 0; got {value!r}.")
    return out


def check_bool(value: Any, name: str, who: str) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise InvalidParameterError(f"{who}: {name} must be True or False; got {value!r}.")
    return bool(value)


def check_level(value: Any, who: str) -> float:
    return check_nonnegative(value, "L_m", who)


def good_set(means: np.ndarray, epsilon: float) -> tuple[int, ...]:
    mu = np.asarray(means, dtype=float).reshape(-1)
    return tuple(int(i) for i in np.flatnonzero(mu >= mu.max() - epsilon))


def custom_task(
    task: Any,
    epsilon: Any,
    multiplicative: Any,
    who: str,
    example: str,
    hints: dict[str, float] | None = None,
) -> tuple[Task, dict[str, Any]]:
    """The Custom ids' task: all ε-good arms (``epsilon`` required) or the best arm."""
    if task not in TASKS:
        raise InvalidParameterError(f"{who}: task must be one of {TASKS}; got {task!r}.")
    multiplicative = check_bool(multiplicative, "multiplicative", who)
    if task == "best_arm":
        if epsilon is not None or multiplicative:
            raise InvalidParameterError(
                f"{who}: epsilon and multiplicative are keywords of task='all_eps_good'; the "
                f"best-arm task takes neither (got epsilon={epsilon!r}, "
                f"multiplicative={multiplicative!r})."
            )
        return BestArm(), {"task": task}
    if epsilon is None:
        raise InvalidParameterError(f"{who}: epsilon= is required; e.g. {example}.")
    eps = check_positive(epsilon, "epsilon", who)
    if multiplicative and eps > 1.0:
        raise InvalidParameterError(
            f"{who}: with multiplicative=True epsilon must be in (0, 1]; got {eps!r}."
        )
    return (
        AllEpsilonGood(eps, multiplicative=multiplicative, hints=hints),
        {"task": task, "epsilon": eps, "multiplicative": multiplicative},
    )


def reprefix(exc: InvalidParameterError, who: str, *models: str) -> InvalidParameterError:
    text = str(exc)
    for prefix in models:
        if text.startswith(prefix + ": "):
            text = f"{who}: {text[len(prefix) + 2 :]}"
    return type(exc)(text)


# --------------------------------------------------------------------------------------------
