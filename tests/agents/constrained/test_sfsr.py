"""SFSR, SFSR-L and USLP (Tang, Jain, Nayyar & Nuzzo 2024): the schedule (eq. 7), Proposition 1,
the L = 0 reduction to Successive Rejects, noiseless and statistical runs, and the protocol."""

from __future__ import annotations

import math

import gymnasium as gym
import numpy as np
import pytest

from agents import check_agent
from agents.constrained.sfsr import SFSR, SFSRL, USLP, psi, sfsr_schedule
from bandit_envs import run_episode
from bandit_envs.core.problem import ProblemSpec
from bandit_envs.errors import InvalidParameterError
from bandit_envs.theory import lp

AGENTS = (SFSR, SFSRL, USLP)
#: the optimal bases of the paper's Table 1 (App. C) in row-major arm order (slacks are 24 and 25)
TABLE1_SUPPORTS = {
    "D1P": frozenset({5, 24, 25}),
    "D2P": frozenset({10, 20, 25}),
    "D3P": frozenset({10, 12, 21}),
    "D1I": frozenset({1, 24, 25}),
    "D2I": frozenset({0, 20, 25}),
    "D3I": frozenset({9, 11, 21}),
}

# ---------------------------------------------------------------------------- schedule (eq. 7)


def test_psi_values():
    """Ψ(K0, L) of eq. 7 (values worked out by us); with L = 0 it is Audibert & Bubeck's log-bar."""
    assert psi(16, 1) == pytest.approx(3.318229, abs=1e-6)  # = H_15
    assert psi(16, 1) == pytest.approx(sum(1 / i for i in range(1, 16)), rel=1e-14)
    assert psi(24, 2) == pytest.approx(4.190813, abs=1e-6)
    assert psi(16, 0) == pytest.approx(2.880729, abs=1e-6)
    for k in range(2, 30):  # L = 0: Audibert & Bubeck's log-bar
        assert psi(k, 0) == pytest.approx(0.5 + sum(1 / i for i in range(2, k + 1)), rel=1e-13)


def test_schedule_values_for_k_16_and_l_1():
    """n_k of eq. 7 for K = K0 = 16, L = 1 and N = 1000, 5000, 17 (worked out by us)."""
    assert sfsr_schedule(1000, 16, 16, 1).tolist() == [
        19,
        20,
        22,
        23,
        25,
        27,
        30,
        33,
        38,
        43,
        50,
        60,
        75,
        99,
        149,
    ]
    assert sfsr_schedule(5000, 16, 16, 1).tolist() == [
        94,
        101,
        108,
        116,
        126,
        137,
        151,
        167,
        188,
        215,
        251,
        301,
        376,
        501,
        752,
    ]
    assert sfsr_schedule(17, 16, 16, 1).tolist() == [1] * 15


def test_schedule_is_the_formula_and_non_decreasing():
    rng = np.random.default_rng(0)
    for _ in range(300):
        k = int(rng.integers(2, 31))
        k0 = int(rng.integers(1, k + 1))
        n_cost = int(rng.integers(0, 4))
        budget = int(rng.integers(k0 + 1, 50_000))
        n = sfsr_schedule(budget, k, k0, n_cost)
        assert n.shape == (k - 1,)
        assert np.all(np.diff(n) >= 0) and n[0] >= 1
        expected = [math.ceil((budget - k0) / (psi(k0, n_cost) * (k + 1 - j))) for j in range(1, k)]
        # equal to eq. (7) up to the guard on exactly integral ratios (never more pulls)
        assert np.all(n <= expected) and np.all(n >= np.array(expected) - 1)


def test_proposition_1_worst_case_total_is_within_the_budget():
    """Σ_{k=K−K0+L+1}^{K+L} n_k ≤ N, with n_k := n_{K−1} for k ≥ K (proof of Prop. 1)."""
    rng = np.random.default_rng(1)
    for _ in range(2000):
        k = int(rng.integers(2, 31))
        k0 = int(rng.integers(1, k + 1))
        n_cost = int(rng.integers(0, 4))
        budget = int(rng.integers(k0 + 1, 20_000))
        n = sfsr_schedule(budget, k, k0, n_cost)
        padded = np.concatenate([n, np.full(n_cost + 1, n[-1])])  # slots 1..K+L
        assert padded[k - k0 + n_cost :].sum() <= budget, (k, k0, n_cost, budget)


# ---------------------------------------------------------------------- L = 0 is Successive Rejects


