"""One pull draws exactly what the vector expression ``μ_arm + σ ⊙ N(0, I_m)`` draws.

The reward models' single pull uses Python floats on its hot path (``_draw_row``); these tests
replay every episode with a twin of the env's Generator and the plain NumPy expression of one
pull, on many seeds, interleaved with batches and resets, and require bit-identical outcomes
and the same Generator state afterwards (so nothing drawn later shifts either).
"""

from __future__ import annotations

import copy

import gymnasium as gym
import numpy as np
import pytest

import bandit_envs  # noqa: F401
from bandit_envs import LinearGaussian, LogisticGLM

#: three Pareto-optimal arms with positive gaps (m = 2)
THETA_3x2 = np.array([[1.0, 0.1], [0.2, 0.9], [0.6, 0.55]])

#: (id, keywords): m = 1, 2, 3 (the Python-float path), m = 5 (the NumPy path), and the
#: misspecified model (LinearGaussian's noise on arbitrary means).
GAUSSIAN_IDS = [
    ("LinearBAI-Soare-v0", {}),
    ("LinearPSI-Synthetic-v0", {"K": 20}),
    ("ConstrainedMixed-Table1-v0", {}),
    ("MisspecifiedEpsGood-Adaptive-v0", {}),
    (
        "LinearPSI-Custom-v0",
        {"features": np.eye(4), "theta": np.arange(20.0).reshape(4, 5) / 10.0, "sigma": 0.7},
    ),
    (
        "LinearPSI-Custom-v0",
        {"features": np.eye(3), "theta": THETA_3x2, "sigma": [0.3, 1.7]},
    ),
]


def _sigma(problem) -> np.ndarray:
    return np.broadcast_to(np.asarray(problem.noise_std, dtype=np.float64), (problem.outcome_dim,))


def _replay(env, reference, seeds: range, pulls: int) -> None:
    base = env.unwrapped
    k = base.n_arms
    choose = np.random.default_rng(12345)
    for seed in seeds:
        env.reset(seed=seed)
        twin = copy.deepcopy(base.np_random)
        for t in range(pulls):
            if t % 17 == 16:  # a batch in between: the stream continues where the pulls left it
                counts = choose.integers(0, 3, size=k)
                counts[0] += 1
                sums = base.step_batch(counts)[0]
                np.testing.assert_array_equal(sums, base.model.sample_sums(counts, twin))
                continue
            arm = int(choose.integers(k))
            obs = env.step(arm)[0]
            expected = reference(base, arm, twin)
            assert obs.dtype == np.float64 and obs.shape == expected.shape
            np.testing.assert_array_equal(obs, expected)
        assert base.np_random.bit_generator.state == twin.bit_generator.state


@pytest.mark.parametrize(("env_id", "kwargs"), GAUSSIAN_IDS)
def test_gaussian_single_pull_equals_the_vector_expression(env_id, kwargs):
    env = gym.make(env_id, budget=10**6, **kwargs)

    def reference(base, arm, rng):
        m = base.model.outcome_dim
        return base.model.means[arm] + _sigma(base.problem) * rng.standard_normal(m)

    _replay(env, reference, range(100), 60)


def test_correlated_noise_keeps_the_factor_path():
    cov = [[1.0, 0.5], [0.5, 2.0]]
    model = LinearGaussian(np.eye(3), THETA_3x2, cov=cov)
    env = bandit_envs.PureExplorationEnv(model, bandit_envs.ParetoSet(), budget=10**6)
    factor = np.linalg.cholesky(np.asarray(cov))

    def reference(base, arm, rng):
        return base.model.means[arm] + factor @ rng.standard_normal(2)

    _replay(env, reference, range(50), 40)


def test_bernoulli_single_pull_equals_the_uniform_comparison():
    env = gym.make("LogisticEpsGood-Adaptive-v0", budget=10**6)
    assert isinstance(env.unwrapped.model, LogisticGLM)

    def reference(base, arm, rng):
        return np.array([1.0 if rng.random() < base.model.means[arm, 0] else 0.0])

    _replay(env, reference, range(100), 60)


def test_a_returned_outcome_is_the_callers_own():
    env = gym.make("LinearPSI-Synthetic-v0", K=20, budget=100).unwrapped
    env.reset(seed=0)
    obs = env.step(3)[0]
    obs[:] = np.nan
    assert np.all(np.isfinite(env._last))
    first = env.model.sample(3, np.random.default_rng(0))
    second = env.model.sample(3, np.random.default_rng(0))
    first[:] = np.nan
    assert np.all(np.isfinite(second))
