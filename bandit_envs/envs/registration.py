"""The environment ids of the suite, registered with Gymnasium on ``import bandit_envs``.

Ids read ``<Structure><Task>-<Instance>-v<k>`` (DESIGN §2.5). Entry points are strings, so
registering imports nothing heavy; ``gym.make("bandit_envs:<id>")`` imports this package first.
"""

from __future__ import annotations

import dataclasses

import gymnasium as gym


@dataclasses.dataclass(frozen=True)
class EnvEntry:
    """A catalogue entry: the id, its factory, and what it reproduces."""

    id: str
    entry_point: str
    family: str
    task: str
    summary: str
    source: str
    #: real data sets the id reads (names in :data:`bandit_envs.data.datasets.DATASETS`).
    datasets: tuple[str, ...] = ()


ENVS: tuple[EnvEntry, ...] = (
    EnvEntry(
        id="LinearBAI-Soare-v0",
        entry_point="bandit_envs.envs.linear_best_arm:make_soare",
        family="linear best arm",
        task="best_arm",
        summary="e1..e_d plus an arm at angle omega from e1; theta = scale*e1 (keywords d, omega, "
        "scale, sigma; defaults d=2, omega=0.1, scale=2, sigma=1, delta=0.05)",
        source="Soare, Lazaric, Munos 2014, Sec. 6 (spec 001 §4.1)",
    ),
    EnvEntry(
        id="LinearBAI-Basis-v0",
        entry_point="bandit_envs.envs.linear_best_arm:make_basis",
        family="linear best arm",
        task="best_arm",
        summary="arms e1..e_d, theta = (gap, 0, ...) (keywords d, gap, sigma; defaults d=5, "
        "gap=0.2, sigma=1, delta=0.1)",
        source="Zaki, Mohan, Gopalan (PELEG), setting 1 (spec 003 §5.2)",
    ),
    EnvEntry(
        id="LinearBAI-Sphere-v0",
        entry_point="bandit_envs.envs.linear_best_arm:make_sphere",
        family="linear best arm",
        task="best_arm",
        summary="n_arms arms uniform on the sphere of R^d, theta = u + gamma (v - u) for the two "
        "closest arms (keywords n_arms, d, gamma, sigma, instance_seed; defaults 100, 10, 0.01, "
        "1, 0; delta=0.1)",
        source="Tao, Blanco, Zhou 2018 via PELEG setting 2 (spec 003 §5.3)",
    ),
    EnvEntry(
        id="LinearBAI-Custom-v0",
        entry_point="bandit_envs.envs.linear_best_arm:make_custom",
        family="linear best arm",
        task="best_arm",
        summary="your own features (KxH), theta and sigma; delta= or budget=",
        source="-",
    ),
    EnvEntry(
        id="LinearPSI-NoC-v0",
        entry_point="bandit_envs.envs.pareto_set:make_noc",
        family="multi-output Pareto set",
        task="pareto_set",
        summary="K=259 Network-on-Chip designs, h=4, d=2; row-normalised features, least-squares "
        "Theta, both objectives negated (keywords sigma, cov, epsilon; defaults sigma=0.5, "
        "delta=0.1; needs the NoC data: BANDIT_ENVS_DATA or download)",
        source="Almer, Topham, Franke 2011 via Kone, Kaufmann, Richert (GEGE), Sec. 5 "
        "(spec 000 §5.3)",
        datasets=("noc",),
    ),
    EnvEntry(
        id="LinearPSI-Energy-v0",
        entry_point="bandit_envs.envs.pareto_set:make_energy",
        family="multi-output Pareto set",
        task="pareto_set",
        summary="K=768 buildings, h=8 (rank 7), d=2 loads negated; means='linear' (least "
        "squares) or 'raw' (misspecified) (keywords means, sigma, cov, epsilon; defaults "
        "'linear', sigma=0.5, delta=0.1; needs the UCI data)",
        source="Tsanas & Xifara 2012 (UCI Energy efficiency) via Kone et al., App. I.2 "
        "(spec 000 §5.4)",
        datasets=("energy",),
    ),
    EnvEntry(
        id="LinearPSI-Synthetic-v0",
        entry_point="bandit_envs.envs.pareto_set:make_synthetic",
        family="multi-output Pareto set",
        task="pareto_set",
        summary="h=8, d=2; arms e1..e8 with fixed means plus K-8 rejection-sampled arms, so "
        "H1,lin and H2,lin do not depend on K (keywords K, sigma, instance_seed, cov, epsilon; "
        "defaults K=100, sigma=0.5, instance_seed=0, delta=0.1)",
        source="Kone, Kaufmann, Richert (GEGE), Sec. 5, Fig. 1-2 (spec 000 §5.2)",
    ),
    EnvEntry(
        id="LinearPSI-Custom-v0",
        entry_point="bandit_envs.envs.pareto_set:make_custom",
        family="multi-output Pareto set",
        task="pareto_set",
        summary="your own features (KxH) and theta (Hxd), or means (Kxd) alone (identity "
        "features: unstructured), or features with means (misspecified); sigma or cov, "
        "epsilon; delta= or budget=",
        source="-",
    ),
    EnvEntry(
        id="LinearEpsGood-Adaptive-v0",
        entry_point="bandit_envs.envs.all_eps_good:make_adaptive",
        family="all eps-good",
        task="all_eps_good",
        summary="e1..e_d plus 1.5m - m~ unit disturbing arms just below the threshold; m~ good "
        "arms; (m~, X~) drawn from instance_seed; the on-threshold arm fixed (paper_literal=True "
        "for the printed one, refused) (keywords d, epsilon, m, m_var, x_mean, x_std, m_tilde, "
        "x_tilde, paper_literal, sigma, instance_seed; defaults 8, 0.1, 4, 3.0, 1.0, 0.1, "
        "drawn, drawn, False, 1, 0; delta=0.05)",
        source="Li, Ma, Hua, Zhu (LinFACT), App. EC.12.1, Table 1 settings 1-6 (spec 002 §4.2)",
    ),
    EnvEntry(
        id="LinearEpsGood-Static-v0",
        entry_point="bandit_envs.envs.all_eps_good:make_static",
        family="all eps-good",
        task="all_eps_good",
        summary="arms e1..e_d, m~ of them with mean Delta, the others 0, epsilon = Delta/2; m~ "
        "drawn from instance_seed (keywords d, m, Delta, m_var, m_tilde, sigma, instance_seed; "
        "defaults 8, 4, 1.0, 3.0, drawn, 1, 0; delta=0.05)",
        source="Li, Ma, Hua, Zhu (LinFACT), App. EC.12.2, Table 1 settings 7-9, after Xu et al. "
        "2018 (spec 002 §4.3)",
    ),
    EnvEntry(
        id="LinearEpsGood-FreeWilson-v0",
        entry_point="bandit_envs.envs.all_eps_good:make_free_wilson",
        family="all eps-good",
        task="all_eps_good",
        summary="SYNTHETIC drug discovery: 960 compounds (5 sites, l = 4,5,4,3,4), 21 Free-Wilson "
        "indicator features of rank 16, random contributions from instance_seed (the paper's "
        "coefficients are not available), epsilon set so that exactly 20 compounds are good "
        "(keywords sites, n_good, scale, min_gap, sigma, instance_seed; defaults (4,5,4,3,4), "
        "20, 2.7, 0.5, 1, 0; delta=0.1)",
        source="structure of Li, Ma, Hua, Zhu (LinFACT), Sec. 7.2 / Katz et al. 1977; synthetic "
        "contributions (spec 002 §4.8)",
    ),
    EnvEntry(
        id="LinearEpsGood-Custom-v0",
        entry_point="bandit_envs.envs.all_eps_good:make_custom",
        family="all eps-good",
        task="all_eps_good",
        summary="your own features (KxH) and theta, or means alone (unstructured), or features "
        "with means (misspecified); epsilon, multiplicative, sigma; delta= or budget= (no "
        "arrays: the two-arm example of spec 002 §6, T* = 32)",
        source="-",
    ),
    EnvEntry(
        id="MisspecifiedEpsGood-Adaptive-v0",
        entry_point="bandit_envs.envs.misspecified:make_misspecified_adaptive",
        family="misspecified linear",
        task="all_eps_good",
        summary="the adaptive instance plus a deviation Delta_m in the residual space of the "
        "features, |Delta_m|_inf = L_m: random signs, or adversarial (flips the least-squares "
        "fit's answer above a flip level); L_m told in ProblemSpec.misspecification unless "
        "bound_known=False (keywords as LinearEpsGood-Adaptive-v0 plus L_m, deviation, "
        "bound_known; defaults L_m=0.01, 'random', True; delta=0.05)",
        source="misspecified model of Li, Ma, Hua, Zhu (LinFACT), Sec. 5, eq. 28-29, on the "
        "instance of App. EC.12.1 (spec 002 §1.6; the paper has no misspecified experiment)",
    ),
    EnvEntry(
        id="MisspecifiedEpsGood-Custom-v0",
        entry_point="bandit_envs.envs.misspecified:make_misspecified_custom",
        family="misspecified linear",
        task="all_eps_good",
        summary="your own features with theta and deviation, or with means; L_m (default: the "
        "arrays' deviation), bound_known, epsilon, multiplicative, sigma, task='all_eps_good' or "
        "'best_arm'; delta= or budget= (no arrays: a 3-arm example whose deviation flips the "
        "linear answer)",
        source="-",
    ),
    EnvEntry(
        id="LogisticEpsGood-Adaptive-v0",
        entry_point="bandit_envs.envs.misspecified:make_logistic_adaptive",
        family="generalized linear",
        task="all_eps_good",
        summary="Bernoulli outcomes with mean sigmoid(a.theta) on the adaptive instance's "
        "features and theta; epsilon on the predictor scale, moved to the mean scale so that "
        "G_eps is unchanged; predictor bound B published in extras (keywords d, epsilon, m, "
        "m_var, x_mean, x_std, m_tilde, x_tilde, instance_seed; defaults 8, 0.3, 4, 3.0, 1.0, "
        "0.1, drawn, drawn, 0; delta=0.05)",
        source="GLM of Li, Ma, Hua, Zhu (LinFACT), Sec. 6, eq. 36 (logistic link), on the "
        "instance of App. EC.12.1 (spec 002 §1.7; the paper has no GLM experiment)",
    ),
    EnvEntry(
        id="LogisticEpsGood-Custom-v0",
        entry_point="bandit_envs.envs.misspecified:make_logistic_custom",
        family="generalized linear",
        task="all_eps_good",
        summary="your own logistic bandit: features and theta, or probabilities alone "
        "(unstructured), or features with probabilities whose logits are linear; epsilon, "
        "predictor_bound, task='all_eps_good' or 'best_arm'; delta= or budget= (no arrays: a "
        "3-arm example)",
        source="-",
    ),
    EnvEntry(
        id="ConstrainedMixed-Table1-v0",
        entry_point="bandit_envs.envs.constrained_mixed:make_table1",
        family="constrained best mixed arm",
        task="constrained_mixed",
        summary="K=24 arms on the cost grid c1 x c2, L=2, cbar=(1,1); answer = optimal LP basis "
        "over 26 items (slacks 24, 25); fixed budget (keywords instance in D1P, D2P, D3P, D1I, "
        "D2I, D3I, sigma_r, sigma_c; defaults 'D1P', 1, 0.5; budget=40000)",
        source="Tang, Jain, Nayyar, Nuzzo 2024 (arXiv 2405.15090), App. C, Table 1 (spec 004 §4.2)",
    ),
    EnvEntry(
        id="ConstrainedMixed-Hard-v0",
        entry_point="bandit_envs.envs.constrained_mixed:make_hard",
        family="constrained best mixed arm",
        task="constrained_mixed",
        summary="L=1: arm 0 (0, 0), arm 1 (1.2, 1.2) just infeasible, K-2 clones at (0.9, 0.8) "
        "just below the optimal segment, so the Lagrangian score (SFSR-L) rejects arm 0 "
        "(reconstructed numbers 'H2r'; keywords K, sigma_r, sigma_c; defaults 16, 1, 0.5; "
        "budget=10000)",
        source="Tang, Jain, Nayyar, Nuzzo 2024, App. A (spec 004 §2.6, §4.5b)",
    ),
    EnvEntry(
        id="ConstrainedMixed-L1-v0",
        entry_point="bandit_envs.envs.constrained_mixed:make_l1",
        family="constrained best mixed arm",
        task="constrained_mixed",
        summary="K=16, L=1, cbar=1: reconstructed stand-ins for the paper's Fig. 2-3 (not its "
        "numbers): A1r (deterministic optimum), A2r, A3r (two-arm mixes), H1r (support arm just "
        "above cbar), H2r (App. A) (keywords instance, sigma_r, sigma_c; defaults 'A1r', 1, 0.5; "
        "budget=5000)",
        source="Tang, Jain, Nayyar, Nuzzo 2024, Sec. 5 (reconstructions of spec 004 §4.5b)",
    ),
    EnvEntry(
        id="ConstrainedMixed-Random-v0",
        entry_point="bandit_envs.envs.constrained_mixed:make_random",
        family="constrained best mixed arm",
        task="constrained_mixed",
        summary="L=2: the Appendix-C generator (grid costs, r = 1 / c1 / c1+c2 minus W, W "
        "permutation 'P' or i.i.d. 'I', redrawn until j support arms, +0.02 on them); L=1: "
        "the A1r/A2r recipes with K arms (not the paper's) (keywords L, family, w_mode, K, "
        "sigma_r, sigma_c, instance_seed; defaults 2, 1, 'P', 16, 1, 0.5, 0; budget=40000 "
        "(L=2) or 5000 (L=1))",
        source="Tang, Jain, Nayyar, Nuzzo 2024, App. C (spec 004 §4.2, §4.5b)",
    ),
    EnvEntry(
        id="ConstrainedMixed-Custom-v0",
        entry_point="bandit_envs.envs.constrained_mixed:make_custom",
        family="constrained best mixed arm",
        task="constrained_mixed",
        summary="your own rewards (K), costs (LxK), thresholds (L), known_arms, sigma_r, "
        "sigma_c; budget= (default 5000) or delta= (no arrays: the K=5, L=1 toy of spec 004 "
        "§6)",
        source="-",
    ),
)


