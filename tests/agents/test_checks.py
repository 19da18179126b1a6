"""check_agent: a plain protocol class passes; each deliberately broken agent fails by name."""

import numpy as np
import pytest

from agents import AgentCheckError, check_agent
from bandit_envs import Agent, run_episode


class PlainRoundRobin:
    """A 20-line agent with no base class: fixed rounds, then the best empirical mean."""

    def __init__(self, rounds=30):
        self.rounds = rounds

    def reset(self, spec, rng):
        self.k, self.t = spec.n_arms, 0
        self.sums, self.counts = np.zeros(self.k), np.zeros(self.k)
        self.limit = spec.budget if spec.budget is not None else self.rounds * self.k

    def select(self):
        return None if self.t >= self.limit else self.t % self.k

    def observe(self, arm, outcome):
        self.t += 1
        self.counts[arm] += 1
        self.sums[arm] += outcome[0]

    def recommend(self):
        return frozenset({int(np.argmax(self.sums / np.maximum(self.counts, 1)))})


def test_plain_class_is_an_agent_passes_and_runs():
    import gymnasium as gym

    agent = PlainRoundRobin()
    assert isinstance(agent, Agent)
    results = check_agent(agent)
    assert [r.status for r in results].count("failed") == 0
    record = run_episode(gym.make("LinearBAI-Soare-v0", omega=0.5), PlainRoundRobin(), seed=0)
    assert record.samples == 90 and record.stop_reason == "stopped"


class ArmK(PlainRoundRobin):
    def select(self):
        arm = super().select()
        return self.k if arm == 1 else arm  # pulls the non-existent arm K


class MalformedAnswer(PlainRoundRobin):
    def recommend(self):
        return int(np.argmax(self.sums))  # an int, not a set


class GlobalRng(PlainRoundRobin):
    def select(self):
        arm = super().select()
        return None if arm is None else int(np.random.randint(self.k))


class PythonRandom(PlainRoundRobin):
    def select(self):
        import random

        arm = super().select()
        return None if arm is None else random.randrange(self.k)


class LeakyReset(PlainRoundRobin):
    def reset(self, spec, rng):
        previous = getattr(self, "sums", None)
        super().reset(spec, rng)
        if previous is not None and previous.shape == self.sums.shape:
            self.sums += previous  # keeps data from the previous episode


class NeverStops(PlainRoundRobin):
    def select(self):
        return self.t % self.k


class NoRecommend:
    def reset(self, spec, rng): ...
    def select(self):
        return None

    def observe(self, arm, outcome): ...


@pytest.mark.parametrize(
    "agent, check, message",
    [
        (
            ArmK(),
            "check_valid_actions",
            "ArmK.select() returned arm 3, outside the valid range 0..2.",
        ),
        (
            MalformedAnswer(),
            "check_valid_actions",
            "MalformedAnswer.recommend() must be a set of item indices such as frozenset({0}); got",
        ),
        (
            GlobalRng(),
            "check_global_rng",
            "the agent draws from numpy's global random state (np.random.*)",
        ),
        (
            PythonRandom(),
            "check_global_rng",
            "the agent draws from Python's global `random` module",
        ),
        (LeakyReset(), "check_reset_clears_state", "reset() does not clear the previous episode"),
        (NeverStops(), "check_stops_when_easy", "the agent did not stop within 20000 samples"),
        (NoRecommend(), "check_protocol", "the agent lacks the protocol method(s) ['recommend']."),
    ],
)
def test_broken_agents_fail_with_a_message_naming_the_violation(agent, check, message):
    with pytest.raises(AgentCheckError) as info:
        check_agent(agent)
    text = str(info.value)
    assert f"- {check}: " in text and message in text, text
    results = {r.check: r for r in check_agent(agent, on_fail=None)}
    assert results[check].status == "failed"


def test_expected_failures_and_selection():
    results = check_agent(
        GlobalRng(),
        on_fail=None,
        expected_failed_checks={"check_global_rng": "known"},
        checks=["check_global_rng", "check_protocol"],
    )
    assert [(r.check, r.status) for r in results] == [
        ("check_protocol", "passed"),
        ("check_global_rng", "xfail"),
    ]
    with pytest.raises(ValueError, match="unknown checks"):
        check_agent(PlainRoundRobin(), checks=["check_nothing"])
    with pytest.warns(UserWarning, match="GlobalRng failed"):
        check_agent(GlobalRng(), on_fail="warn", checks=["check_global_rng"])


def test_factory_is_accepted():
    results = check_agent(lambda: PlainRoundRobin(rounds=20), checks=["check_seed_determinism"])
    assert results[0].status == "passed"


def test_a_task_without_probe_problems_is_skipped_with_the_way_to_add_them():
    from bandit_envs.core.protocols import AgentCapabilities

    class NewTaskAgent(PlainRoundRobin):
        capabilities = AgentCapabilities(tasks=frozenset({"brand_new_task"}))

    results = {r.check: r for r in check_agent(NewTaskAgent(), on_fail=None)}
    assert results["check_protocol"].status == "passed"
    for name in ("check_valid_actions", "check_seed_determinism", "check_pickle"):
        assert results[name].status == "skipped"
        assert "no probe problem for the task(s) ['brand_new_task']" in results[name].reason
        assert "bandit_envs.envs.probe_problem" in results[name].reason
