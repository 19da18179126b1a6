"""LP math of constrained best mixed arm identification, written once.

Tang, Jain, Nayyar & Nuzzo (2024), "Pure Exploration for Constrained Best Mixed Arm Identification
with a Fixed Budget" (arXiv 2405.15090). The environments (ground truth, Assumption 1, hardness) and
the agents (SFSR's intersection values, SFSR-L's reduced costs, USLP's plug-in LP) all use this
module.

**Conventions** (Tang et al. 2024, Sec. 3, eqs. (2)–(3)). ``K`` arms, ``L`` cost types,
``m = L + 1``. Items ``0 .. K-1`` are the arms; item ``K + l`` is the slack of constraint ``l``
(0-based). With rewards ``r`` (K,), costs ``c`` (L, K) and thresholds ``c̄`` (L,), the standard
form (SFLP) is::

    max μᵀx  s.t.  A x = b,  x ≥ 0,    x = (p, s) ∈ R^{K+L},
    μ = (r, 0_L),   A = [[c, I_L], [1_Kᵀ, 0_Lᵀ]] ∈ R^{m×(K+L)},   b = (c̄, 1)

(:func:`standard_form`). A *basis* is a set of ``m`` items ``J``; its basic solution is
``x_J = A_J⁻¹ b`` (Definition 1); it is *feasible* when ``A_J`` is invertible and ``x_J ≥ 0``
(degenerate BFSs, with a basic coordinate equal to 0, count as feasible); its value is
``v(J) = μ_Jᵀ A_J⁻¹ b``. The answer of the problem is the optimal basis ``I*``, the support of
the optimum under Assumption 1 (Sec. 4.1; Remark 3: the support arms and the slacks of the
non-binding constraints).

**Hot path for agents.** :func:`scan_bases` solves every basis of a set of alive items at once
(explicit Cramer formulas for ``m ≤ 3``, stacked LU otherwise), with no Python loop over bases
(a Table-1 instance of App. C, K = 24, L = 2, has up to 2600 bases per round). From one scan,
:func:`intersection_values` gives the IV scores (eq. (6)), :meth:`BasisScan.best` the empirical
optimal basis (USLP, and SFSR's final answer), and :func:`basis_multipliers` /
:func:`reduced_costs` the SFSR-L scores (eq. (8)). Agents keep ``μ̂`` and ``Â`` as arrays from
:func:`standard_form` and overwrite ``mu[:K]`` and ``A[:L, :K]`` in place with their running means
(known arms keep their true values: the empirical ``μ̂``, ``Â`` of eqs. (4)–(5)).

**Ground truth and hardness.** :func:`solve_lp` and :func:`lp_dual` call HiGHS;
:func:`optimal_basis` checks Assumption 1 and refuses instances that violate it;
:func:`hardness` computes ``Δ0²``, the arm gaps ``Δ_a²`` and ``Δ_(L+2)²`` of Sec. 4.1,
eqs. (9)–(11).
"""

from __future__ import annotations

from bandit_envs.theory.lp._bases import (
    FEASIBILITY_TOL,
    SINGULAR_TOL,
    SUPPORT_TOL,
    BasisScan,
    bases_within,
    basis_table,
    best_basis,
    intersection_values,
    scan_bases,
    second_best_value,
    solve_bases,
    split_answer,
    standard_form,
)
from bandit_envs.theory.lp._duals import (
    LPSolution,
    OptimalBasis,
    basis_multipliers,
    lagrangian_scores,
    lp_dual,
    mixing_weights,
    optimal_basis,
    reduced_costs,
    solve_lp,
)
from bandit_envs.theory.lp._hardness import (
    MAX_HARDNESS_BASES,
    Hardness,
    hardness,
)

__all__ = [
    "FEASIBILITY_TOL",
    "MAX_HARDNESS_BASES",
    "SINGULAR_TOL",
    "SUPPORT_TOL",
    "BasisScan",
    "Hardness",
    "LPSolution",
    "OptimalBasis",
    "basis_multipliers",
    "basis_table",
    "bases_within",
    "best_basis",
    "hardness",
    "intersection_values",
    "lagrangian_scores",
    "lp_dual",
    "mixing_weights",
    "optimal_basis",
    "reduced_costs",
    "scan_bases",
    "second_best_value",
    "solve_bases",
    "solve_lp",
    "split_answer",
    "standard_form",
]
