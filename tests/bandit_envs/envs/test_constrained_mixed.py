"""The constrained best mixed arm ids (Tang, Jain, Nayyar & Nuzzo 2024): Table1, Hard, Random and
Custom."""

import re
import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import bandit_envs  # noqa: F401
import registry
from bandit_envs import (
    ConstrainedGaussian,
    ConstrainedMixedSupport,
    IncompatibleAgentError,
    InvalidInstanceError,
    InvalidParameterError,
    run_episode,
)
from bandit_envs.envs.constrained_mixed import (
    TABLE1,
    TABLE1_BOLD,
    TABLE1_C1,
    TABLE1_C2,
    appendix_c_instance,
    table1_instance,
)
from bandit_envs.theory import lp

IDS = [
    "ConstrainedMixed-Table1-v0",
    "ConstrainedMixed-Hard-v0",
    "ConstrainedMixed-L1-v0",
    "ConstrainedMixed-Random-v0",
    "ConstrainedMixed-Custom-v0",
]
# The observation space is Box(-inf, inf) (docs/concepts.md): only these two notes are allowed.
ALLOWED_WARNINGS = (
    "A Box observation space minimum value is -infinity",
    "A Box observation space maximum value is infinity",
)


# ------------------------------------------------------------------ every id, the contract


@pytest.mark.parametrize("env_id", IDS)
@pytest.mark.parametrize("setting", [{}, {"budget": 50}, {"delta": 0.1}])
def test_gymnasium_check_env(env_id, setting):
    env = gym.make(env_id, **setting)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env.unwrapped, skip_render_check=False)
    unexpected = [
        str(w.message) for w in caught if not any(a in str(w.message) for a in ALLOWED_WARNINGS)
    ]
    assert not unexpected, unexpected


@pytest.mark.parametrize(
    "env_id, k, n_cost, budget",
    [
        ("ConstrainedMixed-Table1-v0", 24, 2, 40_000),
        ("ConstrainedMixed-Hard-v0", 16, 1, 10_000),
        ("ConstrainedMixed-L1-v0", 16, 1, 5_000),
        ("ConstrainedMixed-Random-v0", 24, 2, 40_000),
        ("ConstrainedMixed-Custom-v0", 5, 1, 5_000),
    ],
)
def test_defaults_spec_and_settings(env_id, k, n_cost, budget):
    env = gym.make(env_id).unwrapped
    spec = env.problem
    assert spec.task == "constrained_mixed" and spec.setting == "fixed_budget"
    assert spec.budget == budget and spec.delta is None
    assert spec.n_arms == k and spec.n_items == k + n_cost and spec.outcome_dim == n_cost + 1
    np.testing.assert_array_equal(spec.cost_thresholds, np.ones(n_cost))
    np.testing.assert_array_equal(spec.noise_std, [1.0] + [0.5] * n_cost)
    assert spec.extras["known_arms"] == () and spec.extras["known_means"].shape == (0, n_cost + 1)
    assert spec.structure == "none" and spec.features is None
    assert env.action_space.nvec.tolist() == [k + 1] + [2] * (k + n_cost)
    assert gym.make(env_id, budget=123).unwrapped.problem.budget == 123
    fc = gym.make(env_id, delta=0.05).unwrapped.problem
    assert fc.setting == "fixed_confidence" and fc.delta == 0.05
    capped = gym.make(env_id, max_samples=99).unwrapped.problem  # the fixed-confidence cap
    assert capped.setting == "fixed_confidence" and capped.delta == 0.1
    assert capped.max_samples == 99
    with pytest.raises(InvalidParameterError, match="give exactly one of delta="):
        gym.make(env_id, delta=0.1, budget=7)
    with pytest.raises(InvalidParameterError, match="max_samples is the safety cap"):
        gym.make(env_id, budget=7, max_samples=99)


def test_agents_of_other_tasks_refuse_the_new_task_cleanly():
    others = [
        name
        for name in registry.list_agents()
        if "constrained_mixed" not in registry.agent_entry(name).capabilities.tasks
    ]
    assert others
    for env_id in IDS:
        for setting in ({"budget": 100}, {"delta": 0.1}):
            env = gym.make(env_id, **setting)
            for name in others:
                agent = registry.make_agent(name)
                ok, why = registry.is_compatible(agent, env)
                assert not ok and "constrained_mixed" in why
                with pytest.raises(IncompatibleAgentError, match="constrained_mixed"):
                    run_episode(env, agent, 0)


# ---------------------------------------------------------------------------- Table 1 (App. C)


