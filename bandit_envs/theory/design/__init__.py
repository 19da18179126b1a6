"""Optimal experimental designs over a finite set of arms, and their rounding.

A *design* is a probability vector ``w`` over the ``K`` arms; its information matrix is
``A(w) = Σ_k w_k x_k x_kᵀ`` (the ``Λ_λ`` of Soare, Lazaric & Munos 2014, Sec. 2). This package
computes

* G-optimal designs ``min_w max_k x_kᵀA(w)⁻¹x_k`` (:func:`g_optimal_design`; the G-allocation of
  Soare et al. 2014, eq. (12) and (21));
* transductive designs ``min_w max_j c_j‖y_j‖²_{A(w)⁻¹}`` with a certified duality gap
  (:func:`transductive_design`; the oracle allocation of eq. (5)–(6) and the XY-allocation of
  eq. (14) and (25));
* XY designs on all pairwise differences, or on those of a subset of the arms, and their exact
  value, without storing the pairs (:func:`xy_design`, :func:`xy_pair_value`);
* the efficient rounding of a design to integer pulls (:func:`round_design`; Pukelsheim 2006,
  ch. 12, as used in Soare et al. 2014, App. C).

All solvers work in the coordinates of an orthonormal basis of the span of the arms
(:func:`bandit_envs.theory.linalg.reduce_features`), so features that do not span ``R^h`` are
fine: the criteria are then those of projected least squares, and "rank" replaces "dimension" in
Kiefer–Wolfowitz. Which solver runs when, and why, is explained in ``docs/design.md`` (section
"Optimal designs and rounding"); the solvers live in private modules of this package.
"""

from __future__ import annotations

from bandit_envs.theory.design._common import DesignResult
from bandit_envs.theory.design._g_optimal import g_optimal_design
from bandit_envs.theory.design._rounding import round_design
from bandit_envs.theory.design._slsqp import POLISH_MAX_ARMS
from bandit_envs.theory.design._transductive import transductive_design
from bandit_envs.theory.design._xy import (
    XY_DENSE_MAX_PAIRS,
    pairwise_differences,
    xy_design,
    xy_pair_value,
)

__all__ = [
    "POLISH_MAX_ARMS",
    "XY_DENSE_MAX_PAIRS",
    "DesignResult",
    "g_optimal_design",
    "transductive_design",
    "xy_design",
    "xy_pair_value",
    "round_design",
    "pairwise_differences",
]
