"""``LinFACT``: identify all ε-good arms of a linear bandit (Li, Ma, Hua & Zhu, 2025).

"Identifying All ε-Best Arms in (Misspecified) Linear Bandits" (arXiv 2510.00073), Sec. 4.1:
Algorithm 1 (G-optimal sampling, eq. 21), Algorithm 2 (XY-optimal sampling, eq. 22), the
round's least squares (eq. 24–25), Algorithm 3 (stopping and decision rule) and Algorithm 4
(LinFACT). The docstrings below say where the paper leaves a choice open and what is used. Two
agents share one skeleton (Algorithm 4):

* :class:`LinFACTG` samples each round by the G-optimal design of the active arms (Algorithm 1,
  eq. 21);
* :class:`LinFACTXY` by the XY-optimal design over the differences of the active arms
  (Algorithm 2, eq. 22).

Task: return exactly ``G_ε = {i : μ_i ≥ max_j μ_j − ε}`` (additive ε; the task ``all_eps_good``).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from agents.base import AgentCard, BaseAgent
from agents.common.design_cache import (
    DESIGNS,
    leverages,
    ols_estimator,
    reduced_coordinates,
    xy_value,
)
from agents.common.params import Boolean, Real
from agents.common.phases import PhaseTracking
from bandit_envs.core.problem import Answer, ProblemSpec
from bandit_envs.core.protocols import AgentCapabilities
from bandit_envs.errors import InvalidParameterError
from bandit_envs.theory.design import (
    g_optimal_design,
    pairwise_differences,
    round_design,
    transductive_design,
)

__all__ = ["GOptimalRounds", "LinFACTBase", "LinFACTG", "LinFACTXY", "ceil_counts", "classify"]

#: design weights at or below this (relative to their sum) are outside the support, so that a
#: weight of 1e-15 does not cost a pull through ⌈·⌉ in eq. 21; the same threshold as
#: :func:`bandit_envs.theory.design.round_design`.
SUPPORT_TOL = 1e-12

#: the constraint of every LinFACT agent's ``design_tol`` (a relative tolerance of the solver).
DESIGN_TOL = Real(gt=0, lt=1)

#: cap on the pulls of one arm in one round: keeps int64 counts far from overflowing (a round
#: that large is cut short by the environment's ``max_samples`` anyway).
MAX_ARM_SAMPLES = 2**50


def classify(
    means: np.ndarray, in_good: np.ndarray, radius: float, epsilon: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Algorithm 3 (stopping and decision rule) on the active arms of one round.

    With ``M = max_i μ̂_i`` over the active arms, computed once before the loop (the paper does
    not say whether M changes during the loop; the analysis needs it fixed),
    ``U_r = M + C − ε`` and ``L_r = M − C − ε`` (Alg. 3 lines 2–3), arm ``i`` is

    * declared bad and eliminated if ``μ̂_i + C < L_r`` (lines 5–6);
    * declared good if ``μ̂_i − C > U_r`` (lines 7–8) — it stays active;
    * retired (eliminated, staying good) if it is good and ``μ̂_i + C ≤ M − C`` (lines 9–10):
      it is provably not the best arm, so it is no longer needed to estimate ``μ_1 − ε``.

    The loop of Algorithm 3 is order-independent (``M`` is fixed), so it is evaluated for all
    arms at once. Guard (ours; the paper does not need it on its clean event): an arm already
    good is never declared bad (``G ∩ B = ∅``); off the clean event such an arm fails the retire
    test, so it is retired. The rule depends only on the differences ``M − μ̂_i``, which is why
    the XY design's guarantee on differences suffices.

    Args:
        means: ``μ̂_i`` of the active arms, shape (n,).
        in_good: whether each active arm is already in ``G`` (before this round), shape (n,).
        radius: the confidence radius ``C = C_{δ/K}(r) = ε_r = 2^{-r}``.
        epsilon: the task's ε.

    Returns:
        ``(bad, new_good, remove)`` boolean masks over the active arms: newly bad arms, newly
        good arms, and arms leaving the active set (bad or retired).
    """
    mu = np.asarray(means, dtype=np.float64)
    top = float(mu.max())
    upper = top + radius - epsilon
    lower = top - radius - epsilon
    good_before = np.asarray(in_good, dtype=bool)
    bad = (mu + radius < lower) & ~good_before
    new_good = (mu - radius > upper) & ~good_before & ~bad
    good = good_before | new_good
    retire = good & (mu + radius <= top - radius)
    return bad, new_good, bad | retire


