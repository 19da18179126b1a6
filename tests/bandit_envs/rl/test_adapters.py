"""SB3-style policies as agents (PolicyAgent) and agents as policies (AgentPolicy)."""

import gymnasium as gym
import numpy as np
import pytest

import agents.checks
from agents import Uniform, check_agent
from bandit_envs import (
    AgentProtocolError,
    IncompatibleAgentError,
    InvalidParameterError,
    LinearGaussian,
    PlugInRecommender,
    PureExplorationEnv,
    SufficientStatistics,
    run_episode,
)
from bandit_envs.core.protocols import AgentCapabilities
from bandit_envs.core.runner import episode_seeds
from bandit_envs.core.tasks import BestArm
from bandit_envs.rl.adapters import AgentPolicy, PolicyAgent


class RoundRobinPolicy:
    """A hand-written SB3-style policy on SufficientStatistics(horizon=1) observations.

    Round robin for ``rounds`` rounds (or forever), then stop with the empirical best arm.
    It needs only K and n_items; no torch.
    """

    def __init__(self, n_arms, n_items, rounds=None, stop_bits_always=True):
        self.n_arms, self.n_items, self.rounds = n_arms, n_items, rounds
        self.stop_bits_always = stop_bits_always
        self.calls = 0

    def predict(self, obs, state=None, episode_start=None, deterministic=True):
        self.calls += 1
        k = self.n_arms
        counts, means = obs[:k], obs[k : 2 * k]
        t = int(round(counts.sum()))
        action = np.zeros(1 + self.n_items, dtype=np.int64)
        if self.stop_bits_always:
            action[1 + int(np.argmax(means))] = 1
        if self.rounds is not None and t >= self.rounds * k:
            action[0] = k
        else:
            action[0] = t % k
        return action, state


def soare(**kw):
    return gym.make("LinearBAI-Soare-v0", **kw)


def manual_episode(env, policy, seed):
    """The policy acting on the wrapped environment, step by step (the RL view)."""
    obs, _ = env.reset(seed=episode_seeds(seed)[0])
    while True:
        action, _ = policy.predict(obs)
        obs, _, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            return info


