"""Declarative validation of agent hyper-parameters: one constraints table per agent class.

An agent lists what each constructor argument may be, next to its signature::

    class Uniform(BaseAgent):
        parameters = {
            "check_every": Integer(min=1),
            "threshold": Choice("fixed_design") | Real(gt=0),
        }

and :meth:`agents.base.BaseAgent.reset` checks the values with :func:`validate_parameters`
before the episode starts. Every refusal has the same shape,
``"<Agent>: <name> must be <constraint>; got <value!r>."``, so a user reads every invalid
argument of the zoo the same way. Rules that tie several parameters together are
:class:`Rule` entries of the agent's ``parameter_rules``.
"""

from __future__ import annotations

import dataclasses
import math
import numbers
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from bandit_envs.errors import InvalidParameterError

__all__ = [
    "AnyOf",
    "Array",
    "Boolean",
    "Choice",
    "Constraint",
    "Integer",
    "Is",
    "Real",
    "Rule",
    "Satisfies",
    "validate_parameters",
]


class Constraint:
    """What one parameter may be: :meth:`accepts` a value, :meth:`describe` it in words."""

    def accepts(self, value: Any) -> bool:
        """Whether ``value`` satisfies the constraint."""
        raise NotImplementedError

    def describe(self) -> str:
        """The constraint as the end of "<name> must be ...", e.g. ``"an integer >= 1"``."""
        raise NotImplementedError

    def __or__(self, other: Constraint) -> AnyOf:
        return AnyOf((self, other))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.describe()!r})"


@dataclasses.dataclass(frozen=True, repr=False)
class AnyOf(Constraint):
    """Any of several constraints (written ``a | b``)."""

    options: tuple[Constraint, ...]

    def accepts(self, value: Any) -> bool:
        """Whether one of the options accepts ``value``."""
        return any(option.accepts(value) for option in self.options)

    def describe(self) -> str:
        """The options joined by "or"."""
        return " or ".join(option.describe() for option in self.options)

    def __or__(self, other: Constraint) -> AnyOf:
        return AnyOf((*self.options, other))