def ceil_counts(values: np.ndarray) -> np.ndarray:
    """``⌈x⌉`` as int64, blind to a relative round-off of 1e-12 above an integer.

    ``π(a)·T`` with ``π(a) = 1/8`` and ``T = 8k`` can come out as ``k + 4e-15``; the round-off of
    the design weights must not cost a pull (the guarantee then holds up to that round-off,
    far below the design solver's own tolerance).
    """
    x = np.asarray(values, dtype=np.float64)
    return np.ceil(x - 1e-12 * np.maximum(x, 1.0)).astype(np.int64)


def _prune(weights: np.ndarray, value: Callable[[np.ndarray], float]) -> tuple[np.ndarray, float]:
    """Drop weights ≤ SUPPORT_TOL·Σw and renormalise, unless that loses a direction.

    ``value(w)`` is the design criterion computed exactly (``inf`` when ``A(w)`` misses a needed
    direction). Returns the (read-only) weights used and their exact value.
    """
    w = np.asarray(weights, dtype=np.float64).copy()
    w /= w.sum()
    pruned = np.where(w > SUPPORT_TOL, w, 0.0)
    pruned /= pruned.sum()
    val = value(pruned)
    if not math.isfinite(val):  # pruning lost a direction: keep the tiny weights (≤ 1 pull each)
        pruned, val = w, value(w)
    pruned.flags.writeable = False
    return pruned, float(val)


def _g_design(za: np.ndarray, tol: float) -> tuple[np.ndarray, float, int]:
    """G-optimal design on the active arms (eq. 13): weights, exact value, rank ``d_r``.

    The value ``max_a ‖a‖²_{V(π)⁻¹}`` is recomputed exactly at the returned weights (Kiefer–
    Wolfowitz, the paper's Proposition 2.3: it is ``d_r`` at the optimum). Rank 0 (every active
    arm is the zero vector, their means are known to be 0): uniform weights, value 0.
    """
    n = za.shape[0]
    if not np.any(za):
        w = np.full(n, 1.0 / n)
        w.flags.writeable = False
        return w, 0.0, 0
    result = g_optimal_design(za, tol=tol)
    w, val = _prune(result.weights, lambda v: float(leverages(za, v).max()))
    return w, val, int(round(result.lower_bound))


def _xy_design(za: np.ndarray, tol: float) -> tuple[np.ndarray, float, int]:
    """XY-optimal design on the active arms (eq. 14–15): weights, exact ``g_XY``, rank ``d_r``.

    ``π_r ∈ P(A(r−1))`` minimises ``max_{y ∈ 𝒴(A(r−1))} ‖y‖²_{V(π)⁻¹}`` over the differences of
    the active arms (:func:`bandit_envs.theory.design.transductive_design`); ``g_XY`` is evaluated
    exactly at the weights that are rounded. Needs at least two active arms.
    """
    targets = pairwise_differences(za)
    rank = int(np.linalg.matrix_rank(za)) if np.any(za) else 0
    if rank == 0:
        w = np.full(za.shape[0], 1.0 / za.shape[0])
        w.flags.writeable = False
        return w, 0.0, 0
    result = transductive_design(za, targets, tol=tol)
    w, val = _prune(result.weights, lambda v: xy_value(za, v, targets))
    return w, val, rank