@pytest.mark.parametrize("setting", [{}, {"budget": 20}], ids=["confidence", "budget"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_policy_agent_matches_the_policy_on_the_wrapped_env(setting, seed):
    policy = RoundRobinPolicy(3, 3, rounds=4 if not setting else None)
    record = run_episode(soare(**setting), PolicyAgent(policy, horizon=1), seed)
    info = manual_episode(SufficientStatistics(soare(**setting), horizon=1), policy, seed)
    assert record.pulls == tuple(info["pulls"])
    assert record.answer == info["answer"]
    assert record.correct == info["correct"]
    assert record.stop_reason == info["stop_reason"]


def test_budget_end_reads_the_answer_from_one_more_action():
    policy = RoundRobinPolicy(3, 3, rounds=None)
    record = run_episode(soare(budget=9), PolicyAgent(policy, horizon=1), seed=4)
    assert record.samples == 9 and record.stop_reason == "budget"
    assert policy.calls == 10  # 9 pulls, then the graded action
    assert len(record.answer) == 1


def test_policy_agent_with_the_raw_outcome_and_a_recommender():
    class Pull0ThenStop:
        action_space = gym.spaces.Discrete(4)
        observation_space = gym.spaces.Box(-np.inf, np.inf, (1,))

        def predict(self, obs, state=None, episode_start=None, deterministic=True):
            n = 0 if state is None else state
            return np.int64(3 if n >= 2 else n), n + 1  # pulls arms 0, 1, then stops

    env = soare()
    agent = PolicyAgent(
        Pull0ThenStop(), observation="outcome", recommender=PlugInRecommender(env.unwrapped.task)
    )
    record = run_episode(env, agent, seed=0)
    assert record.pulls == (1, 1, 0) and record.stop_reason == "stopped"
    assert agent.recommender.counts.tolist() == [1, 1, 0]


def _probes():
    """Best-arm probes of the one shape the policy knows (K = 3 arms in the plane)."""
    plane = np.array([[1.0, 0.0], [0.0, 1.0], [np.cos(0.5), np.sin(0.5)]])

    def build(theta, sigma, name):
        return lambda **s: PureExplorationEnv(
            LinearGaussian(plane, theta, sigma), BestArm(), name=name, **s
        )

    return [
        agents.checks.Probe("K=3 plane", "best_arm", build([1.0, 0.0], 0.5, "p-plane")),
        agents.checks.Probe(
            "noiseless K=3 plane", "best_arm", build([1.0, 0.0], 0.0, "p-noiseless")
        ),
        agents.checks.Probe(
            "easy K=3 plane", "best_arm", build([1.0, -0.5], 0.2, "p-easy"), easy=True
        ),
    ]


def test_policy_agent_passes_check_agent_on_problems_of_its_shape(monkeypatch):
    monkeypatch.setattr(agents.checks, "probe_problems", lambda task: _probes())
    caps = AgentCapabilities(tasks=frozenset({"best_arm"}))
    agent = PolicyAgent(RoundRobinPolicy(3, 3, rounds=20), horizon=1, capabilities=caps)
    results = {r.check: r.status for r in check_agent(agent)}
    assert results["check_batch_equivalence"] == "skipped"
    assert {s for c, s in results.items() if c != "check_batch_equivalence"} == {"passed"}


def test_check_agent_catches_a_policy_drawing_from_the_global_generator(monkeypatch):
    class Noisy(RoundRobinPolicy):
        def predict(self, obs, state=None, episode_start=None, deterministic=True):
            action, state = super().predict(obs)
            if action[0] < self.n_arms:
                action[0] = np.random.randint(self.n_arms)
            return action, state

    monkeypatch.setattr(agents.checks, "probe_problems", lambda task: _probes())
    caps = AgentCapabilities(tasks=frozenset({"best_arm"}))
    agent = PolicyAgent(Noisy(3, 3, rounds=20), horizon=1, capabilities=caps)
    results = {r.check: r.status for r in check_agent(agent, on_fail=None)}
    assert results["check_global_rng"] == results["check_seed_determinism"] == "failed"


def test_policy_agent_refuses_a_policy_of_another_shape():
    class Trained:
        action_space = gym.spaces.MultiDiscrete([4, 2, 2, 2])
        observation_space = gym.spaces.Box(-np.inf, np.inf, (12,))

        def predict(self, obs, state=None, episode_start=None, deterministic=True):
            return np.array([0, 1, 0, 0]), None  # pull arm 0; at the end, answer {0}

    run_episode(soare(budget=5), PolicyAgent(Trained()), 0)  # the shape it was trained on
    with pytest.raises(IncompatibleAgentError, match=r"needs MultiDiscrete\(\[6\] \+ \[2\] \* 5\)"):
        run_episode(gym.make("LinearBAI-Basis-v0"), PolicyAgent(Trained()), 0)
    with pytest.raises(IncompatibleAgentError, match=r"observations of shape \(12,\)"):
        run_episode(soare(), PolicyAgent(Trained(), observation="outcome"), 0)
    Trained.action_space = gym.spaces.Discrete(4)
    with pytest.raises(IncompatibleAgentError, match="needs a recommender= agent"):
        run_episode(soare(), PolicyAgent(Trained()), 0)


@pytest.mark.parametrize(
    "output, message",
    [
        (np.array([0.0, 0.0, 0.0, 0.0]), "expected 4 integer"),
        (np.array([0, 1]), "expected 4 integer"),
        (np.array([3, 0, 2, 0]), "answer bits must be 0 or 1"),
    ],
)
def test_policy_agent_reports_bad_policy_outputs(output, message):
    class Bad:
        def predict(self, obs, state=None, episode_start=None, deterministic=True):
            return output, None

    with pytest.raises(AgentProtocolError, match=message):
        run_episode(soare(), PolicyAgent(Bad()), 0)


def test_policy_agent_arguments_are_checked():
    with pytest.raises(InvalidParameterError, match="has none"):
        PolicyAgent(object())
    with pytest.raises(InvalidParameterError, match="observation must be one of"):
        PolicyAgent(RoundRobinPolicy(3, 3), observation="pixels")
    with pytest.raises(AgentProtocolError, match=r"call reset\(spec, rng\) before select"):
        PolicyAgent(RoundRobinPolicy(3, 3)).select()


# --------------------------------------------------------------------------- AgentPolicy


def agent_policy_episode(env, agent, seed):
    """AgentPolicy driving a single environment by hand (no SB3)."""
    policy = AgentPolicy(agent, env)
    obs, _ = env.reset(seed=episode_seeds(seed)[0])
    start = True
    while True:
        action, state = policy.predict(obs, episode_start=np.array([start]))
        assert state is None
        start = False
        obs, _, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            return info


EASY = {"features": np.eye(3), "theta": [1.0, 0.0, -0.5], "sigma": 0.2}


@pytest.mark.parametrize(
    "env_id, kw",
    [
        ("LinearBAI-Soare-v0", {"budget": 30}),
        ("LinearBAI-Custom-v0", EASY),
    ],
)
@pytest.mark.parametrize("seed", [0, 1])
def test_agent_policy_matches_run_episode(env_id, kw, seed):
    record = run_episode(gym.make(env_id, **kw), Uniform(), seed, batch=False)
    info = agent_policy_episode(gym.make(env_id, **kw), Uniform(), seed)
    assert record.pulls == tuple(info["pulls"])
    assert record.answer == info["answer"]


def test_agent_policy_refuses_the_statistics_observation():
    with pytest.raises(InvalidParameterError, match="must be the last outcome"):
        AgentPolicy(Uniform(), SufficientStatistics(soare()))
    with pytest.raises(InvalidParameterError, match="vectorised environment or a PureExploration"):
        AgentPolicy(Uniform(), gym.make("CartPole-v1"))


def test_agent_policy_reports_a_broken_agent():
    class Broken(Uniform):
        def select(self):
            return 7

    env = soare()
    policy = AgentPolicy(Broken(), env)
    obs, _ = env.reset(seed=0)
    with pytest.raises(AgentProtocolError, match=r"must return an arm in 0..2 or None; got 7"):
        policy.predict(obs)


def test_agent_policy_under_sb3_evaluate_policy_matches_run_episode():
    pytest.importorskip("stable_baselines3")
    from stable_baselines3.common.evaluation import evaluate_policy
    from stable_baselines3.common.monitor import Monitor
    from stable_baselines3.common.vec_env import DummyVecEnv

    def evaluate(env_id, kw, n_envs, env_seed):
        vec = DummyVecEnv([lambda: Monitor(gym.make(env_id, **kw)) for _ in range(n_envs)])
        vec.seed(env_seed)  # sub-environment i starts from env_seed + i
        finals = {}

        def keep(local, _globals):
            if local["done"] and local["i"] not in finals:
                finals[local["i"]] = local["info"]

        rewards, lengths = evaluate_policy(
            AgentPolicy(Uniform(), vec),
            vec,
            n_eval_episodes=n_envs,
            return_episode_rewards=True,
            callback=keep,
        )
        return [finals[i] for i in range(n_envs)], rewards, lengths

    for env_id, kw in [("LinearBAI-Soare-v0", {"budget": 31}), ("LinearBAI-Custom-v0", EASY)]:
        for seed in (0, 1, 2):
            record = run_episode(gym.make(env_id, **kw), Uniform(), seed, batch=False)
            (info,), (reward,), (length,) = evaluate(env_id, kw, 1, episode_seeds(seed)[0])
            assert record.answer == info["answer"]
            assert record.pulls == tuple(info["pulls"])
            assert reward == float(record.correct) and length == record.samples + 1
        # batched: three sub-environments act as three separate single-env evaluations
        batched, _, _ = evaluate(env_id, kw, 3, 100)
        for i in range(3):
            (alone,), _, _ = evaluate(env_id, kw, 1, 100 + i)
            assert batched[i]["answer"] == alone["answer"]
            np.testing.assert_array_equal(batched[i]["pulls"], alone["pulls"])
