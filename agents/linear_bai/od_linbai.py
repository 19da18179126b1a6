"""``ODLinBAI``: optimal-design-based fixed-budget linear best-arm identification.

Yang & Tan, "Minimax Optimal Fixed-Budget Best Arm Identification in Linear Bandits",
NeurIPS 2022 (OD-LinBAI, their Algorithm 1): ⌈log₂ d⌉ phases of G-optimal sampling of the
active arms, each followed by least squares on the phase's samples and elimination down to
⌈d/2^r⌉ arms.
"""

from __future__ import annotations

import math

import numpy as np

from agents.base import AgentCard, BaseAgent
from agents.common.design_cache import DESIGNS, ols_estimator, reduced_coordinates
from agents.common.phases import PhaseTracking
from bandit_envs.core.problem import Answer, ProblemSpec
from bandit_envs.core.protocols import AgentCapabilities
from bandit_envs.errors import InvalidParameterError
from bandit_envs.theory.design import g_optimal_design, round_design
from bandit_envs.theory.linalg import projected_least_squares, reduce_features

__all__ = ["ODLinBAI", "od_linbai_schedule"]


def od_linbai_schedule(budget: int, n_arms: int, dim: int) -> tuple[list[int], list[int]]:
    """Phase budgets and survivor counts of OD-LinBAI (Yang & Tan 2022, Algorithm 1).

    With d the dimension (the rank of the arms) the algorithm runs M = ⌈log₂ d⌉ phases (one
    phase when d = 1; the paper assumes d ≥ 2); phase r keeps the ⌈d/2^r⌉ best arms, so phase 1
    goes from K arms to ⌈d/2⌉ and phase M ends with one. The paper sets
    m = (T − min(K, d(d+1)/2) − Σ_{r=1}^{M−1} ⌈d/2^r⌉) / M and pulls every active arm a
    ⌈λ_r(a)·m⌉ times in phase r; the subtracted terms pay for the ceilings (a G-optimal design
    on the K arms has a support of at most min(K, d(d+1)/2) points; phase r ≥ 2 has ⌈d/2^{r−1}⌉
    active arms). Here phase r receives T_r = ⌊m⌋ + s_r pulls (s_1 = min(K, d(d+1)/2),
    s_r = ⌈d/2^{r−1}⌉), and the T − Σ_r T_r pulls left by the floor go one each to the last
    phases, so that the budget is spent exactly.

    Args:
        budget: T.
        n_arms: K.
        dim: d, the rank of the arm features.

    Returns:
        ``(phase_budgets, survivors)``, each of length M.

    Raises:
        ValueError: if m < 1 (the budget cannot pay for the schedule).
    """
    phases = max(1, math.ceil(math.log2(dim))) if dim > 1 else 1
    slack = [min(n_arms, dim * (dim + 1) // 2)]
    slack += [math.ceil(dim / 2 ** (r - 1)) for r in range(2, phases + 1)]
    survivors = [max(1, math.ceil(dim / 2**r)) for r in range(1, phases + 1)]
    survivors[-1] = 1
    base, extra = divmod(budget - sum(slack), phases)
    if base < 1:
        raise ValueError(f"the budget {budget} leaves m = {base} < 1 pull per phase")
    budgets = [base + s + (1 if r >= phases - extra else 0) for r, s in enumerate(slack)]
    return budgets, survivors


def _g_design(z_active: np.ndarray) -> np.ndarray:
    """G-optimal design on the active arms, computed in the coordinates of their span."""
    z, _ = reduce_features(z_active)
    w = g_optimal_design(z).weights.copy()
    w.flags.writeable = False
    return w


def _phase_plan(z: np.ndarray, active: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """A phase's allocation and least-squares estimator.

    The allocation is the G-optimal design of the active arms rounded to ``n`` pulls; the
    estimator E gives the active arms' estimated means as ``E @ phase_sums``.
    """
    w_active = _g_design(z[active])
    support = np.flatnonzero(w_active > 1e-12 * w_active.sum())
    if support.size > n:  # only if the solver left a support beyond the schedule's slack
        keep = support[np.argsort(-w_active[support], kind="stable")[:n]]
        trimmed = np.zeros_like(w_active)
        trimmed[keep] = w_active[keep]
        w_active = trimmed
    alloc = np.zeros(z.shape[0], dtype=np.int64)
    alloc[active] = round_design(w_active, n)
    alloc.flags.writeable = False
    return alloc, ols_estimator(z, alloc, active)


class ODLinBAI(PhaseTracking, BaseAgent):
    """OD-LinBAI (Yang & Tan 2022, Algorithm 1): minimax-optimal fixed-budget linear BAI.

    * **Schedule** (:func:`od_linbai_schedule`): d = rank of the features, M = ⌈log₂ d⌉
      phases; phase 1 keeps ⌈d/2⌉ arms, phase r keeps ⌈d/2^r⌉, the last phase keeps one.
    * **Phase r**: project the active arms on their span (dimension d_r, the paper's
      projection step), compute their G-optimal design λ_r
      (:func:`bandit_envs.theory.design.g_optimal_design`; Kiefer–Wolfowitz: max_a ‖a‖²_{A(λ_r)⁻¹}
      = d_r), and pull the active arms by the efficient rounding of λ_r to the phase budget
      T_r (:func:`bandit_envs.theory.design.round_design`, which gives
      n_a ≥ (T_r − |supp λ_r|)λ_r(a) ≥ ⌊m⌋λ_r(a) when the support fits the schedule's slack:
      the paper's ⌈λ_r(a)·m⌉ up to
      the floor of m, with the budget spent exactly). Only active arms are sampled.
    * **Elimination**: least squares on the phase's samples only, θ̂_r = V_r⁺ Σ x y; keep the
      ⌈d/2^r⌉ active arms with the largest x_aᵀθ̂_r (ties to the lower index).
    * **Recommendation**: the last survivor (before the end: the best active arm of the last
      estimate).
    * **Batch path**: one ``select_batch`` per phase; the one-pull path pulls the same
      allocation arm by arm and uses the same phase sums, so decisions coincide.

    The schedule must leave m ≥ 1 pull per phase; smaller budgets are refused at ``reset``.
    Designs are memoised process-wide (:mod:`agents.common.design_cache`).

    Note: the design covers the active arms only (the paper's algorithm), so OD-LinBAI does not
    exploit informative arms once they are eliminated; on Soare's instance with d = 5 it loses
    to Uniform (``tests/agents/linear_bai/test_od_linbai.py`` explains and checks the predicted
    error rate).

    Attributes:
        phase_history: after each phase, a dict with ``phase``, ``active`` (arms at its start),
            ``samples`` (T_r), ``allocation`` (pulls per arm) and ``survivors``.
    """

    card = AgentCard(
        summary="Fixed budget: ceil(log2 d) phases of G-optimal sampling of the active arms, each "
        "keeping the best ceil(d/2^r) by least squares on the phase's data",
        paper="Yang & Tan, Minimax Optimal Fixed-Budget Best Arm Identification in Linear "
        "Bandits, NeurIPS 2022, Algorithm 1 (OD-LinBAI)",
    )

    capabilities = AgentCapabilities(
        tasks=frozenset({"best_arm"}),
        settings=frozenset({"fixed_budget"}),
        structures=frozenset({"linear"}),
        batch=True,
    )

    def __init__(self) -> None:
        """OD-LinBAI has no hyper-parameters (it is parameter-free, as the paper stresses)."""

    # ------------------------------------------------------------------ episode set-up

    def _on_reset(self, spec: ProblemSpec) -> None:
        k = spec.n_arms
        features = np.eye(k) if spec.features is None else np.asarray(spec.features, float)
        self._z, self._zkey = reduced_coordinates(features)
        dim = self._z.shape[1]
        try:
            self._budgets, self._survivors = od_linbai_schedule(self._require_budget(), k, dim)
        except ValueError:
            phases = max(1, math.ceil(math.log2(dim))) if dim > 1 else 1
            need = (
                min(k, dim * (dim + 1) // 2)
                + sum(math.ceil(dim / 2**r) for r in range(1, phases))
                + phases
            )
            raise InvalidParameterError(
                f"{self.name}: budget must be at least {need} for K={k} arms of rank d={dim} "
                f"(⌈log₂ d⌉ = {phases} phase(s) of at least one pull each, plus "
                f"min(K, d(d+1)/2) + Σ_{{r<{phases}}} ⌈d/2^r⌉ = {need - phases} pulls for the "
                f"rounding of the designs); got {spec.budget!r}."
            ) from None
        self._active = np.arange(k)
        self._phase = 0
        self._start_phases(k)
        self._means: np.ndarray | None = None
        self.phase_history: list[dict] = []

    # ------------------------------------------------------------------ phases

    @property
    def done(self) -> bool:
        """Whether every phase has been run (one arm survives)."""
        return hasattr(self, "_phase") and self._phase >= len(self._budgets)

    def _plan_phase(self) -> None:
        active, n = self._active, self._budgets[self._phase]
        key = ("ODLinBAI", self._zkey, active.tobytes(), n)
        self._alloc, self._estimator = DESIGNS.get(key, lambda: _phase_plan(self._z, active, n))
        self._remaining = self._alloc.copy()
        self._left = n
        self._cursor = 0
        self._pcounts = np.zeros(self.n_arms, dtype=np.int64)
        self._psums = np.zeros(self.n_arms)
        self._planned = True

    def _finish_phase(self) -> None:
        active = self._active
        if np.array_equal(self._pcounts, self._alloc):
            means = self._estimator @ self._psums
        else:  # observations outside the plan (only if a caller feeds them): solve afresh
            theta = projected_least_squares(
                self._z[active], self._pcounts[active], self._psums[active]
            )
            means = self._z[active] @ theta
        order = np.argsort(-means, kind="stable")
        kept = np.sort(active[order[: self._survivors[self._phase]]])
        self.phase_history.append(
            {
                "phase": self._phase + 1,
                "active": active.tolist(),
                "samples": self._budgets[self._phase],
                "allocation": self._alloc.tolist(),
                "survivors": kept.tolist(),
            }
        )
        self._means = np.full(self.n_arms, -np.inf)
        self._means[active] = means
        self._active = kept
        self._phase += 1
        self._planned = False

    # ------------------------------------------------------------------ protocol

    def recommend(self) -> Answer:
        """The survivor of the last phase (before that: the best active arm so far)."""
        self._require_reset("recommend")
        if self._means is None or self._active.size == 1:
            return frozenset({int(self._active[0])})
        return frozenset({int(self._active[np.argmax(self._means[self._active])])})