def _l0_spec(k: int, budget: int) -> ProblemSpec:
    return ProblemSpec(
        task="constrained_mixed",
        setting="fixed_budget",
        n_arms=k,
        n_items=k,
        outcome_dim=1,
        budget=budget,
        cost_thresholds=np.zeros(0),
        extras={"known_arms": (), "known_means": np.zeros((0, 1))},
    )


def _successive_rejects(samples: np.ndarray, budget: int) -> tuple[list[int], int]:
    """Audibert & Bubeck (2010), written independently: the eliminations and the pulls used."""
    k = samples.shape[0]
    logbar = 0.5 + sum(1.0 / i for i in range(2, k + 1))
    active, out, n_prev, used = list(range(k)), [], 0, 0
    for phase in range(1, k):
        n = math.ceil((budget - k) / (logbar * (k + 1 - phase)))
        used += (n - n_prev) * len(active)
        means = {a: samples[a, :n].mean() for a in active}
        worst = min(active, key=lambda a: (means[a], a))
        active.remove(worst)
        out.append(worst)
        n_prev = n
    return out, used


@pytest.mark.parametrize("seed", range(5))
def test_with_no_constraint_sfsr_is_successive_rejects(seed):
    rng = np.random.default_rng(seed)
    k, budget = 9, 700
    means = rng.normal(size=k)
    samples = means[:, None] + rng.normal(size=(k, budget))
    for agent in (SFSR(tie_break="lowest_index"), SFSRL(tie_break="lowest_index")):
        agent.reset(_l0_spec(k, budget), np.random.default_rng(0))
        while (arm := agent.select()) is not None:
            agent.observe(arm, samples[arm, agent.counts[arm] : agent.counts[arm] + 1])
        expected, used = _successive_rejects(samples, budget)
        assert agent.eliminated == expected
        assert agent.t == used <= budget
        assert agent.recommend() == frozenset(set(range(k)) - set(expected))


# ---------------------------------------------------------------------- runs on the envs


@pytest.mark.parametrize("agent_cls", AGENTS)
def test_check_agent(agent_cls):
    results = check_agent(agent_cls())
    assert {r.check: r.status for r in results}["check_batch_equivalence"] == "passed"


@pytest.mark.parametrize("agent_cls", AGENTS)
@pytest.mark.parametrize("instance", sorted(TABLE1_SUPPORTS))
def test_noiseless_table1_runs_return_the_optimal_basis(agent_cls, instance):
    env = gym.make(
        "ConstrainedMixed-Table1-v0", instance=instance, sigma_r=0.0, sigma_c=0.0, budget=5000
    )
    for batch in (False, True):
        record = run_episode(env, agent_cls(), 0, batch=batch)
        assert record.correct and frozenset(record.answer) == TABLE1_SUPPORTS[instance]
        assert record.samples <= 5000


@pytest.mark.parametrize("agent_cls", AGENTS)
@pytest.mark.parametrize(
    "env_id, kwargs",
    [
        ("ConstrainedMixed-Hard-v0", {"K": 6}),
        ("ConstrainedMixed-Random-v0", {"L": 1, "K": 8, "family": 2}),
        ("ConstrainedMixed-Random-v0", {"L": 2, "family": 3, "instance_seed": 4}),
        ("ConstrainedMixed-Custom-v0", {"known_arms": (0, 3)}),
    ],
)
def test_noiseless_runs_return_the_optimal_basis(agent_cls, env_id, kwargs):
    env = gym.make(env_id, sigma_r=0.0, sigma_c=0.0, budget=3000, **kwargs)
    record = run_episode(env, agent_cls(), 1)
    assert record.correct, (record.answer, record.true_answer)


def test_infeasible_instance_is_declared_in_round_one():
    env = gym.make(
        "ConstrainedMixed-Custom-v0", rewards=[1.0, 0.5, 0.2], costs=[[2.0, 2.5, 3.0]], budget=3000
    )
    for cls in (SFSR, SFSRL):
        agent = cls()
        record = run_episode(env, agent, 0)
        assert record.answer == frozenset() and record.correct
        assert agent.infeasible_round == 1 and agent.rounds_done == 1
        # only round 1 was pulled: T_1 = n_1 per arm
        assert record.samples == 3 * sfsr_schedule(3000, 3, 3, 1)[0]
    assert run_episode(env, USLP(), 0).answer == frozenset()


