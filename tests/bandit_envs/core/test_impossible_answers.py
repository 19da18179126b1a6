"""Answers no instance of the task could have: refused by run_episode, flagged by the env.

An agent whose ``recommend()`` returns such an answer gets ``AgentProtocolError`` naming the agent
and the rule; a raw ``env.step`` with one is graded as given (an RL policy must not crash) and the
final ``info["malformed_answer"]`` says why.
"""

import re

import gymnasium as gym
import numpy as np
import pytest

from bandit_envs import (
    AgentProtocolError,
    AllEpsilonGood,
    BestArm,
    ConstrainedMixedSupport,
    ParetoSet,
    ProblemSpec,
    run_episode,
)
from bandit_envs.rl.adapters import PolicyAgent


def spec(n_arms=4, outcome_dim=1, n_items=None):
    return ProblemSpec(
        task="t",
        setting="fixed_confidence",
        n_arms=n_arms,
        n_items=n_items or n_arms,
        outcome_dim=outcome_dim,
        delta=0.1,
    )


@pytest.mark.parametrize(
    "task, problem, possible, impossible",
    [
        (BestArm(), spec(), [{0}, {3}], [set(), {0, 1}, {0, 1, 2, 3}]),
        (ParetoSet(), spec(outcome_dim=2), [{0}, {0, 2}, {0, 1, 2, 3}], [set()]),
        (ParetoSet(), spec(outcome_dim=1), [{2}], [set(), {0, 1}]),  # d = 1, ε = 0: unique best
        (ParetoSet(epsilon=0.1), spec(outcome_dim=1), [{2}, {0, 1}], [set()]),
        (AllEpsilonGood(0.1), spec(), [{1}, {0, 1, 2, 3}], [set()]),
        (
            ConstrainedMixedSupport([0.5]),  # L = 1: a basis has 2 items, arms are 0..3
            spec(outcome_dim=2, n_items=5),
            [set(), {0, 1}, {2, 4}],
            [{0}, {0, 1, 2}, {4}],
        ),
        (
            ConstrainedMixedSupport([0.5, 0.5]),  # L = 2: 3 items; slacks 4, 5 alone are not
            spec(outcome_dim=3, n_items=6),
            [{0, 1, 2}, {0, 4, 5}],
            [{4, 5}, {0, 1}, {0, 1, 2, 3}],
        ),
    ],
    ids=["best_arm", "pareto_d2", "pareto_d1", "pareto_d1_eps", "eps_good", "cmix_L1", "cmix_L2"],
)
def test_the_tasks_say_which_answers_are_possible(task, problem, possible, impossible):
    for answer in possible:
        assert task.impossible_answer(frozenset(answer), problem) is None, answer
    for answer in impossible:
        why = task.impossible_answer(frozenset(answer), problem)
        assert isinstance(why, str) and why, answer
    assert task.answer_rule


def test_constrained_with_only_slacks_is_impossible():
    why = ConstrainedMixedSupport([0.5, 0.5]).impossible_answer(
        frozenset({3, 4, 5}), spec(n_arms=3, outcome_dim=3, n_items=5 + 1)
    )
    assert why is not None and "only slack items" in why and "no support" in why


class Answers:
    """A few pulls (one at a time, or one batch), then a fixed answer."""

    name = "Answers"

    def __init__(self, answer, pulls=6):
        self.fixed, self.pulls = answer, pulls

    def reset(self, spec, rng):
        self.k, self.t = spec.n_arms, 0

    def select(self):
        self.t += 1
        return None if self.t > self.pulls else self.t % self.k

    def observe(self, arm, outcome):
        pass

    def select_batch(self):
        self.t += 1
        return None if self.t > 1 else np.full(self.k, 2, dtype=np.int64)

    def observe_batch(self, counts, sums):
        pass

    def recommend(self):
        return self.fixed