class LinFACTBase(PhaseTracking, BaseAgent):
    """The skeleton shared by the LinFACT agents (Algorithm 4).

    Rounds r = 1, 2, … with radius ε_r = 2^{-r}: project the active arms on their span, design,
    pull every active arm its count of fresh samples (the allocation is fixed within a round,
    and data are not reused across rounds: the fixed-design concentration needs both), least
    squares on the round's data, then Algorithm 3. ``K`` in the log terms is the total number of
    arms, not the active count.

    Subclasses provide ``_design_key`` / ``_design`` (the round's design on the active arms) and
    ``_counts`` (per-arm pulls of the round from the design). The round machinery has hooks for
    the variants of :mod:`agents.eps_good.linfact_robust` (LinFACT-MIS, LinFACT-GLM):
    ``_allocate`` (the round's pulls), ``_prepare_estimator`` / ``_estimate_means`` (the round's
    estimate of the active arms' means, by default projected least squares), ``_partial_means``
    (the anytime
    estimate from an unfinished round) and ``_radius`` (the confidence radius of Algorithm 3).

    Structures: LinFACT-G and LinFACT-XY assume a linear model but also *run* on misspecified
    linear problems (``"misspecified_linear"``): Theorem 5.1 analyses exactly
    this — plain LinFACT-G under misspecification is δ-correct when ``L_m < min(α_ε, β_ε)/(2√d)``,
    and can fail beyond — and the robustness study (``docs/reproductions/linfact.md``)
    measures it. Generalized linear problems (``"glm"``) are refused: the outcomes are not
    linear-Gaussian and there is no theorem for a linear fit there; LinFACT-GLM with
    ``link="identity"`` runs the linear fit on them deliberately.
    """

    capabilities = AgentCapabilities(
        tasks=frozenset({"all_eps_good"}),
        settings=frozenset({"fixed_confidence"}),
        structures=frozenset({"linear", "misspecified_linear"}),
        batch=True,
        extras={"multiplicative": frozenset({False})},
    )

    # ------------------------------------------------------------------ episode set-up

    def _on_reset(self, spec: ProblemSpec) -> None:
        eps = spec.epsilon
        if eps is None or not math.isfinite(eps) or eps <= 0:
            raise InvalidParameterError(
                f"{self.name}: the problem must give a finite epsilon > 0; got {eps!r}."
            )
        k = spec.n_arms
        features = np.eye(k) if spec.features is None else np.asarray(spec.features, float)
        self._z, self._zkey = reduced_coordinates(features)
        self._ambient_d = int(features.shape[1])
        noise = 1.0 if spec.noise_std is None else spec.noise_std
        self._sigma2 = float(np.max(noise)) ** 2
        self._eps = float(eps)
        self._active = np.arange(k)
        self._in_good = np.zeros(k, dtype=bool)
        self._in_bad = np.zeros(k, dtype=bool)
        self._round = 0
        self._stopped = False
        self._means: np.ndarray | None = None
        self._start_phases(k)
        self.phase_history: list[dict] = []

    # ------------------------------------------------------------------ rounds

    def _design_key(self) -> tuple:
        raise NotImplementedError

    def _design(self, za: np.ndarray) -> tuple[np.ndarray, float, int]:
        raise NotImplementedError

    def _counts(
        self, r: int, weights: np.ndarray, value: float, rank: int
    ) -> tuple[np.ndarray, float]:
        """Pulls per active arm in round ``r`` and the factor used (d, d_r or g_XY)."""
        raise NotImplementedError

    def _g_counts(
        self, r: int, weights: np.ndarray, factor: float, accuracy: float | None = None
    ) -> np.ndarray:
        """Eq. 21: ``T_r(a) = ⌈2 f π_r(a) ε_r^{-2} log(2Kr(r+1)/δ)⌉``, times σ².

        The paper assumes 1-sub-Gaussian noise; the σ² factor is ours (the noise level of the
        problem).

        ``f`` is the dimension factor (``d_r``, ``d`` or the achieved design value). Arms outside
        the support get 0; arms inside at least 1 (only binding when σ = 0). ``accuracy``
        replaces ``ε_r = 2^{-r}`` (the per-arm accuracy the round buys), if given.
        """
        eps_r = 2.0 ** (-r) if accuracy is None else float(accuracy)
        log_term = math.log(2.0 * self.n_arms * r * (r + 1) / self._require_delta())
        # ε_r² floored: a noiseless run (σ = 0) that never stops reaches rounds where 4^{-r}
        # underflows; the counts are then one pull per support arm
        scale = self._sigma2 * 2.0 * factor / max(eps_r * eps_r, 1e-300) * log_term
        counts = ceil_counts(np.minimum(scale * weights, MAX_ARM_SAMPLES))
        return np.where(weights > 0, np.maximum(counts, 1), 0)

    def _plan_phase(self) -> None:
        """Project, design and allocate round ``r`` (Alg. 4 lines 5–11; Alg. 1 / Alg. 2)."""
        r = self._round + 1
        counts, info = self._allocate(r)
        self._start_round(r, counts, info)

    def _g_design_of_active(self) -> tuple[np.ndarray, float, int]:
        """The round's design on the projected active arms (memoised process-wide)."""
        active = self._active
        za = self._z[active]
        return DESIGNS.get(
            (*self._design_key(), self._zkey, active.tobytes()), lambda: self._design(za)
        )

    def _allocate(self, r: int) -> tuple[np.ndarray, dict]:
        """Pulls per active arm in round ``r`` and what the round's plan records about them."""
        weights, value, rank = self._g_design_of_active()
        counts, factor = self._counts(r, weights, value, rank)
        return counts, {"rank": rank, "design_value": value, "factor": factor}

    def _start_round(self, r: int, counts: np.ndarray, info: dict) -> None:
        """Install round ``r``'s allocation (``counts`` over the active arms) and its plan."""
        active = self._active
        total = int(counts.sum())
        alloc = np.zeros(self.n_arms, dtype=np.int64)
        alloc[active] = counts
        alloc.flags.writeable = False
        self._alloc = alloc
        self._plan = {
            "round": r,
            "active": active.tolist(),
            **info,
            "samples": total,
            "allocation": counts.tolist(),
        }
        self._prepare_estimator(alloc)
        self._remaining = alloc.copy()
        self._left = total
        self._cursor = 0
        self._pcounts = np.zeros(self.n_arms, dtype=np.int64)
        self._psums = np.zeros(self.n_arms)
        self._planned = True

    def _prepare_estimator(self, alloc: np.ndarray) -> None:
        """Precompute the round's least-squares estimator (memoised: it depends on the plan)."""
        active = self._active
        self._estimator = DESIGNS.get(
            ("LinFACT-ols", self._zkey, active.tobytes(), alloc.tobytes()),
            lambda: ols_estimator(self._z, alloc, active),
        )

    def _estimate_means(self) -> np.ndarray:
        """``μ̂`` of the active arms from this round's data: OLS (eq. 24–25)."""
        if np.array_equal(self._pcounts, self._alloc):
            return self._estimator @ self._psums
        # observations outside the plan (only if a caller feeds them): solve afresh
        return self._partial_means(self._active)

    def _partial_means(self, active: np.ndarray) -> np.ndarray:
        """``μ̂`` of ``active`` from whatever this round has observed (projected OLS)."""
        return ols_estimator(self._z, self._pcounts, active) @ self._psums

    def _radius(self, r: int) -> float:
        """The confidence radius ``C_{δ/K}(r) = ε_r = 2^{-r}`` of Algorithm 3."""
        return 2.0 ** (-r)

    def _finish_phase(self) -> None:
        """The round's estimate (OLS on this round's samples only, eq. 24–25), then Alg. 3."""
        r = self._plan["round"]
        active = self._active
        means = self._estimate_means()
        radius = self._radius(r)
        bad, new_good, remove = classify(means, self._in_good[active], radius, self._eps)
        self._in_bad[active[bad]] = True
        self._in_good[active[new_good]] = True
        retired = remove & ~bad
        self.phase_history.append(
            {
                **self._plan,
                "radius": radius,
                "means": means,
                "max_mean": float(means.max()),
                "good": active[new_good].tolist(),
                "bad": active[bad].tolist(),
                "retired": active[retired].tolist(),
                "survivors": active[~remove].tolist(),
            }
        )
        self._means = np.full(self.n_arms, -np.inf)
        self._means[active] = means
        self._active = active[~remove]
        self._round = r
        self._planned = False
        self._stopped = bool(np.all(self._in_good | self._in_bad))

    @property
    def done(self) -> bool:
        """Whether every arm is classified, ``G_r ∪ B_r = [K]`` (Alg. 3 line 11)."""
        return getattr(self, "_stopped", False)

    # ------------------------------------------------------------------ protocol

    @property
    def good(self) -> list[int]:
        """Arms classified ε-good so far (``G_r``, sorted)."""
        return np.flatnonzero(self._in_good).tolist()

    @property
    def bad(self) -> list[int]:
        """Arms classified not ε-good so far (``B_r``, sorted)."""
        return np.flatnonzero(self._in_bad).tolist()

    def recommend(self) -> Answer:
        """``G_r`` once stopped; before, ``G_r ∪ {i active : μ̂_i ≥ M − ε}``.

        The answer before stopping is ours (the paper only answers at stopping). ``μ̂`` are the last
        finished round's estimates; if no round has finished, the current round's partial data
        (projected least squares on the arms pulled so far), and with no data at all every active
        arm.
        """
        self._require_reset("recommend")
        good = self._in_good.copy()
        if not self._stopped:
            active = self._active
            if self._means is not None:
                mu = self._means[active]
            elif self._pcounts.any():
                mu = self._partial_means(active)
            else:
                mu = None
            if mu is None:
                good[active] = True
            else:
                good[active[mu >= mu.max() - self._eps]] = True
        return frozenset(int(i) for i in np.flatnonzero(good))