def refuse_time_limit(env: gym.Env) -> gym.Env:
    """Refuse a ``gym.make(id, max_episode_steps=...)``; return ``env`` unchanged otherwise.

    Registered as each id's one additional wrapper (Gymnasium applies it after its own
    ``TimeLimit``), it wraps nothing: it only looks at the wrappers below it. A pure-exploration
    episode ends by the protocol of DESIGN §2.4: the agent's stop action, the fixed budget
    (``budget=``) or, in fixed confidence, the ``max_samples=`` safety cap, each graded. A
    ``TimeLimit`` would instead truncate the episode with no answer and no grading, silently.

    Args:
        env: the environment ``gym.make`` has built and wrapped so far.

    Raises:
        InvalidParameterError: ``env`` is wrapped in a ``TimeLimit``.

    """
    from bandit_envs.errors import InvalidParameterError

    layer = env
    while isinstance(layer, gym.Wrapper):
        if isinstance(layer, gym.wrappers.TimeLimit):
            name = getattr(env.unwrapped, "name", "this environment")
            steps = layer._max_episode_steps
            env.close()
            raise InvalidParameterError(
                f"{name}: gym.make does not take max_episode_steps (got {steps!r}): a "
                f"pure-exploration episode ends when the agent stops, or at the budget= of "
                f"fixed budget, or at the max_samples= safety cap of fixed confidence, always "
                f"graded; use budget= or max_samples= instead."
            )
        layer = layer.env
    return env


#: the wrapper spec of :func:`refuse_time_limit`, added to every id's ``EnvSpec``.
_REFUSE_TIME_LIMIT = gym.envs.registration.WrapperSpec(
    name="RefuseTimeLimit",
    entry_point="bandit_envs.envs.registration:refuse_time_limit",
    kwargs={},
)


def register_envs() -> None:
    """Register every id with Gymnasium (idempotent)."""
    for entry in ENVS:
        if entry.id not in gym.registry:
            gym.register(
                id=entry.id,
                entry_point=entry.entry_point,
                additional_wrappers=(_REFUSE_TIME_LIMIT,),
            )
