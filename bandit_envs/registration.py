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
    #: real data sets the id reads (names in :data:`bandit_envs.datasets.DATASETS`).
    datasets: tuple[str, ...] = ()


ENVS: tuple[EnvEntry, ...] = (
    EnvEntry(
        id="LinearBAI-Soare-v0",
        entry_point="bandit_envs.instances.linear_bai:make_soare",
        family="linear best arm",
        task="best_arm",
        summary="e1..e_d plus an arm at angle omega from e1; theta = scale*e1 (keywords d, omega, "
        "scale, sigma; defaults d=2, omega=0.1, scale=2, sigma=1, delta=0.05)",
        source="Soare, Lazaric, Munos 2014, Sec. 6 (spec 001 §4.1)",
    ),
    EnvEntry(
        id="LinearBAI-Basis-v0",
        entry_point="bandit_envs.instances.linear_bai:make_basis",
        family="linear best arm",
        task="best_arm",
        summary="arms e1..e_d, theta = (gap, 0, ...) (keywords d, gap, sigma; defaults d=5, "
        "gap=0.2, sigma=1, delta=0.1)",
        source="Zaki, Mohan, Gopalan (PELEG), setting 1 (spec 003 §5.2)",
    ),
    EnvEntry(
        id="LinearBAI-Sphere-v0",
        entry_point="bandit_envs.instances.linear_bai:make_sphere",
        family="linear best arm",
        task="best_arm",
        summary="n_arms arms uniform on the sphere of R^d, theta = u + gamma (v - u) for the two "
        "closest arms (keywords n_arms, d, gamma, sigma, instance_seed; defaults 100, 10, 0.01, "
        "1, 0; delta=0.1)",
        source="Tao, Blanco, Zhou 2018 via PELEG setting 2 (spec 003 §5.3)",
    ),
    EnvEntry(
        id="LinearBAI-Custom-v0",
        entry_point="bandit_envs.instances.linear_bai:make_custom",
        family="linear best arm",
        task="best_arm",
        summary="your own features (KxH), theta and sigma; delta= or budget=",
        source="-",
    ),
    EnvEntry(
        id="LinearPSI-NoC-v0",
        entry_point="bandit_envs.instances.pareto:make_noc",
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
        entry_point="bandit_envs.instances.pareto:make_energy",
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
        entry_point="bandit_envs.instances.pareto:make_synthetic",
        family="multi-output Pareto set",
        task="pareto_set",
        summary="h=8, d=2; arms e1..e8 with fixed means plus K-8 rejection-sampled arms, so "
        "H1,lin and H2,lin do not depend on K (keywords K, sigma, instance_seed, cov, epsilon; "
        "defaults K=100, sigma=0.5, instance_seed=0, delta=0.1)",
        source="Kone, Kaufmann, Richert (GEGE), Sec. 5, Fig. 1-2 (spec 000 §5.2)",
    ),
    EnvEntry(
        id="LinearPSI-Custom-v0",
        entry_point="bandit_envs.instances.pareto:make_custom",
        family="multi-output Pareto set",
        task="pareto_set",
        summary="your own features (KxH) and theta (Hxd), or means (Kxd) alone (identity "
        "features: unstructured), or features with means (misspecified); sigma or cov, "
        "epsilon; delta= or budget=",
        source="-",
    ),
    EnvEntry(
        id="LinearEpsGood-Adaptive-v0",
        entry_point="bandit_envs.instances.eps_good:make_adaptive",
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
        entry_point="bandit_envs.instances.eps_good:make_static",
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
        entry_point="bandit_envs.instances.eps_good:make_free_wilson",
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
        entry_point="bandit_envs.instances.eps_good:make_custom",
        family="all eps-good",
        task="all_eps_good",
        summary="your own features (KxH) and theta, or means alone (unstructured), or features "
        "with means (misspecified); epsilon, multiplicative, sigma; delta= or budget= (no "
        "arrays: the two-arm example of spec 002 §6, T* = 32)",
        source="-",
    ),
)


def register_envs() -> None:
    """Register every id with Gymnasium (idempotent)."""
    for entry in ENVS:
        if entry.id not in gym.registry:
            gym.register(id=entry.id, entry_point=entry.entry_point)