@pytest.mark.parametrize("agent_cls", (SFSR, SFSRL))
def test_output_is_a_feasible_basis_of_size_l_plus_1(agent_cls):
    """Algorithm 1 ends with |X| = L + 1 (or ∅) and Â_X⁻¹b ≥ 0 at the final estimates."""
    env = gym.make("ConstrainedMixed-Table1-v0", instance="D2I", budget=3000)
    sizes = set()
    for seed in range(30):
        agent = agent_cls()
        record = run_episode(env, agent, seed)
        sizes.add(len(record.answer))
        assert record.samples <= 3000
        if record.answer:
            assert len(agent.eliminated) == 24 - 1
            basis = sorted(record.answer)
            x = np.linalg.solve(agent._a[:, basis], agent._b)
            assert np.all(x >= -1e-9)
    assert sizes <= {0, 3}


def test_sfsr_keeps_the_empirical_optimal_basis_of_the_survivors():
    """After the last round, the answer is the best feasible basis of the final L + 2 items."""
    env = gym.make("ConstrainedMixed-Random-v0", L=1, K=10, family=2, budget=800)
    for seed in range(20):
        agent = SFSR(tie_break="lowest_index")
        record = run_episode(env, agent, seed, batch=True)
        if not record.answer:
            continue
        last = np.zeros(11, dtype=bool)
        last[list(record.answer)] = True
        last[agent.eliminated[-1]] = True
        assert lp.best_basis(agent._mu, agent._a, agent._b, last) == frozenset(record.answer)


def test_known_arms_are_never_pulled_but_are_scored():
    env = gym.make("ConstrainedMixed-Custom-v0", known_arms=(1, 4), budget=2000)
    for cls in AGENTS:
        agent = cls()
        record = run_episode(env, agent, 3)
        assert record.pulls[1] == 0 and record.pulls[4] == 0
        assert record.samples <= 2000
    agent = SFSR(tie_break="lowest_index")
    run_episode(env, agent, 3)
    # K − 1 = 4 rounds, each removing one of the K + L = 6 items (known arms are items too)
    assert len(agent.eliminated) == 4 and len(set(agent.eliminated)) == 4


def test_uslp_pulls_floor_n_over_k0_per_unknown_arm():
    env = gym.make("ConstrainedMixed-Custom-v0", known_arms=(2,), budget=1003)
    for batch in (False, True):
        agent = USLP()
        record = run_episode(env, agent, 0, batch=batch)
        assert agent.pulls_per_arm == 1003 // 4
        assert list(record.pulls) == [250, 250, 0, 250, 250]


def test_one_round_per_batch_and_sample_counts_match_the_schedule():
    env = gym.make("ConstrainedMixed-Custom-v0", budget=1000)
    agent = SFSR()
    agent.reset(env.unwrapped.problem, np.random.default_rng(0))
    n = sfsr_schedule(1000, 5, 5, 1)
    first = agent.select_batch()
    assert first.tolist() == [n[0]] * 5
    agent.observe_batch(first, np.tile([[1.0, 0.5]], (5, 1)) * first[:, None])
    assert agent.rounds_done == 1 and len(agent.eliminated) == 1
    second = agent.select_batch()
    alive = [a for a in range(5) if a not in agent.eliminated]
    assert second[alive].tolist() == [n[1] - n[0]] * len(alive)


def test_highs_and_basis_duals_eliminate_alike():
    env = gym.make("ConstrainedMixed-Table1-v0", instance="D3P", budget=4000)
    for seed in range(5):
        a, b = SFSRL(dual="basis"), SFSRL(dual="highs")
        ra, rb = run_episode(env, a, seed), run_episode(env, b, seed)
        assert a.eliminated == b.eliminated and ra.answer == rb.answer


def test_lowest_index_tie_break_is_deterministic_and_random_ties_vary():
    # two identical arms: their scores tie exactly on noiseless data
    env = gym.make(
        "ConstrainedMixed-Custom-v0",
        rewards=[1.0, 0.5, 0.5, 0.2],
        costs=[[0.5, 0.3, 0.3, 0.2]],
        sigma_r=0.0,
        sigma_c=0.0,
        budget=500,
    )
    first = set()
    for seed in range(20):
        agent = SFSR(tie_break="lowest_index")
        run_episode(env, agent, seed)
        first.add(tuple(agent.eliminated))
    assert len(first) == 1
    random_firsts = set()
    for seed in range(20):
        agent = SFSR()
        run_episode(env, agent, seed)
        random_firsts.add(tuple(agent.eliminated))
    assert len(random_firsts) > 1


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"score": "ucb"}, "SFSR: score must be one of 'iv', 'lagrangian'; got 'ucb'."),
        (
            {"tie_break": "first"},
            "SFSR: tie_break must be one of 'random', 'lowest_index'; got 'first'.",
        ),
        ({"dual": "simplex"}, "SFSR: dual must be one of 'basis', 'highs'; got 'simplex'."),
    ],
)
def test_invalid_parameters_are_named(kwargs, message):
    env = gym.make("ConstrainedMixed-Custom-v0", budget=100)
    with pytest.raises(InvalidParameterError) as info:
        run_episode(env, SFSR(**kwargs), 0)
    assert str(info.value) == message


