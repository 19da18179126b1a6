"""The linear best-arm instances of Soare, Lazaric & Munos (2014) and of Zaki, Mohan & Gopalan
(2020)."""

import re

import gymnasium as gym
import numpy as np
import pytest

import bandit_envs  # noqa: F401
from bandit_envs import InvalidParameterError, run_episode


def test_basis_matches_the_closed_form_complexity():
    """Zaki et al., Section 6, Setting 1 (d = 5): D = gap^2/(1 + sqrt(d - 1))^2 at
    w* = (1/3, 1/6, 1/6, 1/6, 1/6), our closed form."""
    for gap in (0.1, 0.3):
        env = gym.make("LinearBAI-Basis-v0", gap=gap).unwrapped
        c = env.complexity()
        assert c["lower_bound"] == pytest.approx(2 * (1 + 2) ** 2 / gap**2, rel=1e-5)
        np.testing.assert_allclose(c["oracle_weights"], [1 / 3] + [1 / 6] * 4, atol=1e-3)
        assert env.problem.delta == 0.1


def test_sphere_instance_construction_and_instance_seed():
    env = gym.make("LinearBAI-Sphere-v0").unwrapped
    x = env.problem.features
    assert x.shape == (100, 10)
    np.testing.assert_allclose(np.linalg.norm(x, axis=1), 1.0)
    inner = x @ x.T
    np.fill_diagonal(inner, -np.inf)
    u, v = np.unravel_index(np.argmax(inner), inner.shape)
    mu = env.model.means.ravel()
    best = int(np.argmax(mu))
    assert best in (u, v)
    other = v if best == u else u
    # Zaki et al., Section 6, Setting 2: theta = u + gamma (v - u) for the two closest arms u, v,
    # so the closest competitor trails by (1 - u'v)(1 - 2 gamma)
    assert mu[best] - mu[other] == pytest.approx((1 - inner[u, v]) * (1 - 2 * 0.01), rel=1e-9)
    same = gym.make("LinearBAI-Sphere-v0").unwrapped
    np.testing.assert_array_equal(same.problem.features, x)  # instance from instance_seed only
    other_instance = gym.make("LinearBAI-Sphere-v0", instance_seed=1).unwrapped
    assert not np.allclose(other_instance.problem.features, x)
    small = gym.make("LinearBAI-Sphere-v0", n_arms=8, d=3, budget=40)
    assert small.unwrapped.problem.features.shape == (8, 3)


def test_soare_peleg_preset_and_paper_preset():
    peleg = gym.make("LinearBAI-Soare-v0", d=3, omega=0.1, scale=1.0).unwrapped
    np.testing.assert_allclose(peleg.model.theta, [1.0, 0.0, 0.0])
    paper = gym.make("LinearBAI-Soare-v0", d=5, omega=0.01).unwrapped
    assert paper.complexity()["h_lb"] == pytest.approx(10100.84, rel=1e-3)


@pytest.mark.parametrize(
    "env_id, kwargs, message",
    [
        ("LinearBAI-Basis-v0", {"gap": 0.0}, "gap must be > 0; got 0.0."),
        ("LinearBAI-Basis-v0", {"d": 1}, "d must be an integer >= 2; got 1."),
        (
            "LinearBAI-Sphere-v0",
            {"gamma": 0.5},
            "gamma must be in [0, 0.5) so that u stays the best arm; got 0.5.",
        ),
        ("LinearBAI-Sphere-v0", {"n_arms": 1}, "n_arms must be an integer >= 2; got 1."),
        (
            "LinearBAI-Sphere-v0",
            {"instance_seed": -1},
            "instance_seed must be an integer >= 0; got -1.",
        ),
        ("LinearBAI-Sphere-v0", {"K": 10}, "LinearBAI-Sphere-v0: unknown keyword 'K'."),
    ],
)
def test_bad_keywords(env_id, kwargs, message):
    with pytest.raises((InvalidParameterError, TypeError), match=re.escape(message)):
        gym.make(env_id, **kwargs)


@pytest.mark.parametrize("env_id", ["LinearBAI-Basis-v0", "LinearBAI-Sphere-v0"])
def test_uniform_runs_in_both_settings(env_id):
    from agents import Uniform

    kw = {"n_arms": 10, "d": 3} if env_id == "LinearBAI-Sphere-v0" else {"gap": 0.5}
    r = run_episode(gym.make(env_id, **kw), Uniform(), 0)
    assert r.stop_reason == "stopped" and r.lower_bound > 0
    r = run_episode(gym.make(env_id, budget=200, **kw), Uniform(), 0)
    assert r.samples == 200
