"""Declarative parameter validation (agents.common.params): each constraint, the message shape,
rules, the BaseAgent hook, and every catalogue agent's table."""

from __future__ import annotations

import math

import numpy as np
import pytest

from agents.base import BaseAgent
from agents.common.params import (
    AnyOf,
    Array,
    Boolean,
    Choice,
    Integer,
    Is,
    Real,
    Rule,
    Satisfies,
    is_number,
    validate_parameters,
)
from agents.discovery import find_agents
from bandit_envs.core.problem import ProblemSpec
from bandit_envs.core.protocols import AgentCapabilities
from bandit_envs.errors import InvalidParameterError

# ------------------------------------------------------------------------------ constraints


@pytest.mark.parametrize(
    ("constraint", "good", "bad", "text"),
    [
        (Integer(), [0, -3, np.int64(7)], [1.0, True, "1", None], "an integer"),
        (Integer(min=1), [1, 10**20], [0, -1, 1.5], "an integer >= 1"),
        (Integer(max=3), [3, -5], [4], "an integer <= 3"),
        (Integer(min=0, max=2), [0, 2], [-1, 3], "an integer in [0, 2]"),
        (
            Real(),
            [0, -1.5, np.float32(2.0), 3],
            [math.inf, math.nan, True, "1", None],
            "a finite float",
        ),
        (Real(gt=0), [1e-300, 2], [0, -1.0, math.inf], "a finite float > 0"),
        (Real(ge=0), [0, 0.0, 5], [-1e-12], "a finite float >= 0"),
        (Real(lt=1), [0.999, -7], [1, 1.5], "a finite float < 1"),
        (Real(gt=0, lt=1), [0.5, 1e-9], [0, 1, 1.0, math.nan], "a float in (0, 1)"),
        (Real(ge=0, le=1), [0, 1], [-0.1, 1.1], "a float in [0, 1]"),
        (Choice("a", "b"), ["a", "b"], ["c", None, b"a"], "one of 'a', 'b'"),
        (Choice("only"), ["only"], ["Only"], "'only'"),
        (Choice(1, 2), [1, 2], [True, 1.0, np.int64(1)], "one of 1, 2"),
        (Is(None), [None], [0, "None", False], "None"),
        (Boolean(), [True, False, np.bool_(True)], [0, 1, "True", None], "True or False"),
        (
            Array(ndim=1),
            [[0.0, 1.0], np.zeros(3), (1, 2)],
            [[], [[1.0]], 1.0, [np.nan], ["a"], "ab"],
            "a 1-D array of finite floats",
        ),
        (Array(ndim=2, ge=0), [[[0.0, 1.0]]], [[[-1.0]]], "a 2-D array of finite floats >= 0"),
        (Array(ndim=1, gt=0), [[1.0, 2.0]], [[0.0, 1.0]], "a 1-D array of finite floats > 0"),
        (
            Satisfies(lambda v: len(v) == 2, "a pair"),
            [(1, 2), "ab"],
            [(1,), 3, None],  # len(3) raises TypeError: refused, not propagated
            "a pair",
        ),
    ],
)
def test_constraint_accepts_refuses_and_describes(constraint, good, bad, text):
    for value in good:
        assert constraint.accepts(value), value
    for value in bad:
        assert not constraint.accepts(value), value
    assert constraint.describe() == text
    assert repr(constraint) == f"{type(constraint).__name__}({text!r})"


def test_satisfies_refuses_when_its_check_raises_an_invalid_parameter_error():
    def check(value):
        raise InvalidParameterError("no")

    assert not Satisfies(check, "anything").accepts(1)
    with pytest.raises(ZeroDivisionError):  # any other error is a bug of the check: it propagates
        Satisfies(lambda v: 1 / 0, "never").accepts(1)


def test_or_builds_a_flat_any_of():
    constraint = Is(None) | Choice("hint") | Integer(min=1)
    assert isinstance(constraint, AnyOf)
    assert len(constraint.options) == 3
    assert constraint.describe() == "None or 'hint' or an integer >= 1"
    assert all(constraint.accepts(v) for v in (None, "hint", 3))
    assert not any(constraint.accepts(v) for v in (0, "other", 2.0))


def test_is_number():
    assert is_number(1) and is_number(2.5)
    assert not is_number(True) and not is_number("1") and not is_number(None)


# --------------------------------------------------------------------------- validation