def test_budget_too_small_is_refused():
    env = gym.make("ConstrainedMixed-Custom-v0", budget=5)
    with pytest.raises(
        InvalidParameterError,
        match=r"the budget N = 5 must exceed the number of "
        r"unknown arms K0 = 5",
    ):
        run_episode(env, SFSR(), 0)
    env = gym.make("ConstrainedMixed-Custom-v0", budget=4)
    with pytest.raises(InvalidParameterError, match="smaller than the number of unknown arms"):
        run_episode(env, USLP(), 0)


def test_interrupted_recommendation_uses_the_items_with_data():
    env = gym.make("ConstrainedMixed-Custom-v0", sigma_r=0.0, sigma_c=0.0, budget=1000)
    agent = SFSR()
    agent.reset(env.unwrapped.problem, np.random.default_rng(0))
    assert agent.recommend() == frozenset()  # no data: no basis (the slack alone is singular)
    means = env.unwrapped.model.means
    agent.observe(0, means[0])  # arm 0 alone, cost 0.2 ≤ c̄: basis {0, slack}
    assert agent.recommend() == frozenset({0, 5})
    for arm in range(1, 5):
        agent.observe(arm, means[arm])
    assert agent.recommend() == frozenset({1, 2})  # the toy's optimal basis I*


def test_fixed_confidence_is_refused_with_the_reason():
    env = gym.make("ConstrainedMixed-Custom-v0", delta=0.1)
    from bandit_envs.errors import IncompatibleAgentError

    for cls in AGENTS:
        with pytest.raises(IncompatibleAgentError, match="fixed_budget"):
            run_episode(env, cls(), 0)


# ----------------------------------- statistics (our reconstructions of Section 5's instances)

A1R_REWARDS = [0.8, 1.2, 1.05, 0.6, 0.6, 1.0, 0.9, 0.9, 0.5, 0.7, 0.55, 0.85, 0.4, 0.5, 0.85, 1.0]
A1R_COSTS = [
    0.9,
    0.6,
    0.85,
    0.35,
    1.75,
    0.55,
    1.25,
    0.7,
    1.6,
    1.25,
    0.4,
    1.55,
    1.7,
    1.65,
    1.1,
    0.45,
]


def _error_rate(env, agent_cls, runs, seed0=0):
    return np.mean(
        [not run_episode(env, agent_cls(), seed0 + s, batch=True).correct for s in range(runs)]
    )


def test_sfsr_beats_uslp_on_a1r_quick():
    """A1r (our stand-in for Fig. 2) at N = 5000: error rates 0.003 (SFSR) and 0.033 (USLP) in an
    independent implementation; 300 runs here."""
    env = gym.make(
        "ConstrainedMixed-Custom-v0", rewards=A1R_REWARDS, costs=[A1R_COSTS], budget=5000
    )
    assert run_episode(env, USLP(), 0).true_answer == frozenset({1, 16})
    sfsr, uslp = _error_rate(env, SFSR, 300), _error_rate(env, USLP, 300)
    assert sfsr < 0.02 and uslp > sfsr + 0.01, (sfsr, uslp)


def test_sfsr_l_fails_on_the_hard_construction():
    """H2r (Appendix A) at N = 10⁴: error rates 0.583 (SFSR-L) and 0.070 (SFSR) in an independent
    implementation; 400 runs here."""
    env = gym.make("ConstrainedMixed-Hard-v0", budget=10_000)
    sfsr, sfsrl = _error_rate(env, SFSR, 400), _error_rate(env, SFSRL, 400)
    uslp = _error_rate(env, USLP, 400)
    assert sfsrl - sfsr > 0.3, (sfsr, sfsrl)
    assert sfsr < uslp < sfsrl, (sfsr, uslp, sfsrl)