def _is_real(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _bound_text(lo: float | None, hi: float | None, lo_open: bool, hi_open: bool) -> str:
    if lo is not None and hi is not None:
        return f"in {'(' if lo_open else '['}{lo:g}, {hi:g}{')' if hi_open else ']'}"
    if lo is not None:
        return f"{'>' if lo_open else '>='} {lo:g}"
    if hi is not None:
        return f"{'<' if hi_open else '<='} {hi:g}"
    return ""


@dataclasses.dataclass(frozen=True, repr=False)
class Integer(Constraint):
    """An integer (``bool`` and floats refused) with optional bounds ``min <= value <= max``."""

    min: int | None = None
    max: int | None = None

    def accepts(self, value: Any) -> bool:
        """Whether ``value`` is an integer within the bounds."""
        if isinstance(value, bool) or not isinstance(value, numbers.Integral):
            return False
        number = int(value)
        return (self.min is None or number >= self.min) and (self.max is None or number <= self.max)

    def describe(self) -> str:
        """E.g. ``"an integer >= 1"``."""
        bound = _bound_text(self.min, self.max, False, False)
        return f"an integer {bound}".rstrip()


@dataclasses.dataclass(frozen=True, repr=False)
class Real(Constraint):
    """A finite real number (``bool`` refused) with optional strict or closed bounds."""

    gt: float | None = None
    ge: float | None = None
    lt: float | None = None
    le: float | None = None

    def accepts(self, value: Any) -> bool:
        """Whether ``value`` is a finite real number within the bounds."""
        if not _is_real(value) or not math.isfinite(value):
            return False
        return (
            (self.gt is None or value > self.gt)
            and (self.ge is None or value >= self.ge)
            and (self.lt is None or value < self.lt)
            and (self.le is None or value <= self.le)
        )

    def describe(self) -> str:
        """E.g. ``"a finite float > 0"`` or ``"a float in (0, 1)"``."""
        lo = self.gt if self.gt is not None else self.ge
        hi = self.lt if self.lt is not None else self.le
        bound = _bound_text(lo, hi, self.gt is not None, self.lt is not None)
        if lo is not None and hi is not None:
            return f"a float {bound}"
        return f"a finite float {bound}".rstrip()


@dataclasses.dataclass(frozen=True, repr=False)
class Choice(Constraint):
    """One of a few values (compared with ``==``, types included: ``True`` is not ``1``)."""

    values: tuple[Any, ...]

    def __init__(self, *values: Any) -> None:
        object.__setattr__(self, "values", values)

    def accepts(self, value: Any) -> bool:
        """Whether ``value`` is one of the choices."""
        return any(type(value) is type(v) and value == v for v in self.values)

    def describe(self) -> str:
        """E.g. ``"one of 'greedy', 'ratio'"`` (or just ``"'greedy'"``)."""
        if len(self.values) == 1:
            return repr(self.values[0])
        return "one of " + ", ".join(repr(v) for v in self.values)


@dataclasses.dataclass(frozen=True, repr=False)
class Is(Constraint):
    """Exactly one object, compared by identity (``Is(None)``)."""

    value: Any

    def accepts(self, value: Any) -> bool:
        """Whether ``value`` is that object."""
        return value is self.value

    def describe(self) -> str:
        """E.g. ``"None"``."""
        return repr(self.value)


@dataclasses.dataclass(frozen=True, repr=False)
class Boolean(Constraint):
    """``True`` or ``False`` (numpy booleans too, not 0 or 1)."""

    def accepts(self, value: Any) -> bool:
        """Whether ``value`` is a boolean."""
        return isinstance(value, (bool, np.bool_))

    def describe(self) -> str:
        """``"True or False"``."""
        return "True or False"


@dataclasses.dataclass(frozen=True, repr=False)
class Array(Constraint):
    """An array-like of finite numbers with ``ndim`` dimensions (and optional bounds)."""

    ndim: int
    ge: float | None = None
    gt: float | None = None

    def accepts(self, value: Any) -> bool:
        """Whether ``value`` converts to a finite float array of the right shape and bounds."""
        if isinstance(value, (str, bytes)):
            return False
        try:
            arr = np.asarray(value, dtype=np.float64)
        except (TypeError, ValueError):
            return False
        if arr.ndim != self.ndim or arr.size == 0 or not np.all(np.isfinite(arr)):
            return False
        return bool(
            (self.ge is None or np.all(arr >= self.ge))
            and (self.gt is None or np.all(arr > self.gt))
        )

    def describe(self) -> str:
        """E.g. ``"a 1-D array of finite floats >= 0"``."""
        bound = _bound_text(
            self.gt if self.gt is not None else self.ge, None, self.gt is not None, False
        )
        return f"a {self.ndim}-D array of finite floats {bound}".rstrip()


@dataclasses.dataclass(frozen=True, repr=False)
class Satisfies(Constraint):
    """A value for which ``check(value)`` is true (and does not raise); described in words."""

    check: Callable[[Any], bool]
    description: str

    def accepts(self, value: Any) -> bool:
        """Whether ``check(value)`` is true."""
        try:
            return bool(self.check(value))
        except (TypeError, ValueError, InvalidParameterError):
            return False

    def describe(self) -> str:
        """The description given."""
        return self.description


@dataclasses.dataclass(frozen=True)
class Rule:
    """A rule tying several parameters together.

    Attributes:
        params: the parameters involved (shown with their values when the rule fails).
        holds: a function of the parameters' values (in the order of ``params``), true when the
            combination is valid.
        requirement: what the rule asks, as a sentence fragment, e.g.
            ``"theta_bound must be given when confidence='self_normalized'"``.
    """

    params: tuple[str, ...]
    holds: Callable[..., bool]
    requirement: str


def validate_parameters(
    who: str,
    values: Mapping[str, Any],
    constraints: Mapping[str, Constraint],
    rules: Sequence[Rule] = (),
) -> None:
    """Check hyper-parameter values against their constraints; raise on the first violation.

    Args:
        who: the agent's name, first word of the message.
        values: the parameters' values (``agent.get_params()``).
        constraints: the table ``{name: constraint}``; parameters it does not list are free.
        rules: rules over several parameters, checked after the table.

    Raises:
        InvalidParameterError: ``"<who>: <name> must be <constraint>; got <value!r>."``, or for a
            rule ``"<who>: <requirement>; got a=..., b=...."``.
    """
    for name, constraint in constraints.items():
        value = values[name]
        if not constraint.accepts(value):
            raise InvalidParameterError(
                f"{who}: {name} must be {constraint.describe()}; got {value!r}."
            )
    for rule in rules:
        args = [values[name] for name in rule.params]
        if not rule.holds(*args):
            shown = ", ".join(f"{name}={values[name]!r}" for name in rule.params)
            raise InvalidParameterError(f"{who}: {rule.requirement}; got {shown}.")


def is_number(value: Any) -> bool:
    """Whether ``value`` is an int or a float (not a bool): e.g. a constant threshold."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)
