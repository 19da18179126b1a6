"""LinFACT-MIS and LinFACT-GLM (Li, Ma, Hua & Zhu 2025, Sec. 5–6).

Counts and radii by hand (eq. 21, 33, 35, 40; EC.9.8), reductions to LinFACT-G (L_m = 0, identity
link), capabilities, noiseless runs (where the linear agents break and the aware ones hold),
batch ≡ single, the clean events of Theorems 5.1/5.2/6.1 and δ-correctness within their
conditions (fast here, larger @slow versions).
"""

from __future__ import annotations

import math

import gymnasium as gym
import numpy as np
import pytest
from scipy.special import expit

import bandit_envs  # noqa: F401
from agents import check_agent
from agents.eps_good.linfact import LinFACTG, LinFACTXY
from agents.eps_good.linfact_robust import LinFACTGLM, LinFACTMIS
from bandit_envs import (
    AllEpsilonGood,
    IncompatibleAgentError,
    InvalidParameterError,
    LinearGaussian,
    LogisticGLM,
    PureExplorationEnv,
    run_episode,
)
from bandit_envs.envs.all_eps_good import adaptive_instance
from bandit_envs.theory.eps_good import eps_good_gaps
from bandit_envs.theory.glm import get_link
from bandit_envs.theory.misspecification import orthogonal_estimate

#: the paper's rounds ("always") pinned explicitly: the default is use_features="auto"
#: ("when_cheaper" when L_m is known, "always" when it is not)
MIS_CONFIGS = {
    "auto": {},
    "ols": {"use_features": "always"},
    "orthogonal": {"estimator": "orthogonal", "use_features": "always"},
    "when_cheaper": {"use_features": "when_cheaper"},
    "never": {"use_features": "never"},
}
#: the study's instance (the adaptive setting of Sec. 7.1 with E[m] = 8, m~ = 3, X~ = 1,
#: eps = 0.3): K = 17, d = 8
STUDY = {"d": 8, "m": 8, "m_tilde": 3, "x_tilde": 1.0, "epsilon": 0.3}


def mis_env(L_m, deviation="random", **kw):
    kw.setdefault("max_samples", 10**9)
    return gym.make(
        "MisspecifiedEpsGood-Adaptive-v0", L_m=L_m, deviation=deviation, **{**STUDY, **kw}
    )


def records_equal(a, b):
    return all(getattr(a, k) == getattr(b, k) for k in ("samples", "answer", "stop_reason")) and (
        np.array_equal(a.pulls, b.pulls)
    )


class ExactLogistic(LogisticGLM):
    """The noiseless limit of a logistic bandit: every outcome is its mean p (not Bernoulli)."""

    def sample(self, arm, rng):
        return self.means[arm].copy()

    def sample_sums(self, counts, rng):
        return np.asarray(counts, float)[:, None] * self.means

    def noise_bound(self):
        return 0.0  # no noise: sigma^2 = 0 in the counts (one pull per support arm)


# ----------------------------------------------------------------- conformance and parameters


@pytest.mark.parametrize("config", list(MIS_CONFIGS))
def test_check_agent_passes_mis(config):
    results = check_agent(LinFACTMIS(**MIS_CONFIGS[config]))
    assert all(r.status in ("passed", "skipped") for r in results)


@pytest.mark.parametrize("kwargs", [{}, {"lipschitz_radius": False}, {"warmup": 0}])
def test_check_agent_passes_glm(kwargs):
    results = check_agent(LinFACTGLM(**kwargs))
    assert all(r.status in ("passed", "skipped") for r in results)


