import numpy as np
import pytest

from bandit_envs import ProblemSpec
from bandit_envs.core.problem import grade


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