class GOptimalRounds(LinFACTBase):
    """LinFACT rounds sampled by the G-optimal design of the active arms (Algorithm 1, eq. 21).

    The design of LinFACT-G, shared with the variants of :mod:`agents.eps_good.linfact_robust`;
    subclasses define ``use_ambient_d`` and ``design_tol``.
    """

    use_ambient_d: bool
    design_tol: float

    def _design_key(self) -> tuple:
        return ("LinFACT-G", float(self.design_tol))

    def _design(self, za: np.ndarray) -> tuple[np.ndarray, float, int]:
        return _g_design(za, float(self.design_tol))

    def _factor(self, value: float, rank: int) -> float:
        """The ``d`` of eq. 21/33/40: ``d_r`` (or the ambient d), or the design value if larger."""
        d = float(self._ambient_d if self.use_ambient_d else rank)
        return d if value <= d * (1.0 + 1e-9) else value


class LinFACTG(GOptimalRounds):
    """LinFACT-G: G-optimal sampling (Li, Ma, Hua & Zhu 2025, Algorithms 1, 3, 4).

    Round ``r = 1, 2, …`` with confidence radius ``C_{δ/K}(r) = ε_r = 2^{-r}``:

    1. **Projection** (Alg. 4 line 7): the active arms are expressed in an orthonormal basis of
       their span, of dimension ``d_r``.
    2. **Design** (Alg. 1 line 2, eq. 13): ``π_r = argmin_π max_{a ∈ A(r−1)} ‖a‖²_{V(π)⁻¹}`` on
       the active arms (:func:`bandit_envs.theory.design.g_optimal_design`; Kiefer–Wolfowitz value
       ``d_r``).
    3. **Sampling** (Alg. 1 line 4, eq. 21): every active arm ``a`` is pulled

           T_r(a) = ⌈ 2 d π_r(a) ε_r^{-2} log(2K r(r+1)/δ) ⌉

       times (fresh samples), ``K`` the total number of arms. ``d`` is ``d_r`` by default (the
       guarantee only needs ``max_a ‖a‖²_{V(π)⁻¹}`` ≤ the factor, which is ``d_r`` after the
       projection: tighter and still valid) or the ambient dimension with
       ``use_ambient_d=True`` (the paper's text). Should the solver return a design whose exact
       value ``max_a ‖a‖²_{V(π)⁻¹}`` exceeds that ``d`` (not converged), the value is used
       instead, so that the guarantee below holds. With noise level σ ≠ 1 the counts are
       multiplied by σ² (the paper assumes σ = 1); support arms get at least one pull.
    4. **Estimation** (eq. 24–25): ``θ̂_r = V_r⁻¹ Σ_s a_{A_s} X_s`` on *this round's* samples
       only (in the active span), ``μ̂_i = a_iᵀθ̂_r`` for the active arms.
    5. **Classification** (Alg. 3, :func:`classify`); stop once ``G_r ∪ B_r = [K]`` and answer
       ``G_r``.

    **Guarantee** (Sec. 4.2 and EC.5): ``V_r ⪰ 2dε_r^{-2} log(2Kr(r+1)/δ) V(π_r)`` and
    ``‖a‖²_{V(π_r)⁻¹} ≤ d`` give ``|μ̂_i(r) − μ_i| ≤ ε_r`` with probability ≥ 1 − δ/(Kr(r+1)) per
    arm and round (Lemma EC.1); the union over ``K`` arms and ``Σ_r 1/(r(r+1)) = 1`` gives the
    clean event with probability ≥ 1 − δ, on which the answer is ``G_ε`` and the agent stops by
    round ``R_upper = max(⌈log₂(4/α_ε)⌉, ⌈log₂(4/β_ε)⌉)``.

    **Batch path**: one ``select_batch`` per round (the whole allocation); the one-pull path
    pulls the same allocation arm by arm. Both estimate from the round's sums, so decisions
    coincide at equal data. Designs and the rounds' estimators are memoised process-wide
    (:mod:`agents.common.design_cache`).

    Args:
        use_ambient_d: use the ambient dimension ``d`` (number of feature columns) in eq. 21
            instead of the dimension ``d_r`` of the active arms' span.
        design_tol: relative tolerance of the G-optimal design (stop once
            ``max_a ‖a‖²_{V(π)⁻¹} ≤ d_r(1 + design_tol)``), in (0, 1).

    Attributes:
        phase_history: one dict per finished round: ``round``, ``active`` (arms at its start),
            ``rank`` (``d_r``), ``design_value`` (exact ``max_a ‖a‖²_{V(π_r)⁻¹}``), ``factor``
            (the ``d`` used in eq. 21), ``samples`` (``T_r``), ``allocation`` (``T_r(a)`` per
            active arm), ``means`` (``μ̂`` of the active arms), ``max_mean`` (``M``), ``good``,
            ``bad``, ``retired`` (arms classified / eliminated in that round) and ``survivors``.
    """

    card = AgentCard(
        summary="All eps-good arms: rounds of G-optimal sampling of the projected active arms "
        "(eq. 21 counts), least squares on each round's fresh data, and the good/bad "
        "classification of Algorithm 3",
        paper="Li, Ma, Hua & Zhu, Identifying All eps-Best Arms in (Misspecified) Linear "
        "Bandits, arXiv 2510.00073 (2025), Algorithms 1, 3 and 4 (LinFACT-G)",
    )

    parameters = {"use_ambient_d": Boolean(), "design_tol": DESIGN_TOL}

    def __init__(self, use_ambient_d: bool = False, design_tol: float = 1e-6) -> None:
        self.use_ambient_d = use_ambient_d
        self.design_tol = design_tol

    def _counts(
        self, r: int, weights: np.ndarray, value: float, rank: int
    ) -> tuple[np.ndarray, float]:
        factor = self._factor(value, rank)
        return self._g_counts(r, weights, factor), factor