@pytest.mark.parametrize(
    "agent, message",
    [
        (
            LinFACTMIS(estimator="huber"),
            "estimator must be one of 'ols', 'orthogonal'; got 'huber'.",
        ),
        (
            LinFACTMIS(use_features="sometimes"),
            "use_features must be one of 'auto', 'always', 'when_cheaper', 'never'; got "
            "'sometimes'.",
        ),
        (LinFACTMIS(inflate=1), "inflate must be True or False; got 1."),
        (LinFACTMIS(paper_radius="no"), "paper_radius must be True or False; got 'no'."),
        (LinFACTMIS(L_m=-0.1), "L_m must be None or a finite float >= 0; got -0.1."),
        (LinFACTMIS(design_tol=2.0), "design_tol must be a float in (0, 1); got 2.0."),
        (
            LinFACTGLM(link="probit"),
            "link must be None or one of 'identity', 'logistic', 'poisson'; got 'probit'.",
        ),
        (LinFACTGLM(c_min=0.0), "c_min must be None or a finite float > 0; got 0.0."),
        (
            LinFACTGLM(predictor_bound=-1.0),
            "predictor_bound must be None or a finite float >= 0; got -1.0.",
        ),
        (LinFACTGLM(lipschitz_radius="yes"), "lipschitz_radius must be True or False; got 'yes'."),
        (LinFACTGLM(warmup=-1), "warmup must be an integer >= 0; got -1."),
        (LinFACTGLM(max_iter=0), "max_iter must be an integer >= 1; got 0."),
        (LinFACTGLM(ridge=-1e-3), "ridge must be a finite float >= 0; got -0.001."),
    ],
)
def test_parameters_are_validated_at_reset(agent, message):
    env = gym.make("LinearEpsGood-Static-v0", d=4, m_tilde=2)
    with pytest.raises(InvalidParameterError) as info:
        run_episode(env, agent, 0)
    assert str(info.value) == f"{type(agent).__name__}: {message}"
    assert LinFACTMIS().get_params() == {
        "estimator": "ols",
        "L_m": None,
        "inflate": True,
        "paper_radius": False,
        "use_features": "auto",
        "use_ambient_d": False,
        "design_tol": 1e-6,
    }
    assert LinFACTGLM().get_params()["link"] is None
    assert LinFACTGLM().get_params()["lipschitz_radius"] is True


def test_capabilities_on_the_new_ids():
    mis = mis_env(0.0025)
    logistic = gym.make("LogisticEpsGood-Adaptive-v0")
    # linear agents RUN on a misspecified problem (Theorem 5.1 is about exactly that) ...
    for agent in (LinFACTG(), LinFACTXY(), LinFACTMIS()):
        assert run_episode(mis, agent, 0).stop_reason == "stopped"
    # ... and are refused on a GLM one, as LinFACT-MIS is; LinFACT-GLM is refused on mis
    for agent in (LinFACTG(), LinFACTXY(), LinFACTMIS()):
        with pytest.raises(IncompatibleAgentError, match="problem's structure is 'glm'"):
            run_episode(logistic, agent, 0)
    with pytest.raises(IncompatibleAgentError, match="'misspecified_linear'"):
        run_episode(mis, LinFACTGLM(), 0)
    assert run_episode(logistic, LinFACTGLM(lipschitz_radius=True), 0).stop_reason == "stopped"


def test_unknown_misspecification_level():
    hidden = mis_env(0.005, bound_known=False)
    agent = LinFACTMIS(use_features="always")
    record = run_episode(hidden, agent, 0)  # Theorem 5.1's agent: no inflation
    assert record.stop_reason == "stopped"
    assert all(
        p["radius"] == 2.0 ** -p["round"] and p["inflation"] == 0.0 for p in agent.phase_history
    )
    # the default ("auto") is then Theorem 5.1's agent too: no L_m, no when_cheaper
    default = LinFACTMIS()
    assert records_equal(run_episode(hidden, default, 0), record)
    assert [p["kind"] for p in default.phase_history] == ["structured"] * len(agent.phase_history)
    for kwargs in ({"estimator": "orthogonal"}, {"use_features": "when_cheaper"}):
        with pytest.raises(InvalidParameterError, match="needs the misspecification level L_m"):
            run_episode(hidden, LinFACTMIS(**kwargs), 0)
    told = LinFACTMIS(estimator="orthogonal", L_m=0.005)  # given by hand instead
    assert run_episode(hidden, told, 0).stop_reason == "stopped"
    assert run_episode(hidden, LinFACTMIS(use_features="never"), 0).stop_reason == "stopped"


