import copy
import dataclasses
import pickle

import numpy as np
import pytest

from bandit_envs import ProblemSpec
from bandit_envs.core.problem import ReadOnlyMapping, grade


def make_spec(**kw):
    base = dict(
        task="best_arm",
        setting="fixed_confidence",
        n_arms=3,
        n_items=3,
        outcome_dim=1,
        features=np.eye(3),
        delta=0.1,
    )
    base.update(kw)
    return ProblemSpec(**base)


def test_spec_is_frozen_and_arrays_read_only():
    features = np.eye(3)
    spec = make_spec(features=features)
    with pytest.raises(AttributeError):
        spec.delta = 0.2
    with pytest.raises(ValueError, match="read-only"):
        spec.features[0, 0] = 5.0
    features[0, 0] = 7.0  # the ProblemSpec holds a copy
    assert spec.features[0, 0] == 1.0
    with pytest.raises(TypeError):
        spec.extras["x"] = 1


def test_spec_fields_and_replace():
    spec = make_spec()
    for name in (
        "task",
        "setting",
        "n_arms",
        "n_items",
        "outcome_dim",
        "features",
        "noise_std",
        "delta",
        "budget",
        "max_samples",
        "epsilon",
        "cost_thresholds",
        "link",
        "misspecification",
    ):
        assert hasattr(spec, name)
    assert spec.budget is None and spec.epsilon is None
    assert spec.fixed_confidence and not spec.fixed_budget
    assert spec.feature_dim == 3
    other = spec.replace(setting="fixed_budget", delta=None, budget=10)
    assert other.fixed_budget and other.budget == 10 and spec.delta == 0.1
    with pytest.raises(ValueError, match="setting must be one of"):
        make_spec(setting="pac")


def test_grade_metrics():
    g = grade(frozenset({0, 1}), frozenset({1, 2}))
    assert not g.correct
    assert g.precision == 0.5 and g.recall == 0.5 and g.f1 == 0.5
    assert grade(frozenset({1}), frozenset({1})).correct
    empty = grade(frozenset(), frozenset())
    assert empty.correct and empty.f1 == 1.0
    miss = grade(frozenset(), frozenset({1}))
    assert miss.precision == 0.0 and miss.recall == 0.0 and miss.f1 == 0.0


def test_extras_are_a_read_only_mapping_that_pickles():
    source = {"m_hint": 2, "known_arms": (1,)}
    extras = ReadOnlyMapping(source)
    source["m_hint"] = 5  # the mapping holds its own copy
    assert extras == {"m_hint": 2, "known_arms": (1,)} and len(extras) == 2
    assert list(extras) == ["m_hint", "known_arms"] and extras.get("absent") is None
    assert "m_hint" in extras and "absent" not in extras and extras.get("absent", 4) == 4
    assert extras.get("known_arms") == (1,) and dict(extras.items()) == dict(extras)
    assert repr(extras) == "ReadOnlyMapping({'m_hint': 2, 'known_arms': (1,)})"
    with pytest.raises(TypeError, match="does not support item assignment"):
        extras["m_hint"] = 3  # type: ignore[index]
    with pytest.raises(AttributeError):
        extras.other = 1  # type: ignore[attr-defined]  # no instance dict
    for clone in (pickle.loads(pickle.dumps(extras)), copy.deepcopy(extras), copy.copy(extras)):
        assert type(clone) is ReadOnlyMapping and clone == extras
    assert ReadOnlyMapping() == {} and ReadOnlyMapping(None) == {}


@pytest.mark.parametrize("how", ["pickle", "deepcopy", "copy"])
def test_spec_copies_are_equal_checked_and_read_only(how):
    frozen = np.arange(4.0).reshape(2, 2)
    frozen.setflags(write=False)
    spec = make_spec(
        task="constrained_mixed",
        n_items=5,
        outcome_dim=3,
        noise_std=np.array([1.0, 0.5, 0.5]),
        cost_thresholds=np.array([0.3, 0.4]),
        extras={"known_arms": (0, 2), "known_means": frozen, "scratch": np.zeros(2)},
        name="example",
    )
    clone = {
        "pickle": lambda s: pickle.loads(pickle.dumps(s)),
        "deepcopy": copy.deepcopy,
        "copy": copy.copy,
    }[how](spec)
    assert type(clone) is ProblemSpec and clone is not spec
    for field in dataclasses.fields(ProblemSpec):
        mine, theirs = getattr(spec, field.name), getattr(clone, field.name)
        if isinstance(mine, np.ndarray):
            np.testing.assert_array_equal(theirs, mine)
            assert not theirs.flags.writeable, field.name  # still read-only in the copy
        elif field.name != "extras":
            assert theirs == mine, field.name
    assert isinstance(clone.extras, ReadOnlyMapping)
    assert clone.extras.keys() == spec.extras.keys() and clone.extras["known_arms"] == (0, 2)
    np.testing.assert_array_equal(clone.extras["known_means"], frozen)
    assert not clone.extras["known_means"].flags.writeable  # read-only stays read-only
    assert clone.extras["scratch"].flags.writeable  # and a writeable value stays writeable
    assert repr(clone) == repr(spec)


@dataclasses.dataclass(frozen=True, eq=False)
class LabelledSpec(ProblemSpec):
    """A user's subclass with one more field."""

    label: str = "mine"


def test_a_spec_subclass_copies_as_itself():
    spec = LabelledSpec(
        task="best_arm", setting="fixed_budget", n_arms=2, n_items=2, outcome_dim=1, budget=5
    )
    for clone in (pickle.loads(pickle.dumps(spec)), copy.deepcopy(spec)):
        assert type(clone) is LabelledSpec and clone.label == "mine" and clone.budget == 5