@pytest.mark.parametrize("name", sorted(TABLE1))
def test_table1_supports_are_the_papers_bold_entries(name):
    env = gym.make("ConstrainedMixed-Table1-v0", instance=name).unwrapped
    arms, nonbinding = env.task.split_answer(env._true_answer, 24)
    bold = {4 * row + col for row, col in TABLE1_BOLD[name]}
    assert arms == bold
    assert len(arms) == int(name[1])  # family Dj has j support arms (Appendix C)
    # Remark 3: m mixed arms leave exactly L + 1 - m constraints non-binding
    assert len(nonbinding) == 3 - len(arms)
    np.testing.assert_array_equal(
        env.model.costs[:, sorted(bold)],
        [
            [TABLE1_C1[r] for r, _ in sorted(TABLE1_BOLD[name])],
            [TABLE1_C2[c] for _, c in sorted(TABLE1_BOLD[name])],
        ],
    )


@pytest.mark.parametrize("name", sorted(TABLE1))
def test_table1_is_consistent_with_the_appendix_c_recipe(name):
    """W = base - r (+0.02 on the support) is a permutation of 0..0.46 (P) or in 0..0.28 (I)."""
    rewards, costs, _ = table1_instance(name)
    base = {"1": np.ones(24), "2": costs[0], "3": costs[0] + costs[1]}[name[1]]
    w = base - rewards
    w[[4 * r + c for r, c in TABLE1_BOLD[name]]] += 0.02
    cents = np.rint(w * 100).astype(int)
    np.testing.assert_allclose(w * 100, cents, atol=1e-9)
    if name[2] == "P":
        assert sorted(cents) == list(range(0, 48, 2))
    else:
        assert set(cents) <= set(range(0, 30, 2))


def test_table1_weights_through_the_task():
    """Table 1's LPs, solved by us: D2P weights (2/3, 1/3), s2 = 1/30; D3I (5/12, 1/4, 1/3)."""
    env = gym.make("ConstrainedMixed-Table1-v0", instance="D2P").unwrapped
    x = env.task.mixing_weights(env._true_answer, env.model.means)
    np.testing.assert_allclose(x[[10, 20, 25]], [2 / 3, 1 / 3, 1 / 30], atol=1e-12)
    assert x[:24].sum() == pytest.approx(1.0) and np.count_nonzero(x) == 3
    env = gym.make("ConstrainedMixed-Table1-v0", instance="D3I").unwrapped
    x = env.task.mixing_weights(env._true_answer, env.model.means)
    np.testing.assert_allclose(x[[9, 11, 21]], [5 / 12, 1 / 4, 1 / 3], atol=1e-12)


def test_unknown_table1_instance_lists_the_valid_ones():
    with pytest.raises(
        InvalidParameterError,
        match=re.escape(
            "ConstrainedMixed-Table1-v0: instance must be one of ['D1I', 'D1P', 'D2I', 'D2P', "
            "'D3I', 'D3P'] (Appendix C, Table 1); got 'D4P'."
        ),
    ):
        gym.make("ConstrainedMixed-Table1-v0", instance="D4P")


# ----------------------------------------------------------------------- Hard (App. A)


def test_hard_instance_and_its_hardness():
    """Our reconstruction H2r of App. A's template: I* = {0, 1}, p = (1/6, 5/6), Delta0^2 = 0.16,
    Delta_(3)^2 = 0.00497 (our prototype's value)."""
    env = gym.make("ConstrainedMixed-Hard-v0").unwrapped
    assert env._true_answer == frozenset({0, 1})
    c = env.complexity()
    assert c["optimal_basis"] == (0, 1) and c["nonbinding_constraints"] == ()
    np.testing.assert_allclose(c["weights"][:2], [1 / 6, 5 / 6])
    assert c["value"] == pytest.approx(1.0)
    assert c["Delta0_sq"] == pytest.approx(0.16)
    assert c["Delta_L2_sq"] == pytest.approx(0.00497, rel=2e-3)
    assert c["lower_bound_rate"] == pytest.approx(0.002486, rel=2e-3)
    small = gym.make("ConstrainedMixed-Hard-v0", K=3).unwrapped
    assert small.problem.n_arms == 3 and small._true_answer == frozenset({0, 1})


# ---------------------------------------------------------------------- L = 1 reconstructions