def test_glm_needs_c_min_or_a_bound():
    model = LogisticGLM(np.eye(3), [1.0, 0.0, -1.0])
    env = PureExplorationEnv(model, AllEpsilonGood(0.3), delta=0.1)  # publishes no bound
    with pytest.raises(InvalidParameterError, match="the logistic link needs c_min"):
        run_episode(env, LinFACTGLM(), 0)
    a, b = LinFACTGLM(c_min=get_link("logistic").min_slope(1.0)), LinFACTGLM(predictor_bound=1.0)
    ra, rb = run_episode(env, a, 3), run_episode(env, b, 3)
    assert records_equal(ra, rb)
    assert a.phase_history[1]["c_min"] == pytest.approx(expit(1.0) * expit(-1.0))
    nameless = env.problem.replace(link=None)  # a GLM problem that does not say its link
    with pytest.raises(InvalidParameterError, match="does not say its link"):
        LinFACTGLM(c_min=0.1).reset(nameless, np.random.default_rng(0))
    LinFACTGLM(link="logistic", c_min=0.1).reset(nameless, np.random.default_rng(0))


# ----------------------------------------------------------------- reductions to LinFACT-G


@pytest.mark.parametrize("seed", range(3))
def test_mis_ols_at_zero_misspecification_is_linfact_g(seed):
    x, theta = adaptive_instance(8, 3, 1.0, 0.3, m=8)
    env = PureExplorationEnv(LinearGaussian(x, theta, 1.0), AllEpsilonGood(0.3), delta=0.05)
    g, mis, cheap = LinFACTG(), LinFACTMIS(use_features="always"), LinFACTMIS()
    rg = run_episode(env, g, seed)
    assert records_equal(rg, run_episode(env, mis, seed))
    assert records_equal(rg, run_episode(env, cheap, seed))
    for p, q in zip(g.phase_history, mis.phase_history, strict=True):
        np.testing.assert_array_equal(p["means"], q["means"])
        assert q["radius"] == 2.0 ** -q["round"] and q["kind"] == "structured"
    # on a misspecified problem without inflation it is LinFACT-G too
    mis_id = mis_env(0.02)
    assert records_equal(
        run_episode(mis_id, LinFACTG(), seed),
        run_episode(mis_id, LinFACTMIS(inflate=False, use_features="always"), seed),
    )


@pytest.mark.parametrize("seed", range(3))
def test_glm_identity_link_is_linfact_g(seed):
    # identity link, c_min = 1: eq. 40 is eq. 21, so LinFACT-GLM is LinFACT-G (counts, estimates)
    x, theta = adaptive_instance(8, 3, 1.0, 0.3)
    env = PureExplorationEnv(LinearGaussian(x, theta, 0.5), AllEpsilonGood(0.3), delta=0.05)
    g, glm = LinFACTG(), LinFACTGLM()
    assert records_equal(run_episode(env, g, seed), run_episode(env, glm, seed))
    for p, q in zip(g.phase_history, glm.phase_history, strict=True):
        assert p["allocation"] == q["allocation"] and q["c_min"] == 1.0
        np.testing.assert_array_equal(p["means"], q["means"])
    # on a logistic problem, link="identity" pulls LinFACT-G's counts at sigma = 1/2
    logistic = gym.make("LogisticEpsGood-Adaptive-v0", d=8, m_tilde=3, x_tilde=1.0)
    lin = LinFACTGLM(link="identity")
    run_episode(logistic, lin, seed)
    assert lin.phase_history[0]["allocation"] == g.phase_history[0]["allocation"]


# ----------------------------------------------------------------- counts and radii by hand


def _flat_env(L_m, sigma=1.0, eps=0.6):
    # e_1..e_4 (d_r = 4, uniform G-design) with a deviation the features absorb
    return gym.make(
        "MisspecifiedEpsGood-Custom-v0",
        features=np.eye(4),
        theta=[1.0, 0.7, 0.1, -0.2],
        deviation=[0.0, 0.0, 0.0, L_m],
        epsilon=eps,
        sigma=sigma,
        delta=0.1,
    )


