"""The constrained best mixed arm instances as numbers: the paper's tables and generators.

Tang, Jain, Nayyar & Nuzzo (2024, arXiv 2405.15090): the cost grid and rewards of Appendix C,
Table 1; Appendix A's template where the Lagrangian score fails; the Appendix-C random
generator; and our own L = 1 instances and generator, which stand in for the instances of
Section 5 that the paper only draws. :mod:`bandit_envs.envs.constrained_mixed` makes
environments of them (and re-exports every public name here).
"""

from __future__ import annotations

import numpy as np

from bandit_envs.errors import InvalidInstanceError, InvalidParameterError
from bandit_envs.theory import lp

__all__ = [
    "L1_INSTANCES",
    "TABLE1",
    "TABLE1_BOLD",
    "TABLE1_C1",
    "TABLE1_C2",
    "appendix_c_instance",
    "grid_costs",
    "hard_instance",
    "l1_instance",
    "table1_instance",
]

#: Appendix C cost grid: c_1 by row, c_2 by column; arm = 4·row + column.
TABLE1_C1 = (0.4, 0.6, 0.8, 1.0, 1.2, 1.4)
TABLE1_C2 = (0.7, 0.9, 1.1, 1.3)
#: Table 1 of the paper (Appendix C), rewards by (c_1 row, c_2 column).
TABLE1: dict[str, tuple[tuple[float, ...], ...]] = {
    "D1P": (
        (0.88, 0.80, 0.82, 0.66),
        (0.72, 1.02, 0.70, 0.54),
        (0.92, 0.74, 0.94, 0.84),
        (0.76, 0.60, 0.56, 0.86),
        (0.98, 0.64, 0.68, 0.78),
        (0.62, 0.96, 0.90, 0.58),
    ),
    "D1I": (
        (0.84, 1.02, 0.74, 0.76),
        (0.84, 0.88, 0.96, 0.90),
        (0.90, 0.98, 0.92, 0.80),
        (0.98, 0.98, 0.90, 0.74),
        (0.94, 0.90, 0.88, 0.72),
        (0.78, 0.82, 0.88, 0.84),
    ),
    "D2P": (
        (0.08, 0.28, -0.02, 0.22),
        (0.20, 0.46, 0.54, 0.40),
        (0.42, 0.52, 0.80, 0.34),
        (0.92, 0.78, 0.96, 0.70),
        (0.94, 0.76, 1.10, 0.86),
        (1.42, 1.16, 1.04, 1.24),
    ),
    "D2I": (
        (0.40, 0.18, 0.28, 0.14),
        (0.44, 0.54, 0.40, 0.32),
        (0.56, 0.52, 0.68, 0.64),
        (0.84, 0.80, 0.82, 0.74),
        (0.94, 1.18, 1.02, 1.12),
        (1.42, 1.16, 1.24, 1.24),
    ),
    "D3P": (
        (1.04, 1.22, 1.28, 1.26),
        (0.98, 1.22, 1.60, 1.54),
        (1.26, 1.40, 1.88, 1.84),
        (1.72, 1.76, 1.64, 1.92),
        (1.78, 1.70, 1.96, 2.08),
        (1.94, 2.30, 2.32, 2.50),
    ),
    "D3I": (
        (0.92, 1.12, 1.32, 1.42),
        (1.14, 1.42, 1.62, 1.68),
        (1.30, 1.70, 1.68, 2.06),
        (1.46, 1.82, 2.02, 2.04),
        (1.84, 2.02, 2.12, 2.24),
        (2.06, 2.28, 2.32, 2.58),
    ),
}
#: the bold cells of Table 1 (the paper's optimal supports), as (c_1 row, c_2 column).
TABLE1_BOLD: dict[str, tuple[tuple[int, int], ...]] = {
    "D1P": ((1, 1),),
    "D1I": ((0, 1),),
    "D2P": ((2, 2), (5, 0)),
    "D2I": ((0, 0), (5, 0)),
    "D3P": ((2, 2), (3, 0), (5, 1)),
    "D3I": ((2, 1), (2, 3), (5, 1)),
}
#: draws tried by the rejection samplers before giving up.
_MAX_DRAWS = 10_000