@pytest.mark.parametrize(
    "instance, basis, weights, delta0_sq",
    [
        ("A1r", (1, 16), (1.0,), 0.64),
        ("A2r", (7, 15), (0.316, 0.684), 0.36),
        ("A3r", (2, 4), (0.478, 0.522), 1.21),
        ("H1r", (0, 1), (0.048, 0.952), 0.01),
        ("H2r", (0, 1), (1 / 6, 5 / 6), 0.16),
    ],
)
def test_l1_reconstructions_of_the_section_5_instances(instance, basis, weights, delta0_sq):
    """Our reconstructions of Section 5's L = 1 instances (Figs. 2 and 3 are images): bases,
    weights and Delta0^2 (eq. 11) as we computed them."""
    env = gym.make("ConstrainedMixed-L1-v0", instance=instance).unwrapped
    assert env.problem.n_arms == 16 and env.instance_info["reconstruction"] == instance
    c = env.complexity()
    assert c["optimal_basis"] == basis
    arms = [i for i in basis if i < 16]
    np.testing.assert_allclose(np.asarray(c["weights"])[arms], weights, atol=1e-3)
    assert c["Delta0_sq"] == pytest.approx(delta0_sq, rel=1e-6)


def test_l1_unknown_instance_lists_the_names():
    with pytest.raises(
        InvalidParameterError,
        match=re.escape(
            "ConstrainedMixed-L1-v0: instance must be one of ['A1r', 'A2r', 'A3r', 'H1r', "
            "'H2r'] (our reconstructions of the paper's Section 5 instances); got 'A4r'."
        ),
    ):
        gym.make("ConstrainedMixed-L1-v0", instance="A4r")


# ---------------------------------------------------------------------- Random (App. C recipe)


@pytest.mark.parametrize(
    "kw",
    [
        {"family": 1},
        {"family": 2},
        {"family": 3},
        {"family": 2, "w_mode": "I"},
        {"family": 3, "w_mode": "I"},
    ],
)
def test_random_appendix_c_draws(kw):
    env = gym.make("ConstrainedMixed-Random-v0", instance_seed=3, **kw).unwrapped
    arms, nonbinding = lp.split_answer(env._true_answer, 24)
    assert len(arms) == kw["family"] and len(nonbinding) == 3 - kw["family"]
    info = env.instance_info
    w = info["W"]
    np.testing.assert_allclose(np.rint(w * 100), w * 100, atol=1e-9)
    if kw.get("w_mode", "P") == "P":
        assert sorted(np.rint(w * 100).astype(int)) == list(range(0, 48, 2))
    else:
        assert np.all((w >= 0) & (w <= 0.28 + 1e-12))
    base = {1: np.ones(24), 2: env.model.costs[0], 3: env.model.costs.sum(axis=0)}[kw["family"]]
    bump = np.zeros(24)
    bump[sorted(arms)] = 0.02
    np.testing.assert_allclose(env.model.rewards, base - w + bump, atol=1e-12)
    again = gym.make("ConstrainedMixed-Random-v0", instance_seed=3, **kw).unwrapped
    np.testing.assert_array_equal(again.model.means, env.model.means)
    other = gym.make("ConstrainedMixed-Random-v0", instance_seed=4, **kw).unwrapped
    assert not np.array_equal(other.model.means, env.model.means)


@pytest.mark.parametrize("family", [1, 2])
def test_random_l1_draws(family):
    env = gym.make(
        "ConstrainedMixed-Random-v0", L=1, family=family, K=10, instance_seed=5
    ).unwrapped
    assert env.problem.n_arms == 10 and env.problem.n_items == 11
    arms, _ = lp.split_answer(env._true_answer, 10)
    assert len(arms) == family
    for values in (env.model.rewards, env.model.costs):
        np.testing.assert_allclose(values * 20, np.rint(values * 20), atol=1e-9)
    mu, a, b = lp.standard_form(env.model.rewards, env.model.costs, [1.0])
    opt = lp.optimal_basis(env.model.rewards, env.model.costs, [1.0])
    margin = opt.value - lp.second_best_value(mu, a, b, opt.basis)
    assert margin >= (0.05 if family == 1 else 0.04) - 1e-12


def test_appendix_c_generator_is_seeded():
    first = appendix_c_instance(2, "P", np.random.default_rng(9))
    second = appendix_c_instance(2, "P", np.random.default_rng(9))
    np.testing.assert_array_equal(first[0], second[0])


# ---------------------------------------------------------------------------- Custom