def test_mis_ols_counts_eq21_and_prop54_radius():
    agent = LinFACTMIS(use_features="always")
    run_episode(_flat_env(0.01), agent, 0)
    for p in agent.phase_history:
        r = p["round"]
        per_arm = math.ceil(2 * 4 * 0.25 / 4.0**-r * math.log(2 * 4 * r * (r + 1) / 0.1))
        assert p["allocation"] == [per_arm] * len(p["active"])
        d_r = len(p["active"])  # unit vectors: the active span has one dimension per arm
        c = 0.01 * (math.sqrt(d_r) + 1.0)  # our fix: eq. 35 as printed misses the arm's own L_m
        assert p["rank"] == d_r and p["inflation"] == pytest.approx(c)
        assert p["radius"] == pytest.approx(2.0**-r + c)
    assert agent.phase_history[0]["inflation"] == pytest.approx(0.03)
    paper = LinFACTMIS(paper_radius=True, use_features="always")  # eq. 35: L_m sqrt(d_r)
    run_episode(_flat_env(0.01), paper, 0)
    assert paper.phase_history[0]["inflation"] == pytest.approx(0.02)


def test_mis_orthogonal_counts_eq33_and_radius_ec98():
    agent = LinFACTMIS(estimator="orthogonal", use_features="always")
    run_episode(_flat_env(0.01), agent, 0)
    first = agent.phase_history[0]
    per_arm = math.ceil(8 * 4 * 0.25 / 0.25 * (4 * math.log(6) + math.log(4 * 2 / 0.1)))
    assert first["allocation"] == [per_arm] * 4
    assert first["radius"] == pytest.approx(0.5 + 0.01 * (2.0 + 2.0))


def test_orthogonal_round_estimate_is_eq30():
    env = mis_env(0.02, "adversarial", sigma=0.5)
    agent = LinFACTMIS(estimator="orthogonal", use_features="always")
    agent.reset(env.unwrapped.problem, np.random.default_rng(0))
    counts = agent.select_batch()
    sums = env.unwrapped.model.sample_sums(counts, np.random.default_rng(1))
    agent.observe_batch(counts, sums)
    first = agent.phase_history[0]
    fit = orthogonal_estimate(agent._z, counts, sums[:, 0], 0.02)
    np.testing.assert_allclose(first["means"], fit.means[first["active"]])


def test_glm_counts_eq40_warmup_and_radius():
    env = gym.make("LogisticEpsGood-Custom-v0")  # e_1..e_3, theta (1, 0.5, -1), B = 1
    agent = LinFACTGLM(lipschitz_radius=False)  # the paper's number eps_r on the mean scale
    run_episode(env, agent, 0)
    warm, first = agent.phase_history[0], agent.phase_history[1]
    assert warm["round"] == 0 and warm["kind"] == "warmup" and warm["allocation"] == [1, 1, 1]
    c_min = expit(1.0) * expit(-1.0)
    per_arm = math.ceil(0.25 * 2 * 3 * (1 / 3) / 0.25 / c_min**2 * math.log(2 * 3 * 2 / 0.05))
    assert first["allocation"] == [per_arm] * 3 and first["radius"] == 0.5
    tight = LinFACTGLM(warmup=0)  # the default radius: L eps_r, L = 1/4 for the logistic link
    run_episode(env, tight, 0)
    assert tight.phase_history[0]["round"] == 1
    assert tight.phase_history[0]["radius"] == pytest.approx(0.25 * 0.5)


@pytest.mark.parametrize("L_m", [0.0025, 0.1])
def test_the_default_is_when_cheaper_when_l_m_is_known(L_m):
    env = mis_env(L_m)
    default, cheap = LinFACTMIS(), LinFACTMIS(use_features="when_cheaper")
    assert records_equal(run_episode(env, default, 1), run_episode(env, cheap, 1))
    assert [(p["kind"], p["radius"]) for p in default.phase_history] == [
        (p["kind"], p["radius"]) for p in cheap.phase_history
    ]


