"""Pareto dominance, PSI gaps and complexities, and APE's stopping rule, shared by envs and agents.

The definitions of Kone, Kaufmann & Richert, "Bandit Pareto Set Identification in a Multi-Output
Linear Model" (the GEGE paper), Sec. 2: the Pareto set, margins, PSI gaps and complexities
(:mod:`~bandit_envs.theory.pareto._dominance`); and the stopping rule and confidence widths of
their APE algorithm (NeurIPS 2023, :mod:`~bandit_envs.theory.pareto._ape`).
"""

from bandit_envs.theory.pareto._ape import (
    APE_THRESHOLDS,
    APEStop,
    APEWidth,
    ape_confidence,
    ape_stop,
    ape_width_terms,
)
from bandit_envs.theory.pareto._dominance import (
    BLOCK_ELEMENTS,
    PSIGaps,
    complexities,
    dominance_margins,
    empirical_gaps,
    is_eps_pareto_set,
    pareto_mask,
    pareto_set,
    psi_gaps,
)

__all__ = [
    "APE_THRESHOLDS",
    "APEStop",
    "APEWidth",
    "BLOCK_ELEMENTS",
    "PSIGaps",
    "ape_confidence",
    "ape_stop",
    "ape_width_terms",
    "complexities",
    "dominance_margins",
    "empirical_gaps",
    "is_eps_pareto_set",
    "pareto_mask",
    "pareto_set",
    "psi_gaps",
]