def test_validate_parameters_message_shape_and_order():
    table = {"alpha": Real(gt=0, lt=1), "mode": Choice("a", "b")}
    validate_parameters("Agent", {"alpha": 0.5, "mode": "a", "free": object()}, table)
    with pytest.raises(InvalidParameterError) as info:
        validate_parameters("Agent", {"alpha": 1.0, "mode": "c"}, table)
    assert str(info.value) == "Agent: alpha must be a float in (0, 1); got 1.0."  # first in order
    with pytest.raises(InvalidParameterError) as info:
        validate_parameters("Agent", {"alpha": 0.5, "mode": "c"}, table)
    assert str(info.value) == "Agent: mode must be one of 'a', 'b'; got 'c'."
    assert isinstance(info.value, ValueError) and isinstance(info.value, TypeError)


def test_rules_run_after_the_table():
    rule = Rule(("low", "high"), lambda lo, hi: lo <= hi, "low must not exceed high")
    table = {"low": Real(), "high": Real()}
    validate_parameters("Agent", {"low": 1, "high": 2}, table, (rule,))
    with pytest.raises(InvalidParameterError) as info:
        validate_parameters("Agent", {"low": 3, "high": 2}, table, (rule,))
    assert str(info.value) == "Agent: low must not exceed high; got low=3, high=2."
    with pytest.raises(InvalidParameterError, match="high must be a finite float"):
        validate_parameters("Agent", {"low": 3, "high": "x"}, table, (rule,))


# ------------------------------------------------------------------------ the BaseAgent hook


class _Toy(BaseAgent):
    capabilities = AgentCapabilities(tasks=frozenset({"best_arm"}))
    parameters = {"width": Integer(min=1)}
    parameter_rules = (Rule(("width", "mode"), lambda w, m: m == "any" or w == 1, "need w = 1"),)

    def __init__(self, width: int = 1, mode: str = "any") -> None:
        self.width = width
        self.mode = mode

    def _on_reset(self, spec: ProblemSpec) -> None:
        self.reached = True


def _spec() -> ProblemSpec:
    return ProblemSpec(
        task="best_arm",
        setting="fixed_confidence",
        n_arms=2,
        n_items=2,
        outcome_dim=1,
        features=np.eye(2),
        delta=0.1,
    )


def test_reset_validates_before_the_episode_starts():
    agent = _Toy(width=0)
    with pytest.raises(
        InvalidParameterError, match=r"^_Toy: width must be an integer >= 1; got 0\.$"
    ):
        agent.reset(_spec(), np.random.default_rng(0))
    assert not hasattr(agent, "reached") and not hasattr(agent, "spec")
    agent = _Toy(width=2, mode="strict")
    with pytest.raises(InvalidParameterError, match="need w = 1; got width=2, mode='strict'"):
        agent.reset(_spec(), np.random.default_rng(0))
    agent = _Toy(width=2)
    agent.reset(_spec(), np.random.default_rng(0))
    assert agent.reached


def test_a_table_naming_an_unknown_parameter_is_refused_when_the_class_is_defined():
    with pytest.raises(TypeError, match=r"the constraints name \['widht'\]"):

        class _Typo(BaseAgent):
            parameters = {"widht": Integer()}

            def __init__(self, width: int = 1) -> None:
                self.width = width

    with pytest.raises(TypeError, match=r"the constraints name \['other'\]"):

        class _BadRule(BaseAgent):
            parameter_rules = (Rule(("other",), bool, "x"),)

            def __init__(self, width: int = 1) -> None:
                self.width = width


# ----------------------------------------------------------------------- the catalogue's tables

AGENTS = find_agents()


@pytest.mark.parametrize("name", list(AGENTS))
def test_every_catalogue_agent_accepts_its_defaults(name):
    cls = AGENTS[name]
    agent = cls()
    validate_parameters(name, agent.get_params(), cls.parameters, cls.parameter_rules)


class _Invalid:
    """A value no constraint of the zoo accepts."""

    def __repr__(self) -> str:
        return "<invalid>"


@pytest.mark.parametrize(
    ("name", "param"),
    [(name, param) for name, cls in AGENTS.items() for param in cls.parameters],
)
def test_every_declared_parameter_refuses_an_invalid_value_with_the_shared_message(name, param):
    cls = AGENTS[name]
    agent = cls().set_params(**{param: _Invalid()})
    with pytest.raises(InvalidParameterError) as info:
        validate_parameters(name, agent.get_params(), cls.parameters, cls.parameter_rules)
    constraint = cls.parameters[param]
    assert str(info.value) == f"{name}: {param} must be {constraint.describe()}; got <invalid>."


@pytest.mark.parametrize("name", list(AGENTS))
def test_every_constructor_parameter_is_declared(name):
    cls = AGENTS[name]
    assert set(cls.parameters) == set(cls().get_params())
