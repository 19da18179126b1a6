"""Answers: what every pure-exploration task recommends, and the one check of their form.

An answer is always a ``frozenset[int]`` of item indices: the best arm is a one-element set, a
Pareto set or the set of ε-good arms is a set of arms, a constrained mixed arm is an LP basis over
arms and slack items. The check lives at the bottom layer because the shared math (for instance
:func:`bandit_envs.theory.pareto.is_eps_pareto_set`) validates answers too; the environments, the
runner and the wrappers use the same function, so every layer refuses a malformed answer with the
same message.
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable
from typing import Any

import numpy as np

from bandit_envs.errors import InvalidAnswerError

__all__ = ["Answer", "as_answer"]

Answer = frozenset[int]
"""An answer: a set of item indices in ``range(n_items)``."""


def as_answer(value: Any, n_items: int, *, who: str = "answer") -> Answer:
    """Validate ``value`` as an answer over ``n_items`` items and return it as a frozenset.

    Any iterable of integers is accepted (a set, a list, a numpy array of ints). A bare integer,
    a string, a boolean or an index outside ``range(n_items)`` raises :class:`InvalidAnswerError`.

    Examples:
        >>> as_answer([2, 0], n_items=3)
        frozenset({0, 2})
        >>> as_answer(1, n_items=3)
        Traceback (most recent call last):
        ...
        bandit_envs.errors.InvalidAnswerError: answer must be a set of item indices ... got 1.

    """
    if isinstance(value, (numbers.Number, str, bytes)) or not isinstance(value, Iterable):
        raise InvalidAnswerError(
            f"{who} must be a set of item indices such as frozenset({{0}}); got {value!r}."
        )
    items = []
    for item in value:
        if isinstance(item, (bool, np.bool_)) or not isinstance(item, numbers.Integral):
            raise InvalidAnswerError(
                f"{who} must contain integer item indices; got {item!r} in {value!r}."
            )
        if not 0 <= int(item) < n_items:
            raise InvalidAnswerError(
                f"{who} contains item {int(item)}, outside the valid range 0..{n_items - 1}."
            )
        items.append(int(item))
    return frozenset(items)