def test_custom_toy_default_and_user_arrays():
    env = gym.make("ConstrainedMixed-Custom-v0").unwrapped
    assert env._true_answer == frozenset({1, 2})
    env = gym.make(
        "ConstrainedMixed-Custom-v0", rewards=[0.3, 1.2, 0.8], costs=[0.2, 1.1, 0.6], thresholds=1.0
    ).unwrapped
    assert env._true_answer == frozenset({1, 2}) and env.problem.n_items == 4
    two = gym.make(
        "ConstrainedMixed-Custom-v0",
        rewards=[1.0, 0.5, 0.2],
        costs=[[0.5, 0.2, 0.3], [0.4, 0.2, 0.1]],
        thresholds=[0.6, 0.8],
    ).unwrapped
    assert two._true_answer == frozenset({0, 3, 4})  # arm 0 alone, both constraints slack


def test_known_arms_are_public():
    env = gym.make("ConstrainedMixed-Custom-v0", known_arms=[4, 3]).unwrapped
    extras = env.problem.extras
    assert extras["known_arms"] == (3, 4)
    np.testing.assert_array_equal(extras["known_means"], [[0.5, 1.4], [1.0, 1.6]])
    assert not extras["known_means"].flags.writeable
    np.testing.assert_array_equal(env.model.unknown_mask, [True, True, True, False, False])
    assert env._true_answer == frozenset({1, 2})  # knowing means does not change the answer


def test_infeasible_instance_has_the_empty_answer():
    """All costs 2.0 > cbar = 1: I* is empty (as in Sec. 4.3); a stop with it is right."""
    env = gym.make(
        "ConstrainedMixed-Custom-v0", rewards=[0.5, 0.7, 0.9], costs=[2.0, 2.0, 2.0], budget=10
    ).unwrapped
    assert env._true_answer == frozenset()
    assert env.task.empirical_answer(env.model.means) == frozenset()
    env.reset(seed=0)
    env.step(0)
    _, reward, terminated, _, info = env.step(env.stop_action(set()))
    assert terminated and info["correct"] and reward == 1.0
    assert info["complexity"] == {"feasible": False, "optimal_basis": ()}


def test_assumption_1_violations_are_refused_with_the_reason():
    with pytest.raises(
        InvalidInstanceError,
        match=re.escape(
            "ConstrainedMixed-Custom-v0: Assumption 1 fails (Tang et al. 2024, Sec. 4.1): the "
            "optimum"
        ),
    ):
        gym.make("ConstrainedMixed-Custom-v0", rewards=[1.0, 1.0, 0.2], costs=[0.5, 0.5, 0.2])
    with pytest.raises(
        InvalidInstanceError,
        match=re.escape(
            "ConstrainedMixed-Custom-v0: Assumption 1 fails (Tang et al. 2024, Sec. 4.1): the "
            "optimal "
            "solution has 1 non-zero coordinates (arm 0), not L + 1 = 2; a degenerate optimum"
        ),
    ):
        gym.make("ConstrainedMixed-Custom-v0", rewards=[1.0, 0.5], costs=[1.0, 0.5])