def test_when_cheaper_drops_the_features_once_l_m_dominates():
    env = mis_env(0.1)
    cheap, never = LinFACTMIS(use_features="when_cheaper"), LinFACTMIS(use_features="never")
    # round 1: c = 0.1 sqrt(8) > eps_1 = 0.5? no (0.28): structured at accuracy 0.22 costs more
    # than the unstructured round here, and every later round too
    assert records_equal(run_episode(env, cheap, 0), run_episode(env, never, 0))
    assert {p["kind"] for p in cheap.phase_history} == {"unstructured"}
    small = LinFACTMIS(use_features="when_cheaper")
    run_episode(mis_env(0.0025), small, 0)
    kinds = [p["kind"] for p in small.phase_history]
    assert kinds[0] == "structured" and kinds[-1] == "unstructured"
    assert all(p["radius"] == 2.0 ** -p["round"] for p in small.phase_history)


# ----------------------------------------------------------------- noiseless runs


@pytest.mark.parametrize("L_m", [0.1, 0.24, 0.28])
def test_noiseless_linear_agents_break_and_aware_ones_hold(L_m):
    """σ = 0, adversarial deviation above the flip level: the linear fit's answer is wrong."""
    env = mis_env(L_m, "adversarial", sigma=0.0)
    assert env.unwrapped.instance_info["flipped"]
    for agent in (LinFACTG(), LinFACTXY()):
        assert not run_episode(env, agent, 0).correct
    for agent in (LinFACTMIS(use_features="never"), LinFACTMIS(use_features="when_cheaper")):
        record = run_episode(env, agent, 0)
        assert record.correct and record.stop_reason == "stopped"


@pytest.mark.parametrize("config", ["ols", "orthogonal"])
def test_noiseless_within_the_theorem_condition(config):
    """Theorems 5.1/5.2 (σ = 0): the exact set, by round R'_upper (R''_upper)."""
    env = mis_env(0.0025, "adversarial", sigma=0.0)
    c = env.unwrapped.complexity()
    alpha, beta, d = c["alpha_eps"], c["beta_eps"], 8
    kappa = math.sqrt(d) + (1 if config == "ols" else 2)  # corrected Thm 5.1 / Thm 5.2
    assert 0.0025 < min(alpha, beta) / (2 * kappa)  # the theorem's condition holds
    agent = LinFACTMIS(**MIS_CONFIGS[config])
    record = run_episode(env, agent, 0)
    assert record.correct and record.stop_reason == "stopped"
    bound = max(math.ceil(math.log2(4 / (g - 2 * 0.0025 * kappa))) for g in (alpha, beta))
    assert len(agent.phase_history) <= bound


@pytest.mark.parametrize("lipschitz", [False, True])
def test_noiseless_glm_returns_g_eps_by_r_upper(lipschitz):
    """Theorem 6.1 in the noiseless limit: exact sums, the MLE is θ, stop by R_upper."""
    x, theta = adaptive_instance(6, 2, 1.0, 0.5)
    model = ExactLogistic(x, theta)
    eps = float(expit(1.5) - expit(1.0))
    env = PureExplorationEnv(model, AllEpsilonGood(eps, hints={"predictor_bound": 1.5}), delta=0.05)
    agent = LinFACTGLM(lipschitz_radius=lipschitz)
    record = run_episode(env, agent, 0)
    assert record.correct and record.stop_reason == "stopped"
    rounds = [p for p in agent.phase_history if p["round"] > 0]
    assert len(rounds) <= eps_good_gaps(model.means[:, 0], eps).r_upper
    assert all(p["mle_converged"] for p in rounds)
    # the last round's MLE recovers the active arms' linear predictors (the other directions
    # are not sampled any more: the ridge keeps them at 0)
    active = rounds[-1]["active"]
    np.testing.assert_allclose(
        agent._z[active] @ agent._theta_hat, (x @ theta)[active], atol=1e-4
    )  # the ridge's bias λθ/(n·σ̇) with one pull per arm