def grid_costs() -> np.ndarray:
    """The (2, 24) costs of Appendix C, arms in row-major order of Table 1."""
    return np.vstack([np.repeat(TABLE1_C1, len(TABLE1_C2)), np.tile(TABLE1_C2, len(TABLE1_C1))])


def table1_instance(name: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rewards (24,), costs (2, 24) and thresholds ``(1, 1)`` of a Table-1 instance (Appendix C).

    Arm ``4·i + j`` has costs ``(TABLE1_C1[i], TABLE1_C2[j])`` (row-major order of the table;
    the paper does not fix an order). Optimal supports with slack ids 24, 25: D1P {5, 24, 25},
    D2P {10, 20, 25}, D3P {10, 12, 21}, D1I {1, 24, 25}, D2I {0, 20, 25}, D3I {9, 11, 21}.
    """
    if name not in TABLE1:
        raise InvalidParameterError(
            f"ConstrainedMixed-Table1-v0: instance must be one of {sorted(TABLE1)}; got {name!r}."
        )
    return np.array(TABLE1[name], dtype=np.float64).ravel(), grid_costs(), np.ones(2)


def hard_instance(k: int = 16) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Appendix A's template with the numbers of our reconstruction "H2r".

    One cost, ``c̄ = 1``: arm 0 at (cost, reward) = (0, 0) (low cost, low reward), arm 1 at
    (1.2, 1.2) (high reward, cost just above ``c̄``), arms 2..K−1 all at (0.9, 0.8) (feasible,
    just below the line through arms 0 and 1). ``I* = {0, 1}``, ``p* = (1/6, 5/6)``, value 1.
    **The numbers are a reconstruction** (the paper's figure has none).
    """
    rewards = np.full(k, 0.8)
    costs = np.full(k, 0.9)
    rewards[:2] = (0.0, 1.2)
    costs[:2] = (0.0, 1.2)
    return rewards, costs[None, :], np.ones(1)


#: (rewards, costs) of the L = 1, K = 16 reconstructions (c̄ = 1). **Not the paper's numbers**:
#: its instances A1-A3, H1-H3 are only drawn in the figures of Section 5; we built these to show
#: the behaviour the paper reports.
L1_INSTANCES: dict[str, tuple[tuple[float, ...], tuple[float, ...]]] = {
    "A1r": (
        (0.8, 1.2, 1.05, 0.6, 0.6, 1.0, 0.9, 0.9, 0.5, 0.7, 0.55, 0.85, 0.4, 0.5, 0.85, 1.0),
        (0.9, 0.6, 0.85, 0.35, 1.75, 0.55, 1.25, 0.7, 1.6, 1.25, 0.4, 1.55, 1.7, 1.65, 1.1, 0.45),
    ),
    "A2r": (
        (0.95, 0.25, 1.2, 0.7, 0.65, 1.1, 1.0, 0.45, 0.45, 0.45, 1.0, 0.85, 0.75, 1.05, 0.6, 1.3),
        (1.6, 0.65, 1.45, 1.0, 0.95, 1.75, 1.65, 0.35, 0.6, 0.5, 1.65, 1.1, 0.8, 1.55, 0.75, 1.3),
    ),
    "A3r": (
        (0.4, 0.9, 1.4, 1.0, 0.55, 0.85, 1.3, 0.65, 0.8, 1.05, 1.05, 0.55, 1.1, 0.65, 0.65, 0.55),
        (0.5, 1.7, 1.6, 1.3, 0.45, 1.35, 1.8, 1.3, 1.05, 1.35, 1.65, 0.85, 1.35, 1.2, 1.15, 0.95),
    ),
    "H1r": ((0.0, 1.05) + (0.2,) * 7 + (-1.0,) * 7, (0.0, 1.05) + (0.5,) * 7 + (1.6,) * 7),
    "H2r": ((0.0, 1.2) + (0.8,) * 14, (0.0, 1.2) + (0.9,) * 14),
}

# --------------------------------------------------------------------------------------------
# generators


def _support_arms(rewards: np.ndarray, costs: np.ndarray, cbar: np.ndarray) -> frozenset[int]:
    mu, a, b = lp.standard_form(rewards, costs, cbar)
    return frozenset(i for i in lp.solve_lp(mu, a, b).support if i < rewards.size)


def appendix_c_instance(
    family: int, w_mode: str, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
    """The Appendix-C generator of Tang et al. (2024).

    Costs: the 6 × 4 grid of Table 1 (row-major), ``c̄ = (1, 1)``. Rewards: D1 ``r = 1 − W``,
    D2 ``r = c_1 − W``, D3 ``r = c_1 + c_2 − W`` (``family`` = 1, 2, 3), with ``W`` a random
    permutation of {0, 0.02, …, 0.46} (``w_mode="P"``) or i.i.d. uniform on {0, 0.02, …, 0.28}
    (``"I"``). Redrawn until the optimal support has exactly ``family`` arms; then +0.02 on every
    support arm. Draws whose result violates Assumption 1, or whose support the +0.02 changes,
    are also redrawn (our additions; never needed by the paper's six). Values are exact
    multiples of 0.01.

    Returns:
        ``(rewards (24,), costs (2, 24), thresholds (2,), W (24,), draws)``.
    """
    costs = grid_costs()
    cents = np.rint(costs * 100).astype(np.int64)
    base = {1: np.full(24, 100), 2: cents[0], 3: cents[0] + cents[1]}[family]
    cbar = np.ones(2)
    for draw in range(1, _MAX_DRAWS + 1):
        if w_mode == "P":
            w = 2 * rng.permutation(24)
        else:
            w = 2 * rng.integers(0, 15, size=24)
        r_cents = base - w
        arms = _support_arms(r_cents / 100.0, costs, cbar)
        if len(arms) != family:
            continue
        r_cents[sorted(arms)] += 2
        rewards = r_cents / 100.0
        try:
            opt = lp.optimal_basis(rewards, costs, cbar)
        except InvalidInstanceError:
            continue
        if frozenset(i for i in opt.basis if i < 24) == arms:
            return rewards, costs, cbar, w / 100.0, draw
    raise InvalidParameterError(  # pragma: no cover - every family is reached within a few draws
        f"appendix_c_instance: no instance of family D{family}{w_mode} in {_MAX_DRAWS} draws."
    )


def l1_instance(
    k: int, family: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """An L = 1 generator: the recipes of our reconstructions A1r–A3r.

    **Not the paper's** (its L = 1 instances are not recoverable). Costs ``U[0.2, 1.8]``,
    ``c̄ = 1``, both costs and rewards rounded to multiples of 0.05.

    * ``family=1`` (deterministic optimum, as A1r): ``r = 1 − 0.8(c − 0.85)² + U(−0.3, 0.3)``;
      kept when the optimal support is one arm and the margin (optimal value minus the best other
      feasible basis) is ≥ 0.05.
    * ``family=2`` (strict mix of two arms, as A2r/A3r): ``r = 0.2 + 0.6c + U(−0.35, 0.35)``; kept
      when the support is two arms and the margin is ≥ 0.04.

    Draws violating Assumption 1 are redrawn.

    Returns:
        ``(rewards (K,), costs (1, K), thresholds (1,), draws)``.
    """
    cbar = np.ones(1)
    need = 0.05 if family == 1 else 0.04
    for draw in range(1, _MAX_DRAWS + 1):
        c = np.rint(rng.uniform(0.2, 1.8, size=k) * 20) / 20
        if family == 1:
            raw = 1.0 - 0.8 * (c - 0.85) ** 2 + rng.uniform(-0.3, 0.3, size=k)
        else:
            raw = 0.2 + 0.6 * c + rng.uniform(-0.35, 0.35, size=k)
        r = np.rint(raw * 20) / 20
        costs = c[None, :]
        try:
            opt = lp.optimal_basis(r, costs, cbar)
        except InvalidInstanceError:
            continue
        arms = [i for i in opt.basis if i < k]
        if len(arms) != family:
            continue
        mu, a, b = lp.standard_form(r, costs, cbar)
        if opt.value - lp.second_best_value(mu, a, b, opt.basis) >= need - 1e-12:
            return r, costs, cbar, draw
    raise InvalidParameterError(
        f"l1_instance: no instance of family {family} with K = {k} in {_MAX_DRAWS} draws: with "
        f"means rounded to 0.05, many arms make near-ties with the optimum likely, so the margin "
        f"of at least {need} is rarely met; for more arms, give your own "
        f"instance to ConstrainedMixed-Custom-v0."
    )
