"""m-LinGapE and LinGIFA (Réda, Kaufmann & Delahaye-Duriez 2021) as all-ε-good baselines (Li, Ma,
Hua & Zhu 2025, Sec. 7): decisions against brute force (dense and pruned paths), the m = 1 reduction
to LinGapE, noiseless runs, δ-correctness, error paths, check_agent."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

import agents.eps_good.top_m as top_m
from agents.checks import check_agent
from agents.eps_good.top_m import LinGIFA, MLinGapE
from agents.linear_bai.lingape import LinGapE
from bandit_envs import run_episode
from bandit_envs.core.env import PureExplorationEnv
from bandit_envs.core.models import LinearGaussian
from bandit_envs.core.tasks import AllEpsilonGood, BestArm
from bandit_envs.errors import IncompatibleAgentError, InvalidParameterError
from bandit_envs.theory.linalg import reduce_features

AGENTS = (MLinGapE, LinGIFA)

#: the static instance of Li et al. (2025, Sec. 7.1; d = 8, m̃ = 4, Δ = 1, ε = Δ/2):
#: G_ε = {0, 1, 2, 3}.
STATIC_X = np.eye(8)
STATIC_THETA = np.array([1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0])


def adaptive_instance(eps: float = 0.2) -> tuple[np.ndarray, np.ndarray]:
    """Li et al.'s adaptive setting (EC.12.1) with our fix of its on-threshold arm, d = 8, m̃ = 4,
    X̃ = 1, n = 2 disturbing arms."""
    theta = np.array([1.2, 1.15, 1.1, 1.05, 0.0, 0.0, 0.0, 0.0])
    rows = list(np.eye(8))
    for i in (1, 2):
        c = (1.0 - eps * i / 2) / 1.2
        x = np.zeros(8)
        x[0], x[-1] = c, math.sqrt(1.0 - c * c)
        rows.append(x)
    return np.array(rows), theta


def make_env(features, theta, eps, sigma=1.0, task=None, **setting):
    setting.setdefault("delta", 0.1)
    model = LinearGaussian(np.asarray(features, float), np.asarray(theta, float), sigma)
    return PureExplorationEnv(model, task or AllEpsilonGood(eps), **setting)


def drive(env, agent, pulls, seed=0):
    """The protocol by hand for at most ``pulls`` pulls; returns the agent."""
    _, info = env.reset(seed=seed)
    agent.reset(info["problem"], np.random.default_rng(seed))
    for _ in range(pulls):
        arm = agent.select()
        if arm is None:
            break
        obs, *_ = env.step(arm)
        agent.observe(arm, obs)
    return agent


# ----------------------------------------------------------------- brute force (fresh inverses)


def pair_matrix(agent):
    """μ̂ and P[i, j] = B_{i,j}(t) = μ̂_i − μ̂_j + C‖x_i − x_j‖_{A⁻¹} by loops and np.linalg.inv."""
    z, _ = reduce_features(agent.spec.features)
    lam = agent.ridge if agent.confidence == "self_normalized" else 0.0
    gram = (z.T * agent.counts) @ z + lam * np.eye(z.shape[1])
    inv = np.linalg.inv(gram)
    mu = z @ inv @ (z.T @ agent.sums[:, 0])
    c = agent._width()  # LinGapE's widths are tested in test_lingape.py
    k = len(z)
    p = np.empty((k, k))
    for i in range(k):
        for j in range(k):
            y = z[i] - z[j]
            p[i, j] = mu[i] - mu[j] + c * math.sqrt(max(y @ inv @ y, 0.0))
    return mu, p


def brute_m(agent, mu):
    k, eps = len(mu), agent.spec.epsilon
    if agent.m is not None:
        return agent.m
    return min(int(np.sum(mu >= mu.max() - eps)), k - 1)


def brute_mlingape(agent):
    """J(t), b_t, c_t, B(t) of m-LinGapE by loops over the pairs."""
    mu, p = pair_matrix(agent)
    k, m = len(mu), brute_m(agent, mu)
    top = sorted(range(k), key=lambda i: (-mu[i], i))[:m]
    best = (-math.inf, -1, -1)
    for j in sorted(top):
        for i in range(k):
            if i not in top and p[i, j] > best[0]:
                best = (p[i, j], j, i)
    return set(top), best[1], best[2], best[0]


def brute_lingifa(agent):
    """J(t), b_t, c_t, max_J B_j of LinGIFA by loops and sorting."""
    mu, p = pair_matrix(agent)
    k, m = len(mu), brute_m(agent, mu)
    index = [sorted((p[a, j] for a in range(k) if a != j), reverse=True)[m - 1] for j in range(k)]
    j_set = sorted(range(k), key=lambda j: (index[j], j))[:m]
    b = min(j_set, key=lambda j: (-index[j], j))
    c = min((a for a in range(k) if a not in j_set), key=lambda a: (-p[a, b], a))
    return set(j_set), b, c, index[b]


BRUTE = {MLinGapE: brute_mlingape, LinGIFA: brute_lingifa}


def decision(agent):
    agent._decide()
    return set(np.flatnonzero(agent._in_j)), agent._best, agent._challenger, agent._index


def random_instance(k, h, seed):
    rng = np.random.default_rng(seed)
    features = rng.normal(size=(k, h))
    theta = rng.normal(size=h)
    s = np.sort(features @ theta)[::-1]
    eps = float(s[0] - (s[3] + s[4]) / 2)  # the threshold half-way between the 4th and 5th means
    return features, theta, eps


# ----------------------------------------------------------------- decisions


@pytest.mark.parametrize("m", [3, None], ids=["m=3", "m=auto"])
@pytest.mark.parametrize("n_arms", [7, 130], ids=["dense, G", "pruned, W"])
@pytest.mark.parametrize("agent_cls", AGENTS, ids=lambda a: a.__name__)
def test_decisions_equal_brute_force(agent_cls, n_arms, m):
    features, theta, eps = random_instance(n_arms, 4, n_arms)
    sigma = 3.0 if n_arms < 100 else 1.0  # no stop before the second check; small pruned sets
    env = make_env(features, theta, eps, sigma=sigma, delta=0.05, max_samples=10**6)
    agent = agent_cls(m=m)
    for pulls in (n_arms + 3, n_arms + 1100):  # the second crosses an exact refresh (1024)
        drive(env, agent, pulls, seed=1)
        got = decision(agent)
        want = BRUTE[agent_cls](agent)
        assert got[:3] == want[:3]
        assert got[3] == pytest.approx(want[3], rel=1e-9, abs=1e-12)
        assert agent.recommend() == frozenset(got[0])
    assert agent._prune == (n_arms > top_m.PRUNE_ABOVE)
    if agent._prune and agent_cls is LinGIFA:  # the pruned block, not the dense fallback
        cand, rows = agent._prune_indices(agent._current_m(), agent._width())
        assert cand.size * rows.size <= n_arms**2 // 2


@pytest.mark.parametrize("agent_cls", AGENTS, ids=lambda a: a.__name__)
def test_pruned_path_gives_the_dense_trajectory(agent_cls, monkeypatch):
    """Pruning is exact: the same episode with and without it has the same record."""
    features, theta, eps = random_instance(70, 5, 3)
    env = make_env(features, theta, eps, delta=0.1, max_samples=4000)
    kw = dict(m=4, confidence="heuristic")
    monkeypatch.setattr(top_m, "PRUNE_ABOVE", 0)
    pruned = run_episode(env, agent_cls(**kw), 2).to_dict()
    monkeypatch.setattr(top_m, "PRUNE_ABOVE", 10**9)
    dense = run_episode(env, agent_cls(**kw), 2).to_dict()
    for key in ("samples", "pulls", "answer", "stop_reason"):
        assert pruned[key] == dense[key]


def test_pruning_shrinks_the_pair_sets_once_the_widths_are_small():
    features, theta, eps = random_instance(200, 4, 5)
    env = make_env(features, theta, eps, sigma=0.1, max_samples=10**6)
    gifa = drive(env, LinGIFA(m=4, confidence="heuristic"), 600)
    gifa._decide()
    cand, rows = gifa._prune_indices(4, gifa._width())
    assert cand.size < 40 and rows.size < 60  # of K = 200
    gape = drive(env, MLinGapE(m=4, confidence="heuristic"), 600)
    j_set, i_set = gape._in_j.nonzero()[0], (~gape._in_j).nonzero()[0]
    rows, cols = gape._prune_pairs(j_set, i_set, gape._width())
    assert cols.size < 40  # of 196 challengers


@pytest.mark.parametrize("selection", ["greedy", "ratio"])
@pytest.mark.parametrize("confidence", ["heuristic", "self_normalized_ols"])
def test_m_equal_one_is_lingape(selection, confidence):
    """m-LinGapE with m = 1 on a best-arm-like instance (G_ε = the best arm): LinGapE's pair,
    gap index, stopping time and answer, step by step."""
    rng = np.random.default_rng(7)
    features = rng.normal(size=(6, 3))
    theta = np.array([1.0, -0.5, 0.3])
    means = features @ theta
    second_gap = float(np.sort(means)[-1] - np.sort(means)[-2])
    model = LinearGaussian(features, theta, 1.0)
    best_env = PureExplorationEnv(model, BestArm(), delta=0.05)
    eps_env = PureExplorationEnv(model, AllEpsilonGood(second_gap / 2), delta=0.05)
    kw = dict(selection=selection, confidence=confidence)
    ref, ours = LinGapE(**kw), MLinGapE(m=1, **kw)
    for seed in (0, 1):
        best_env.reset(seed=seed)
        eps_env.reset(seed=seed)
        ref.reset(best_env.unwrapped.problem, np.random.default_rng(seed))
        ours.reset(eps_env.unwrapped.problem, np.random.default_rng(seed))
        while True:
            arm = ref.select()
            assert ours.select() == arm
            if arm is None:
                break
            if ref._ready:
                assert (ours._best, ours._challenger) == (ref._best, ref._challenger)
                assert ours._index == pytest.approx(ref._index, rel=1e-12, abs=1e-12)
            a, *_ = best_env.step(arm)
            b, *_ = eps_env.step(arm)
            assert a == b
            ref.observe(arm, a)
            ours.observe(arm, b)
        assert ours.recommend() == ref.recommend()
        assert ours.t == ref.t > 6


# ----------------------------------------------------------------- outputs


@pytest.mark.parametrize("m", [4, None], ids=["m=4", "m=auto"])
@pytest.mark.parametrize("agent_cls", AGENTS, ids=lambda a: a.__name__)
@pytest.mark.parametrize("instance", ["static", "adaptive"])
def test_noiseless_run_returns_the_good_set_after_the_first_round(instance, agent_cls, m):
    features, theta = (STATIC_X, STATIC_THETA) if instance == "static" else adaptive_instance()
    eps = 0.5 if instance == "static" else 0.2
    record = run_episode(make_env(features, theta, eps, sigma=0.0), agent_cls(m=m), 0)
    assert record.correct and record.stop_reason == "stopped"
    assert set(record.answer) == {0, 1, 2, 3}
    assert record.samples == len(features)


@pytest.mark.parametrize("agent_cls", AGENTS, ids=lambda a: a.__name__)
def test_top_m_answer_and_eps_rule_answer(agent_cls):
    """answer="top_m" returns m arms even when m ≠ |G_ε|; "eps_rule" the ε-rule on μ̂."""
    env = make_env(STATIC_X, STATIC_THETA, 0.5, sigma=0.0)
    record = run_episode(env, agent_cls(m=2), 0)
    assert len(record.answer) == 2 and set(record.answer) < {0, 1, 2, 3} and not record.correct
    record = run_episode(env, agent_cls(m=2, answer="eps_rule"), 0)
    assert set(record.answer) == {0, 1, 2, 3} and record.correct
    agent = drive(make_env(STATIC_X, STATIC_THETA, 0.5), agent_cls(m=2, answer="eps_rule"), 30)
    mu = agent._means
    assert agent.recommend() == frozenset(np.flatnonzero(mu >= mu.max() - 0.5).tolist())


@pytest.mark.parametrize("agent_cls", AGENTS, ids=lambda a: a.__name__)
def test_auto_m_follows_the_empirical_good_set(agent_cls):
    agent = drive(make_env(*adaptive_instance(), 0.2), agent_cls(), 200, seed=4)
    mu = agent._means
    good = np.flatnonzero(mu >= mu.max() - 0.2)
    assert agent._current_m() == min(good.size, agent.n_arms - 1)
    if agent_cls is MLinGapE:
        assert agent.recommend() == frozenset(good.tolist())


def test_every_arm_good_caps_the_auto_m_at_k_minus_one():
    agent = drive(make_env(np.eye(3), [1.0, 0.9, 0.8], 0.5, sigma=0.0), MLinGapE(), 3)
    assert agent._current_m() == 2
    assert agent.recommend() == frozenset({0, 1})


def test_stopping_certifies_the_top_m_set():
    """At the stop every pair (i ∉ J, j ∈ J) has B_{i,j} ≤ 0 (m-LinGapE), and every j ∈ J has
    its m-th largest B_{a,j} ≤ 0 (LinGIFA)."""
    env = make_env(*adaptive_instance(), 0.2, sigma=1.0)
    for agent in (MLinGapE(m=4, confidence="heuristic"), LinGIFA(m=4, confidence="heuristic")):
        drive(env, agent, 10**6, seed=3)
        assert agent._stopped
        _, p = pair_matrix(agent)
        j_set = np.flatnonzero(agent._in_j)
        others = np.flatnonzero(~agent._in_j)
        if isinstance(agent, MLinGapE):
            assert p[np.ix_(others, j_set)].max() <= 0.0
        else:
            for j in j_set:
                assert np.sort(np.delete(p[:, j], j))[-4] <= 0.0


def test_largest_variance_pulls_the_more_uncertain_of_the_pair():
    agent = drive(
        make_env(*adaptive_instance(), 0.2), LinGIFA(m=4, selection="largest_variance"), 40, seed=2
    )
    arm = agent.select()
    b, c = agent._best, agent._challenger
    assert arm == (b if agent._d[b] >= agent._d[c] else c)


# ----------------------------------------------------------------- δ-correctness


def _error_count(agent_factory, seeds, delta):
    env = make_env(STATIC_X, STATIC_THETA, 0.5, delta=delta)
    records = [run_episode(env, agent_factory(), s) for s in range(seeds)]
    assert all(r.stop_reason == "stopped" for r in records)
    return sum(not r.correct for r in records)


@pytest.mark.parametrize("m", [4, None], ids=["m=4", "m=auto"])
@pytest.mark.parametrize("agent_cls", AGENTS, ids=lambda a: a.__name__)
def test_delta_correct_on_the_static_instance_heuristic_width(agent_cls, m):
    """Heuristic width (no proof): empirical error ≤ δ = 0.1 over 100 seeds (binomial test)."""
    errors = _error_count(lambda: agent_cls(m=m, confidence="heuristic"), 100, 0.1)
    assert stats.binom.sf(errors - 1, 100, 0.1) > 1e-3, errors


@pytest.mark.slow
@pytest.mark.parametrize("m", [4, None], ids=["m=4", "m=auto"])
@pytest.mark.parametrize("agent_cls", AGENTS, ids=lambda a: a.__name__)
def test_delta_correct_on_the_static_instance_proven_width(agent_cls, m):
    """Default (proven) width: the error rate over 100 seeds is consistent with ≤ δ = 0.1."""
    errors = _error_count(lambda: agent_cls(m=m), 100, 0.1)
    assert stats.binom.sf(errors - 1, 100, 0.1) > 1e-3, errors


# ----------------------------------------------------------------- errors and check_agent


@pytest.mark.parametrize("agent_cls", AGENTS, ids=lambda a: a.__name__)
def test_parameters_are_validated_at_reset(agent_cls):
    env = make_env(STATIC_X, STATIC_THETA, 0.5)
    name = agent_cls.__name__
    selections = "'greedy', 'ratio'" + (", 'largest_variance'" if agent_cls is LinGIFA else "")
    cases = [
        (dict(m=0), "m must be None or 'hint' or an integer >= 1; got 0."),
        (
            dict(m=8),
            "m (the size of the top-m answer) must be at most K - 1 = 7 on this problem; got 8.",
        ),
        (dict(m=2.0), "m must be None or 'hint' or an integer >= 1; got 2.0."),
        (dict(m=True), "m must be None or 'hint' or an integer >= 1; got True."),
        (dict(answer="set"), "answer must be one of 'top_m', 'eps_rule'; got 'set'."),
        (
            dict(tolerance=-0.1),
            "tolerance must be a finite float >= 0 or 'epsilon'; got -0.1.",
        ),
        (dict(selection="uniform"), f"selection must be one of {selections}; got 'uniform'."),
        (
            dict(confidence="gaussian"),
            "confidence must be one of 'heuristic', 'self_normalized', 'self_normalized_ols'; "
            "got 'gaussian'.",
        ),
        (
            dict(confidence="self_normalized"),
            "theta_bound (a bound S >= ||theta||) must be given when "
            "confidence='self_normalized'; got confidence='self_normalized', theta_bound=None.",
        ),
    ]
    for params, message in cases:
        with pytest.raises(InvalidParameterError) as info:
            run_episode(env, agent_cls(**params), 0)
        assert str(info.value) == f"{name}: {message}"
    assert agent_cls().get_params() == {
        "m": None,
        "selection": "greedy",
        "confidence": "self_normalized_ols",
        "ridge": 1.0,
        "theta_bound": None,
        "tolerance": 0.0,
        "answer": "top_m",
    }


@pytest.mark.parametrize("agent_cls", [MLinGapE, LinGIFA])
def test_m_hint_is_the_instance_family_expected_number_of_good_arms(agent_cls):
    # the paper's protocol (Sec. 7): top-m baselines know E[m~] = 4, not m~ = 3; here
    # the top 4 are the three good arms and the best disturbing arm (means 1.3, 1.2, 1.1, 0.9)
    import gymnasium as gym

    import bandit_envs  # noqa: F401

    env = gym.make(
        "LinearEpsGood-Adaptive-v0", d=6, m_tilde=3, x_tilde=1.0, epsilon=0.3, sigma=0.05
    )
    rec = run_episode(env, agent_cls(m="hint"), 0)
    assert rec.answer == frozenset({0, 1, 2, 6}) and not rec.correct
    plain = PureExplorationEnv(
        LinearGaussian(np.eye(3), [1.0, 0.7, 0.0], 0.1), AllEpsilonGood(0.5), delta=0.1
    )
    with pytest.raises(InvalidParameterError, match=r"m='hint' reads .*has none"):
        run_episode(plain, agent_cls(m="hint"), 0)


@pytest.mark.parametrize("agent_cls", [MLinGapE, LinGIFA])
def test_tolerance_epsilon_stops_when_the_hinted_top_m_set_ties(agent_cls):
    # static instance, m~ = 3 good arms (mean 1) and five tied at 0: the top-4 set is not unique;
    # (eps, m)-identification with the task's eps = 1/2 stops with the three good arms in J(t)
    import gymnasium as gym

    import bandit_envs  # noqa: F401

    env = gym.make("LinearEpsGood-Static-v0", d=8, m_tilde=3, sigma=0.2)
    agent = agent_cls(m="hint", tolerance="epsilon")
    rec = run_episode(env, agent, 0)
    assert agent.epsilon == 0.5 and len(rec.answer) == 4 and set(rec.answer) >= {0, 1, 2}


def test_largest_variance_is_a_lingifa_rule_only():
    env = make_env(STATIC_X, STATIC_THETA, 0.5)
    with pytest.raises(InvalidParameterError, match=r"'greedy', 'ratio'; got 'largest_var"):
        run_episode(env, MLinGapE(selection="largest_variance"), 0)
    assert run_episode(env, LinGIFA(selection="largest_variance", m=4), 0).correct


@pytest.mark.parametrize("agent_cls", AGENTS, ids=lambda a: a.__name__)
def test_refuses_multiplicative_and_other_tasks(agent_cls):
    env = make_env(np.eye(3), [1.0, 0.95, 0.2], 0.1, task=AllEpsilonGood(0.1, multiplicative=True))
    with pytest.raises(IncompatibleAgentError, match="multiplicative=True"):
        run_episode(env, agent_cls(), 0)
    best = make_env(np.eye(3), [1.0, 0.5, 0.2], None, task=BestArm())
    with pytest.raises(IncompatibleAgentError, match=r"solves \['all_eps_good'\]"):
        run_episode(best, agent_cls(), 0)


@pytest.mark.parametrize(
    "agent",
    [
        MLinGapE(),
        LinGIFA(),
        MLinGapE(selection="ratio", confidence="heuristic"),
        LinGIFA(selection="largest_variance", answer="eps_rule"),
    ],
    ids=repr,
)
def test_check_agent(agent):
    results = check_agent(agent)
    assert all(r.status in ("passed", "skipped") for r in results), results
    assert [r.check for r in results if r.status == "skipped"] == ["check_batch_equivalence"]
