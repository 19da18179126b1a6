"""The one check of an answer's form, shared by every layer."""

import numpy as np
import pytest

from bandit_envs import InvalidAnswerError, as_answer
from bandit_envs.theory.pareto import is_eps_pareto_set


@pytest.mark.parametrize(
    "value, message",
    [
        (2, r"must be a set of item indices such as frozenset\(\{0\}\); got 2\."),
        ("01", "must be a set of item indices"),
        ({1.5}, r"must contain integer item indices; got 1\.5"),
        ({True}, "must contain integer item indices; got True"),
        ({3}, r"contains item 3, outside the valid range 0\.\.2\."),
        ({-1}, r"contains item -1, outside the valid range 0\.\.2\."),
    ],
)
def test_as_answer_refuses_malformed(value, message):
    with pytest.raises(InvalidAnswerError, match=message):
        as_answer(value, 3)


def test_as_answer_accepts_iterables_of_ints():
    assert as_answer([0, 2, 2], 3) == frozenset({0, 2})
    assert as_answer(np.array([1]), 3) == frozenset({1})
    assert as_answer(frozenset(), 3) == frozenset()


@pytest.mark.parametrize("value", [2, "01", {1.5}, {True}, {3}, {-1}])
def test_the_math_refuses_answers_with_the_same_message(value):
    """is_eps_pareto_set (bottom layer) and as_answer (what env, runner and wrappers call) agree."""
    with pytest.raises(InvalidAnswerError) as from_math:
        is_eps_pareto_set(value, np.eye(3), 0.0)
    with pytest.raises(InvalidAnswerError) as direct:
        as_answer(value, 3, who="is_eps_pareto_set: answer")
    assert str(from_math.value) == str(direct.value)