# ----------------------------------------------------------------- batch ≡ single


@pytest.mark.parametrize("config, L_m", [("orthogonal", 0.0025), ("when_cheaper", 0.1)])
def test_noiseless_batch_equals_single(config, L_m):
    env = mis_env(L_m, "adversarial", sigma=0.0)
    a = run_episode(env, LinFACTMIS(**MIS_CONFIGS[config]), 0, batch=False)
    b = run_episode(env, LinFACTMIS(**MIS_CONFIGS[config]), 0, batch=True)
    assert records_equal(a, b)
    x, theta = adaptive_instance(6, 2, 1.0, 0.5)
    exact = PureExplorationEnv(
        ExactLogistic(x, theta), AllEpsilonGood(0.1, hints={"predictor_bound": 1.5}), delta=0.05
    )
    assert records_equal(
        run_episode(exact, LinFACTGLM(c_min=0.2), 0, batch=False),
        run_episode(exact, LinFACTGLM(c_min=0.2), 0, batch=True),
    )


def test_glm_logistic_path_is_deterministic_resets_and_pickles():
    """check_agent's probes are linear (identity link); the logistic path gets the same rules."""
    import pickle

    env = gym.make("LogisticEpsGood-Adaptive-v0", d=6, m_tilde=2, x_tilde=1.0, epsilon=0.5)
    fresh = [run_episode(env, LinFACTGLM(), 7) for _ in range(2)]
    assert records_equal(*fresh)
    used = LinFACTGLM()
    run_episode(env, used, 3)
    assert records_equal(run_episode(env, used, 7), fresh[0])
    clone = pickle.loads(pickle.dumps(LinFACTGLM(lipschitz_radius=True)))
    assert records_equal(
        run_episode(env, clone, 5), run_episode(env, LinFACTGLM(lipschitz_radius=True), 5)
    )


def test_glm_batch_and_single_paths_agree_in_distribution():
    from scipy import stats

    env = gym.make("LogisticEpsGood-Custom-v0", means=[0.9, 0.5, 0.1], epsilon=0.2)
    agent = LinFACTGLM(c_min=0.25, lipschitz_radius=True)  # small counts: a fast single path
    single = [run_episode(env, agent.clone(), s, batch=False) for s in range(25)]
    batch = [run_episode(env, agent.clone(), 100 + s, batch=True) for s in range(25)]
    xs, ys = [r.samples for r in single], [r.samples for r in batch]
    assert stats.ks_2samp(xs, ys).pvalue > 1e-3
    assert all(r.stop_reason == "stopped" for r in single + batch)
    assert abs(sum(r.correct for r in single) - sum(r.correct for r in batch)) <= 5


# ----------------------------------------------------------------- clean events, δ-correctness


def _clean_event_misses(env, agent_cls, kwargs, seeds):
    """Runs in which some round's estimate of an active arm misses by more than its radius."""
    means = env.unwrapped.model.means[:, 0]
    misses = 0
    for seed in seeds:
        agent = agent_cls(**kwargs)
        run_episode(env, agent, seed)
        for p in agent.phase_history:
            if p["round"] == 0:
                continue
            err = np.abs(np.asarray(p["means"]) - means[p["active"]])
            if err.max() > p["radius"]:
                misses += 1
                break
    return misses


@pytest.mark.parametrize("config", ["ols", "orthogonal"])
# L_m = 0.02 is far outside Theorem 5.1's condition: the paper's rounds run to the cap (only
# their phases are inspected here), which run_episode rightly reports as runaways.
@pytest.mark.filterwarnings("ignore::bandit_envs.RunawayEpisodeWarning")
def test_clean_event_holds_under_misspecification(config):
    """EC.8.1 / EC.9.9 at δ = 0.5: |μ̂_i − μ_i| ≤ radius in every round, except in ≤ δ of runs.

    The adversarial deviation biases OLS; with Proposition 5.4's radius as printed
    (``paper_radius=True``, ``ε_r + L_m√d``, which leaves out the arm's own deviation) or without
    inflation the event fails in (nearly) every run: measured 54 and 60 of 60 misses, against
    0 with the corrected radius ``ε_r + L_m(√d + 1)`` and with the orthogonal estimator."""
    env = mis_env(0.02, "adversarial", delta=0.5, max_samples=10**8)
    misses = _clean_event_misses(env, LinFACTMIS, MIS_CONFIGS[config], range(60))
    assert misses <= 30 + 12
    paper = {"use_features": "always"}
    if config == "ols":
        for broken in ({"paper_radius": True, **paper}, {"inflate": False, **paper}):
            assert _clean_event_misses(env, LinFACTMIS, broken, range(60)) > 45


