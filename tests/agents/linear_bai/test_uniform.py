"""Uniform: δ-correctness of GLR stopping, and batch path ≡ one-pull path."""

import gymnasium as gym
import numpy as np
import pytest
from scipy import stats

from agents import Uniform, check_agent
from bandit_envs import run_episode
from bandit_envs.theory.thresholds import fixed_design_threshold, glr_best_arm


def run_many(env, agent_factory, seeds, **kw):
    return [run_episode(env, agent_factory(), s, **kw) for s in seeds]


def test_uniform_passes_check_agent():
    results = check_agent(Uniform())
    assert all(r.status in ("passed", "skipped") for r in results), results
    assert {r.check for r in results if r.status == "passed"} >= {
        "check_batch_equivalence",
        "check_global_rng",
        "check_no_peeking",
    }


def test_threshold_formula():
    # beta(j, delta) = log((K-1) pi^2 j^2 / (12 delta))
    assert fixed_design_threshold(1, 0.05, 3) == pytest.approx(np.log(2 * np.pi**2 / 0.6))
    assert fixed_design_threshold(10, 0.05, 3) - fixed_design_threshold(
        1, 0.05, 3
    ) == pytest.approx(2 * np.log(10))


def test_glr_statistic_by_hand():
    x = np.eye(2)
    theta = np.array([1.0, 0.4])
    inv = np.eye(2) / 10  # ten pulls of each arm
    best, z = glr_best_arm(x, theta, inv, sigma=2.0)
    # gap 0.6, ||e1 - e2||^2_{A^-1} = 0.2 -> Z = 0.36 / (2 * 4 * 0.2)
    assert best == 0 and z == pytest.approx(0.36 / 1.6)
    assert glr_best_arm(x, theta, inv, sigma=0.0)[1] == np.inf
    assert glr_best_arm(x, np.array([1.0, 1.0]), inv, sigma=1.0)[1] == 0.0


def test_noiseless_run_stops_after_one_round_with_the_right_arm():
    env = gym.make("LinearBAI-Soare-v0", sigma=0.0)
    for batch in (False, True):
        r = run_episode(env, Uniform(), 0, batch=batch)
        assert r.correct and r.samples == 3 and r.stop_reason == "stopped"


@pytest.mark.slow
def test_delta_correct_on_the_default_soare_instance():
    """Error rate <= delta over 200 seeds (LinearBAI-Soare-v0 defaults, delta = 0.05).

    The test has power: the same harness with the heuristic constant threshold beta = 0.5
    (not delta-correct) errs far more often than delta on the same seeds.
    """
    env = gym.make("LinearBAI-Soare-v0")
    delta = env.unwrapped.delta
    records = run_many(env, Uniform, range(200))
    errors = sum(not r.correct for r in records)
    assert all(r.stop_reason == "stopped" for r in records)
    # one-sided binomial test: under error rate delta, P(X >= 17 | n=200, p=0.05) < 0.05
    assert errors <= stats.binom.ppf(0.95, 200, delta), errors
    lower = records[0].lower_bound
    assert np.mean([r.samples for r in records]) > lower  # cannot beat the lower bound
    loose = run_many(env, lambda: Uniform(threshold=0.5), range(200))
    assert sum(not r.correct for r in loose) > stats.binom.ppf(0.999, 200, delta)


@pytest.mark.parametrize("check_every", [1, 5])
def test_batch_and_single_paths_have_the_same_sample_distribution(check_every):
    """Two-sample Kolmogorov–Smirnov test on stopping times, disjoint seeds for each path.

    With check_every=1 a batch is one round (K sums of one pull); with check_every=5 it is a
    sum of five pulls per arm drawn as one Gaussian, so the two paths use different random
    streams and only their distributions can agree. Level 0.001 (fixed seeds: deterministic).
    """
    env = gym.make("LinearBAI-Soare-v0", omega=0.3)
    single = run_many(env, lambda: Uniform(check_every=check_every), range(300), batch=False)
    batch = run_many(env, lambda: Uniform(check_every=check_every), range(1000, 1300), batch=True)
    xs = [r.samples for r in single]
    ys = [r.samples for r in batch]
    assert stats.ks_2samp(xs, ys).pvalue > 1e-3
    assert abs(np.mean(xs) - np.mean(ys)) < 4 * np.std(xs) / np.sqrt(150)
    # the stopping test only happens at multiples of check_every rounds, on both paths
    assert all(s % (3 * check_every) == 0 for s in xs + ys)