@pytest.mark.parametrize("batch", [False, True])
@pytest.mark.parametrize(
    "answer, got",
    [(frozenset({0, 1}), "got 2 items {0, 1}"), (frozenset(), "got the empty set")],
)
def test_run_episode_refuses_an_impossible_best_arm_answer(answer, got, batch):
    env = gym.make("LinearBAI-Soare-v0")
    message = (
        "Answers.recommend() returned an answer no best_arm instance can have: a best-arm answer "
        f"is exactly one arm (instances with a tied best arm are refused); {got}. Return exactly "
        "one arm"
    )
    with pytest.raises(AgentProtocolError, match=re.escape(message)):
        run_episode(env, Answers(answer), 0, batch=batch)


def test_run_episode_refuses_an_impossible_answer_in_fixed_budget_too():
    env = gym.make("LinearBAI-Soare-v0", budget=30)
    with pytest.raises(AgentProtocolError, match="Answers.recommend().*got the empty set"):
        run_episode(env, Answers(frozenset(), pulls=100), 0, batch=False)


def test_run_episode_refuses_an_empty_eps_good_answer():
    env = gym.make("LinearEpsGood-Custom-v0", means=[1.0, 0.95, 0.2], epsilon=0.1)
    with pytest.raises(
        AgentProtocolError,
        match=re.escape("the best arm is always epsilon-good); got the empty set"),
    ):
        run_episode(env, Answers(frozenset()), 0, check_compatible=False)


def test_a_possible_but_wrong_answer_is_graded_not_refused():
    env = gym.make("LinearBAI-Soare-v0")
    r = run_episode(env, Answers(frozenset({2})), 0)
    assert r.answer == frozenset({2}) and not r.correct


def test_env_grades_a_plain_stop_and_flags_it():
    env = gym.make("LinearBAI-Soare-v0").unwrapped
    env.reset(seed=0)
    env.step(0)
    *_, terminated, truncated, info = env.step(env.n_arms)  # a plain step(K): the empty answer
    assert terminated and not truncated and not info["correct"]
    assert info["answer"] == frozenset()
    assert info["malformed_answer"] == (
        "a best-arm answer is exactly one arm (instances with a tied best arm are refused); "
        "got the empty set"
    )
    env.reset(seed=0)
    *_, info = env.step(env.stop_action({0, 2}))
    assert not info["correct"] and "got 2 items {0, 2}" in info["malformed_answer"]
    env.reset(seed=0)
    *_, info = env.step(env.stop_action({1}))
    assert info["malformed_answer"] is None and not info["correct"]


def test_truncated_and_budget_episodes_carry_the_flag():
    env = gym.make("LinearBAI-Soare-v0", max_samples=3).unwrapped
    env.reset(seed=0)
    for _ in range(2):
        env.step(0)
    *_, truncated, info = env.step(0)
    assert truncated and info["malformed_answer"] is None  # no answer was given
    fb = gym.make("LinearBAI-Soare-v0", budget=2).unwrapped
    fb.reset(seed=0)
    fb.step(0)
    fb.step(1)
    *_, info = fb.step(np.int64(0))  # the budget is spent: graded as a stop with no answer bits
    assert info["stop_reason"] == "budget" and info["malformed_answer"].endswith("the empty set")


def test_a_policy_run_as_an_agent_is_held_to_the_rule_its_env_only_flags():
    class Untrained:  # pulls arm 0, and stops with no answer bits set
        action_space = gym.spaces.MultiDiscrete([4, 2, 2, 2])
        observation_space = gym.spaces.Box(-np.inf, np.inf, (12,))

        def predict(self, obs, state=None, episode_start=None, deterministic=True):
            return np.array([0, 0, 0, 0]), None

    env = gym.make("LinearBAI-Soare-v0", budget=5)
    with pytest.raises(AgentProtocolError, match="got the empty set"):
        run_episode(env, PolicyAgent(Untrained()), 0)