def test_clean_event_holds_for_the_glm():
    """EC.11.7 at δ = 0.5, on the mean scale with the paper's radius ε_r."""
    env = gym.make(
        "LogisticEpsGood-Adaptive-v0", d=6, m_tilde=2, x_tilde=1.0, epsilon=0.5, delta=0.5
    )
    assert _clean_event_misses(env, LinFACTGLM, {"lipschitz_radius": True}, range(40)) <= 20 + 9


@pytest.mark.parametrize("config", ["ols", "orthogonal", "never", "when_cheaper"])
def test_delta_correct_within_the_condition_fast(config):
    """Theorems 5.1/5.2 (δ = 0.2, 100 runs): at most δ·n + 3 sd errors; all runs stop."""
    env = mis_env(0.0025, "adversarial", delta=0.2, m=4)
    records = [run_episode(env, LinFACTMIS(**MIS_CONFIGS[config]), s) for s in range(100)]
    assert all(r.stop_reason == "stopped" for r in records)
    assert sum(not r.correct for r in records) <= 20 + 12


def test_glm_delta_correct_fast():
    env = gym.make(
        "LogisticEpsGood-Adaptive-v0", d=6, m_tilde=2, x_tilde=1.0, epsilon=0.5, delta=0.2
    )
    records = [run_episode(env, LinFACTGLM(lipschitz_radius=True), s) for s in range(60)]
    assert all(r.stop_reason == "stopped" for r in records)
    assert sum(not r.correct for r in records) <= 12 + 9


@pytest.mark.slow
@pytest.mark.parametrize("config", ["ols", "orthogonal", "never", "when_cheaper"])
# the paper's rounds near the edge of Theorem 5.1's condition stop, but some runs pass 1000 x
# T*log(1/delta) first (about 1,150x measured), which run_episode reports as a possible runaway
@pytest.mark.filterwarnings("ignore::bandit_envs.RunawayEpisodeWarning")
def test_delta_correct_within_the_condition_slow(config):
    """1000 runs at δ = 0.1 on the study's instance (random deviation, L_m = 0.0025)."""
    env = mis_env(0.0025, "random", delta=0.1)
    records = [run_episode(env, LinFACTMIS(**MIS_CONFIGS[config]), s) for s in range(1000)]
    assert all(r.stop_reason == "stopped" for r in records)
    assert sum(not r.correct for r in records) <= 100 + 28


@pytest.mark.slow
@pytest.mark.parametrize("lipschitz", [False, True])
# the logistic instance has no lower bound to compare with, so the warning comes at 10^7 samples,
# which LinFACT-GLM's c_min^-2 counts pass here (1.5e7-2.9e7 measured) before they stop
@pytest.mark.filterwarnings("ignore::bandit_envs.RunawayEpisodeWarning")
def test_glm_delta_correct_slow(lipschitz):
    """500 runs at δ = 0.1 on the study's logistic instance."""
    env = gym.make(
        "LogisticEpsGood-Adaptive-v0",
        d=8,
        m=8,
        m_tilde=3,
        x_tilde=1.0,
        delta=0.1,
        max_samples=10**10,
    )
    records = [run_episode(env, LinFACTGLM(lipschitz_radius=lipschitz), s) for s in range(500)]
    assert all(r.stop_reason == "stopped" for r in records)
    assert sum(not r.correct for r in records) <= 50 + 20