@pytest.mark.parametrize(
    "env_id, kwargs, message",
    [
        (
            "ConstrainedMixed-Table1-v0",
            {"sigma_r": -1.0},
            "ConstrainedMixed-Table1-v0: sigma_r must be a finite float >= 0; got -1.0.",
        ),
        (
            "ConstrainedMixed-Hard-v0",
            {"sigma_c": -0.5},
            "ConstrainedMixed-Hard-v0: sigma_c must be a finite float >= 0; got -0.5.",
        ),
        (
            "ConstrainedMixed-Hard-v0",
            {"K": 2},
            "ConstrainedMixed-Hard-v0: K must be an integer >= 3; got 2.",
        ),
        (
            "ConstrainedMixed-Random-v0",
            {"L": 3},
            "ConstrainedMixed-Random-v0: L must be 1 (the L = 1 generator) or 2 (the Appendix-C "
            "generator); got 3.",
        ),
        (
            "ConstrainedMixed-Random-v0",
            {"family": 4},
            "ConstrainedMixed-Random-v0: family (the number of support arms) must be an integer in "
            "[1, 3] for L = 2; got 4.",
        ),
        (
            "ConstrainedMixed-Random-v0",
            {"L": 1, "family": 3},
            "must be an integer in [1, 2] for L = 1; got 3.",
        ),
        (
            "ConstrainedMixed-Random-v0",
            {"w_mode": "X"},
            "ConstrainedMixed-Random-v0: w_mode must be 'P' (a permutation of 0, 0.02, ..., "
            "0.46) or "
            "'I' (i.i.d. on 0, 0.02, ..., 0.28); got 'X'.",
        ),
        (
            "ConstrainedMixed-Random-v0",
            {"L": 1, "w_mode": "P"},
            "w_mode belongs to the Appendix-C generator (L = 2); drop it for L = 1; got 'P'.",
        ),
        (
            "ConstrainedMixed-Random-v0",
            {"K": 30},
            "the Appendix-C generator (L = 2) has the 24-arm cost grid; K must be None or 24; "
            "got 30.",
        ),
        (
            "ConstrainedMixed-Random-v0",
            {"instance_seed": -1},
            "instance_seed must be an integer >= 0; got -1.",
        ),
        (
            "ConstrainedMixed-Custom-v0",
            {"rewards": [1.0, 2.0]},
            "ConstrainedMixed-Custom-v0: give both rewards= (shape (K,)) and costs= (shape (L, K))",
        ),
        (
            "ConstrainedMixed-Custom-v0",
            {"rewards": [1.0, 2.0], "costs": [[0.1, 0.2, 0.3]]},
            "ConstrainedMixed-Custom-v0: costs must have shape (L, K) with one column per arm (K "
            "= 2 "
            "rewards); got costs of shape (1, 3).",
        ),
        (
            "ConstrainedMixed-Custom-v0",
            {"rewards": [[1.0, 2.0]], "costs": [0.1, 0.2]},
            "ConstrainedMixed-Custom-v0: rewards must be a 1-D array; got shape (1, 2).",
        ),
        (
            "ConstrainedMixed-Custom-v0",
            {"rewards": [1.0, 2.0], "costs": [0.1, 0.2], "thresholds": [1.0, 1.0]},
            "ConstrainedMixed-Custom-v0: thresholds must have one entry per cost row (L = 1); got "
            "shape (2,).",
        ),
        (
            "ConstrainedMixed-Custom-v0",
            {"rewards": [1.0], "costs": [0.1]},
            "ConstrainedMixed-Custom-v0: there must be at least 2 arms; got 1.",
        ),
        (
            "ConstrainedMixed-Custom-v0",
            {"rewards": [1.0, np.nan], "costs": [0.1, 0.2]},
            "ConstrainedMixed-Custom-v0: rewards must be finite",
        ),
        (
            "ConstrainedMixed-Custom-v0",
            {"sigma_r": -1.0},
            "ConstrainedMixed-Custom-v0: sigma_r must be a finite float >= 0; got -1.0.",
        ),
        (
            "ConstrainedMixed-Custom-v0",
            {"known_arms": [0, 1, 2, 3, 4]},
            "ConstrainedMixed-Custom-v0: at least one arm must be unknown (K0 >= 1: the budget "
            "schedule of Tang et al. 2024, eq. 7, shares the pulls among the unknown arms); "
            "got known_arms [0, 1, 2, 3, 4] for 5 arms.",
        ),
        (
            "ConstrainedMixed-Custom-v0",
            {"known_arms": [7]},
            "ConstrainedMixed-Custom-v0: known_arms must be arm indices in 0..4; got 7.",
        ),
        (
            "ConstrainedMixed-Custom-v0",
            {"known_arms": 3},
            "ConstrainedMixed-Custom-v0: known_arms must be a sequence of arm indices; got 3.",
        ),
    ],
)
def test_bad_keywords_are_refused_with_clear_messages(env_id, kwargs, message):
    with pytest.raises(InvalidParameterError, match=re.escape(message)):
        gym.make(env_id, **kwargs)


# ------------------------------------------------------------------- model and batch path


def test_model_outcomes_and_errors():
    model = ConstrainedGaussian([1.0, 2.0], [[0.1, 0.2], [0.3, 0.4]], 1.0, 0.5)
    assert model.means.shape == (2, 3) and model.outcome_dim == 3 and model.n_constraints == 2
    np.testing.assert_array_equal(model.means, [[1.0, 0.1, 0.3], [2.0, 0.2, 0.4]])
    assert model.sample(1, np.random.default_rng(0)).shape == (3,)
    with pytest.raises(
        InvalidParameterError,
        match=re.escape(
            "ConstrainedGaussian: costs must have shape (L, K) with one column per arm (K = 2 "
            "rewards); got costs of shape (3,)."
        ),
    ):
        ConstrainedGaussian([1.0, 2.0], [0.1, 0.2, 0.3])
    with pytest.raises(InvalidParameterError, match="known_arms must not repeat an arm"):
        ConstrainedGaussian([1.0, 2.0, 3.0], [0.1, 0.2, 0.3], known_arms=[1, 1])
    with pytest.raises(InvalidInstanceError, match="outcome_dim 3; this model has outcome_dim 2"):
        ConstrainedMixedSupport([1.0, 1.0]).validate_model(ConstrainedGaussian([1, 2], [0, 1]))


