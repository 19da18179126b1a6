"""The compiled top-m kernels: selection (LinGIFA's m-th largest) and m-LinGapE's decision pieces,
against NumPy oracles written here (sorting, partition) and against the unpruned decision."""

from __future__ import annotations

import numpy as np
import pytest

from agents.common.kernels import pair_index
from agents.common.kernels import top_m as top_m_kernels
from agents.eps_good.top_m import LinGIFA, MLinGapE
from agents.linear_bai.lingape import LinGapE
from bandit_envs.core.env import PureExplorationEnv
from bandit_envs.core.models import LinearGaussian
from bandit_envs.core.tasks import AllEpsilonGood, BestArm


@pytest.mark.parametrize("n", [1, 2, 3, 17, 200])
def test_kth_smallest_is_numpys_partition_value(n):
    rng = np.random.default_rng(n)
    for trial in range(30):
        x = rng.integers(-4, 5, size=n).astype(float)  # many ties
        if trial % 3 == 0:
            x = rng.normal(size=n)
        if trial % 4 == 0:
            x[rng.integers(n)] = -np.inf
        if trial % 7 == 0:
            x[:] = 2.5  # all equal
        for kth in {0, n // 2, n - 1, int(rng.integers(n))}:
            buf = x.copy()
            got = pair_index.kth_smallest(buf, n, kth)
            assert got == np.partition(x, kth)[kth]
            assert np.array_equal(np.sort(buf), np.sort(x))  # reordered, nothing lost


def _state(mu: np.ndarray) -> np.ndarray:
    """A column-state-shaped array whose column 1 holds ``mu``."""
    m = np.zeros((mu.size, 4), order="F")
    m[:, 1] = mu
    return m


@pytest.mark.parametrize("k", [2, 5, 40])
def test_top_m_set_is_the_stable_sort_and_the_eps_rule(k):
    rng = np.random.default_rng(k)
    in_j, idx = np.zeros(k, dtype=bool), np.zeros(3 * k, dtype=np.int64)
    for trial in range(40):
        mu = rng.integers(0, 4, size=k).astype(float) / 4  # ties
        if trial % 5 == 0:
            mu[:] = 0.5  # every arm equal: the ε-rule drops the first minimiser
        m = _state(mu)
        for top in range(1, k):
            nj = top_m_kernels.top_m_set(m, top, 0.0, in_j, idx)
            want = np.sort(np.argsort(-mu, kind="stable")[:top])
            assert nj == top and np.array_equal(idx[:nj], want)
            assert np.array_equal(np.flatnonzero(in_j), want)
        eps = 0.3
        nj = top_m_kernels.top_m_set(m, -1, eps, in_j, idx)
        want_mask = mu >= mu.max() - eps
        if want_mask.all():
            want_mask[int(np.argmin(mu))] = False
        assert np.array_equal(in_j, want_mask)
        assert np.array_equal(idx[:nj], np.flatnonzero(want_mask))


def test_pruned_decision_is_the_unpruned_decision():
    """With |J| ≥ PRUNE_ROWS the pruned pairs give the same (b, c) and B as every pair."""
    rng = np.random.default_rng(3)
    k, h = 160, 5
    features, theta = rng.normal(size=(k, h)), rng.normal(size=h)
    env = PureExplorationEnv(
        LinearGaussian(features, theta, 1.0), AllEpsilonGood(0.3), delta=0.05, max_samples=10**6
    )
    _, info = env.reset(seed=0)
    agent = MLinGapE(m=6, confidence="heuristic")
    agent.reset(info["problem"], np.random.default_rng(0))
    assert agent._prune and 6 >= top_m_kernels.PRUNE_ROWS
    checked = 0
    for pulls in range(1, 3001):
        arm = agent.select()
        if arm is None:
            break
        obs, *_ = env.step(arm)
        agent.observe(arm, obs)
        if pulls > k and pulls % 97 == 0:
            common = (agent._in_j, agent._idx, agent._work, 6, 0.0, agent._width(), 0.0)
            pruned = top_m_kernels.mlingape_select(*agent._state, *common, True, True)
            every = top_m_kernels.mlingape_select(*agent._state, *common, False, True)
            assert pruned[:2] == every[:2] and pruned[3] == every[3]
            assert pruned[2] == pytest.approx(every[2], rel=1e-12, abs=1e-12)
            checked += 1
    assert checked >= 10


def test_lingifa_exact_lower_bounds_leave_about_m_candidates():
    """The lower bounds from exact pair indices (rows of the m + 2 largest means) leave about m
    candidates for J(t) once the first round is over, on a K = 300 instance with wide widths
    (the decisions stay exact: ``tests/agents/eps_good/test_top_m.py``)."""
    rng = np.random.default_rng(6)
    k, h = 300, 8
    features, theta = rng.normal(size=(k, h)), rng.normal(size=h)
    means = np.sort(features @ theta)[::-1]
    env = PureExplorationEnv(
        LinearGaussian(features, theta, 1.0),
        AllEpsilonGood(float(means[0] - (means[3] + means[4]) / 2)),
        delta=0.05,
        max_samples=10**6,
    )
    _, info = env.reset(seed=0)
    agent = LinGIFA()
    agent.reset(info["problem"], np.random.default_rng(0))
    for pulls in range(1, 1001):
        arm = agent.select()
        assert arm is not None
        obs, *_ = env.step(arm)
        agent.observe(arm, obs)
        if pulls in (400, 1000):
            m = agent._current_m()
            cand, _ = agent._prune_indices(m, agent._width())
            assert m <= cand.size <= m + 2


@pytest.mark.parametrize("selection", ["greedy", "ratio"])
def test_m_equal_one_is_lingape_bit_for_bit(selection):
    """m-LinGapE with m = 1 runs LinGapE's rounded operations on the same column state: the same
    pair, the same gap index to the last bit, the same arms."""
    rng = np.random.default_rng(11)
    features, theta = rng.normal(size=(40, 3)), np.array([1.0, -0.5, 0.3])
    means = np.sort(features @ theta)
    model = LinearGaussian(features, theta, 1.0)
    best_env = PureExplorationEnv(model, BestArm(), delta=0.05, max_samples=3000)
    eps_env = PureExplorationEnv(
        model, AllEpsilonGood(float(means[-1] - means[-2]) / 2), delta=0.05, max_samples=3000
    )
    ref = LinGapE(selection=selection, confidence="self_normalized_ols")
    ours = MLinGapE(m=1, selection=selection)
    best_env.reset(seed=5)
    eps_env.reset(seed=5)
    ref.reset(best_env.unwrapped.problem, np.random.default_rng(5))
    ours.reset(eps_env.unwrapped.problem, np.random.default_rng(5))
    steps = 0
    while True:
        arm = ref.select()
        assert ours.select() == arm
        if arm is None or steps == 2500:
            break
        if ref._ready:
            assert (ours._best, ours._challenger) == (ref._best, ref._challenger)
            assert ours._index == ref._index
        a, *_ = best_env.step(arm)
        b, *_ = eps_env.step(arm)
        ref.observe(arm, a)
        ours.observe(arm, b)
        steps += 1
    assert steps > 100
