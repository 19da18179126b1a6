"""Block-drawn normals of a single pull: same outcomes, the Generator as single draws leave it.

The environment draws the normals of m ≥ 2 diagonal Gaussian pulls in blocks
(:class:`bandit_envs.core.noise_block.NormalBlock`); whoever reads ``np_random`` must see the
Generator exactly where one-at-a-time draws would have left it. The oracle here is a twin
Generator drawing ``means[arm] + σ ⊙ standard_normal(m)`` pull by pull.
"""

from __future__ import annotations

import copy

import gymnasium as gym
import numpy as np
import pytest

import bandit_envs  # noqa: F401
from bandit_envs.core.noise_block import BLOCK_PULLS, NormalBlock


def _sigma(base) -> np.ndarray:
    m = base.model.outcome_dim
    return np.broadcast_to(np.asarray(base.problem.noise_std, dtype=np.float64), (m,))


def _pull(base, twin: np.random.Generator, arm: int) -> None:
    expected = base.model.means[arm] + _sigma(base) * twin.standard_normal(base.model.outcome_dim)
    np.testing.assert_array_equal(base.step(arm)[0], expected)


def _state(rng: np.random.Generator) -> dict:
    return rng.bit_generator.state


@pytest.mark.parametrize(
    ("env_id", "kw"),
    [("LinearPSI-Synthetic-v0", {"K": 20}), ("ConstrainedMixed-Table1-v0", {})],
)
def test_reading_np_random_mid_block_sees_the_single_draw_stream(env_id, kw):
    base = gym.make(env_id, **kw).unwrapped
    assert base._noise is not None  # the block path is the one under test
    base.reset(seed=3)
    twin = copy.deepcopy(base.np_random)
    rng = np.random.default_rng(0)
    for pulls in (1, 5, BLOCK_PULLS - 1, BLOCK_PULLS + 7, 2):
        for _ in range(pulls):
            _pull(base, twin, int(rng.integers(base.n_arms)))
        assert _state(base.np_random) == _state(twin)  # read mid-block: given back
        # someone else draws from it: the next pulls continue after those draws
        np.testing.assert_array_equal(base.np_random.random(3), twin.random(3))


def test_reset_without_seed_continues_and_a_new_generator_takes_over():
    base = gym.make("LinearPSI-Synthetic-v0", K=20).unwrapped
    base.reset(seed=1)
    twin = copy.deepcopy(base.np_random)
    for arm in (0, 4, 4):
        _pull(base, twin, arm)
    base.reset()  # no seed: the stream continues
    for arm in (1, 2):
        _pull(base, twin, arm)
    old = base.np_random
    new = np.random.default_rng(99)
    new_twin = copy.deepcopy(new)
    base.np_random = new  # the old Generator is left as single draws leave it
    assert _state(old) == _state(twin)
    for arm in (3, 0, 7):
        _pull(base, new_twin, arm)
    base.reset(seed=5)  # a seeded reset: a fresh Generator
    seeded = copy.deepcopy(base.np_random)
    assert _state(seeded) == _state(np.random.default_rng(5))
    _pull(base, seeded, 2)
    assert _state(new) == _state(new_twin)


def test_a_copied_env_mid_block_replays_the_same_outcomes():
    env = gym.make("ConstrainedMixed-Table1-v0")
    env.reset(seed=4)
    for arm in (0, 1, 2):
        env.step(arm)
    clone = copy.deepcopy(env)
    first = [env.step(a)[0] for a in (3, 1, 0)]
    second = [clone.step(a)[0] for a in (3, 1, 0)]
    for a, b in zip(first, second, strict=True):
        np.testing.assert_array_equal(a, b)
    assert _state(env.unwrapped.np_random) == _state(clone.unwrapped.np_random)


@pytest.mark.parametrize("m", [2, 3, 4, 7])
def test_block_outcomes_are_the_vector_expression_across_block_boundaries(m):
    rng = np.random.default_rng(m)
    means, sigma = rng.normal(size=(5, m)), rng.uniform(0.1, 2.0, size=m)
    block = NormalBlock(means, sigma)
    gen, twin = np.random.default_rng(7), np.random.default_rng(7)
    for t in range(2 * BLOCK_PULLS + 3):
        arm = t % 5
        np.testing.assert_array_equal(
            block.draw(arm, gen), means[arm] + sigma * twin.standard_normal(m)
        )
    block.sync()
    assert _state(gen) == _state(twin)


def test_models_with_correlated_noise_or_their_own_sampler_keep_the_model_path():
    from bandit_envs import LinearGaussian

    cov = np.array([[1.0, 0.5], [0.5, 1.0]])
    correlated = LinearGaussian(np.eye(2), np.eye(2), cov=cov)
    assert correlated.diagonal_noise() is None

    class Shifted(LinearGaussian):
        def sample(self, arm, rng):
            return super().sample(arm, rng) + 1.0

    assert Shifted(np.eye(2), np.eye(2), sigma=1.0).diagonal_noise() is None
    plain = LinearGaussian(np.eye(2), np.eye(2), sigma=[1.0, 2.0])
    np.testing.assert_array_equal(plain.diagonal_noise(), [1.0, 2.0])