def test_steps_return_reward_then_costs_and_the_batch_path_is_exact_when_noiseless():
    env = gym.make("ConstrainedMixed-Table1-v0", instance="D2I", sigma_r=0.0, sigma_c=0.0).unwrapped
    env.reset(seed=0)
    obs = env.step(5)[0]
    np.testing.assert_array_equal(obs, [0.54, 0.6, 0.9])  # (reward, c_1, c_2) of arm 5
    counts = np.arange(1, 25, dtype=np.int64)
    sums = env.step_batch(counts)[0]
    np.testing.assert_array_equal(sums, counts[:, None] * env.model.means)


def test_batch_sums_are_exact_gaussian_sums():
    """The batch path: n pulls summed have mean n mu and variance n sigma^2 per component,
    independent components; the single-pull path has the same law."""
    env = gym.make(
        "ConstrainedMixed-Hard-v0", K=3, sigma_r=1.0, sigma_c=0.5, budget=10**8
    ).unwrapped
    env.reset(seed=1)
    n, runs = 40, 3000
    counts = np.full(3, n, dtype=np.int64)
    draws = np.array([env.step_batch(counts)[0] for _ in range(runs)])  # (runs, K, 2)
    mu = env.model.means
    sd = np.array([1.0, 0.5])
    z = (draws.mean(axis=0) - n * mu) / (np.sqrt(n / runs) * sd)
    assert np.abs(z).max() < 4.5
    np.testing.assert_allclose(draws.var(axis=0), n * np.broadcast_to(sd**2, (3, 2)), rtol=0.1)
    corr = np.corrcoef(draws[:, 0, 0], draws[:, 0, 1])[0, 1]
    assert abs(corr) < 0.1
    # the same sums by single pulls: the block mean over n pulls has variance sigma^2 / n
    env.reset(seed=2)
    singles = np.array([[env.step(1)[0] for _ in range(n)] for _ in range(300)]).mean(axis=1)
    z = (singles.mean(axis=0) - mu[1]) / (sd / np.sqrt(n * 300))
    assert np.abs(z).max() < 4.5
    np.testing.assert_allclose(singles.var(axis=0), sd**2 / n, rtol=0.3)


def test_seeding_changes_noise_not_instance():
    env = gym.make("ConstrainedMixed-Random-v0", L=1, K=6).unwrapped

    def run(seed):
        env.reset(seed=seed)
        return np.array([env.step(a % 6)[0] for a in range(12)])

    np.testing.assert_array_equal(run(3), run(3))
    assert not np.allclose(run(3), run(4))


# ----------------------------------------------------------------------- grading, episodes


def test_grading_is_exact_including_the_slacks():
    env = gym.make("ConstrainedMixed-Custom-v0", budget=5).unwrapped
    env.reset(seed=0)
    _, reward, _, _, info = env.step(env.stop_action({1, 5}))  # arm 1 alone, slack: wrong
    assert not info["correct"] and reward == 0.0
    assert info["precision"] == 0.5 and info["recall"] == 0.5
    env.reset(seed=0)
    for _ in range(5):
        env.step(0)
    _, reward, terminated, _, info = env.step(env.stop_action({1, 2}))  # graded at the budget
    assert terminated and info["stop_reason"] == "budget" and info["correct"]
    c = info["complexity"]
    assert c["optimal_basis"] == (1, 2) and c["support_arms"] == (1, 2)
    assert c["Delta0_sq"] > 0 and c["arm_gaps_sq"].shape == (6,)
    assert c["margin"] == pytest.approx(0.02) and c["approximate"]
    assert set(info["truth"]) == {"means", "rewards", "costs"}


def test_empirical_answer_is_the_plug_in_optimal_basis():
    task = ConstrainedMixedSupport([1.0, 1.0])
    rewards, costs, _ = table1_instance("D3P")
    means = np.column_stack([rewards, costs.T])
    assert task.empirical_answer(means) == frozenset({10, 12, 21}) == task.true_answer(means)
    assert task.n_items(24) == 26 and task.public_fields()["cost_thresholds"].tolist() == [1, 1]
    assert task.split_answer(frozenset({10, 12, 21}), 24) == (frozenset({10, 12, 21}), frozenset())