class LinFACTXY(LinFACTBase):
    """LinFACT-XY: XY-optimal sampling (Li, Ma, Hua & Zhu 2025, Algorithms 2, 3, 4).

    As :class:`LinFACTG` except for the design and the counts of a round ``r``:

    * **Design** (Alg. 2 line 2, eq. 15): ``π_r = argmin_{π ∈ P(A(r−1))} max_{y ∈ 𝒴(A(r−1))}
      ‖y‖²_{V(π)⁻¹}`` over the differences ``𝒴 = {a − a'}`` of the (projected) active arms
      (:func:`bandit_envs.theory.design.transductive_design`); ``g_XY`` is the exact value of the
      weights that are rounded.
    * **Counts** (eq. 22)::

          T_r = max{ ⌈2 g_XY (1 + ϵ) ε_r^{-2} log(2K(K−1) r(r+1)/δ)⌉ ,  q(ϵ) },
          T_r(a) = Round(π_r, T_r).

      The paper leaves ``Round``, ``ϵ`` and ``q(ϵ)`` open. Default ``rounding_slack = ϵ = 0``:
      ``Round(π, T) = ⌈π(a) T⌉`` and ``q = 0``, so ``V_r ⪰ T_r V(π_r)`` exactly (the simplest
      provably valid choice; the round overshoots ``T_r`` by less than the support size). With
      ``ϵ > 0``: Pukelsheim's efficient rounding
      (:func:`bandit_envs.theory.design.round_design`, exactly ``T_r`` pulls) and
      ``q(ϵ) = ⌈s(1 + ϵ)/ϵ⌉`` (``s`` the support size), which gives
      ``n_a ≥ (T_r − s)π(a) ≥ T_r π(a)/(1 + ϵ)``. σ² scales the counts as in :class:`LinFACTG`.
    * **Single active arm** (𝒴 empty, a case the paper does not treat): the G rule, i.e. the arm
      is pulled ``⌈2 ε_r^{-2} log(2Kr(r+1)/δ)⌉`` times.

    **Guarantee**: ``‖y‖²_{V_r⁻¹} ≤ g_XY/(T_r/(1+ϵ))`` for every active difference, so
    ``|(μ̂_j − μ̂_i) − (μ_j − μ_i)| ≤ ε_r`` with probability ≥ 1 − δ/(K(K−1)r(r+1)) per ordered
    pair and round (EC.7.2–EC.7.4); Algorithm 3, a rule on differences, needs no more (the
    event of eq. 23 even states the looser 2ε_r).

    **XY against G**: ``g_XY ≈ 2d_r`` on the instances of Sec. 7 and the log term has
    ``K(K−1)`` instead of ``K``, so LinFACT-XY takes about twice the samples of the default
    LinFACT-G, which uses the active arms' span ``d_r`` where eq. 21 prints the ambient ``d``.
    Against eq. 21 as printed (``LinFACTG(use_ambient_d=True)``) XY needs fewer samples on the
    adaptive instances and more on the static ones, the direction of the paper's Fig. 6
    (``benchmarks/bench_linfact.py`` measures both).

    Args:
        rounding_slack: the rounding slack ``ϵ ≥ 0`` of eq. 22 (0: ceil rounding).
        design_tol: relative duality-gap tolerance of the XY design solve, in (0, 1). It only
            affects sample efficiency: ``g_XY`` is the exact value of the design used.

    Attributes:
        phase_history: as :class:`LinFACTG`; ``design_value`` and ``factor`` are ``g_XY``
            (``d_r`` in a single-arm round).
    """

    card = AgentCard(
        summary="All eps-good arms: rounds of XY-optimal sampling over the differences of the "
        "active arms (eq. 22 counts, ceil rounding), least squares on each round's fresh data, "
        "and Algorithm 3",
        paper="Li, Ma, Hua & Zhu, Identifying All eps-Best Arms in (Misspecified) Linear "
        "Bandits, arXiv 2510.00073 (2025), Algorithms 2, 3 and 4 (LinFACT-XY)",
    )

    parameters = {"rounding_slack": Real(ge=0), "design_tol": DESIGN_TOL}

    def __init__(self, rounding_slack: float = 0.0, design_tol: float = 1e-3) -> None:
        self.rounding_slack = rounding_slack
        self.design_tol = design_tol

    def _design_key(self) -> tuple:
        return ("LinFACT-XY", float(self.design_tol))

    def _design(self, za: np.ndarray) -> tuple[np.ndarray, float, int]:
        if za.shape[0] == 1:  # 𝒴 is empty: the G rule (see the class docstring)
            return _g_design(za, float(self.design_tol))
        return _xy_design(za, float(self.design_tol))

    def _counts(
        self, r: int, weights: np.ndarray, value: float, rank: int
    ) -> tuple[np.ndarray, float]:
        if weights.shape[0] == 1:
            factor = float(rank)
            return self._g_counts(r, weights, factor), factor
        slack = float(self.rounding_slack)
        eps_r = 2.0 ** (-r)
        k = self.n_arms
        log_term = math.log(2.0 * k * (k - 1) * r * (r + 1) / self._require_delta())
        raw = self._sigma2 * 2.0 * value * (1.0 + slack) / eps_r**2 * log_term
        total = math.ceil(min(raw, MAX_ARM_SAMPLES))
        support = weights > 0
        if slack > 0:
            q = math.ceil(int(support.sum()) * (1.0 + slack) / slack)
            counts = round_design(weights, max(total, q, int(support.sum())), support_tol=0.0)
        else:
            counts = np.where(support, np.maximum(ceil_counts(weights * total), 1), 0)
        return counts, value
