"""``LazyTTS``: Track-and-Stop for the linear thresholding bandit, with lazy allocation updates.

Rivera & Tewari (2024), "Optimal Thresholding Linear Bandit" (arXiv 2402.09467): find every arm
whose mean is at least a threshold τ, with fixed confidence, by the Track-and-Stop recipe of
Jedra & Proutière (2020) — least squares, forced exploration, tracking of the optimal allocation
recomputed *lazily*, and GLR stopping. Li, Ma, Hua & Zhu (2025, Sec. 7) use it as a baseline for
all ε-good arms with the threshold set to the expected value of the instances' threshold
(τ = E[X̃]).

The machinery (estimation with Sherman–Morrison updates, forcing, C/D-tracking, the lazy
recomputation schedule, the stopping thresholds β) is that of
:class:`agents.linear_bai.track_and_stop.LinearTrackAndStop`; this module supplies the thresholding
allocation, the thresholding GLR statistic and, when no threshold is given, the all-ε-good GLR
statistic (the GLR of Li et al.'s pure-exploration framework, EC.2, for their Theorem 3.2's
alternatives).
"""

from __future__ import annotations

import math

import numpy as np

from agents.base import AgentCard, Heuristic
from agents.common.kernels import track_and_stop as tas_kernels
from agents.common.params import Choice, Is, Real, is_number
from agents.linear_bai.track_and_stop import THRESHOLDS, TRACKING_PARAMETERS, LinearTrackAndStop
from bandit_envs.core.problem import Answer, ProblemSpec
from bandit_envs.core.protocols import AgentCapabilities
from bandit_envs.core.tasks import AllEpsilonGood
from bandit_envs.errors import InvalidParameterError
from bandit_envs.theory.design import DesignResult, transductive_design
from bandit_envs.theory.eps_good import eps_good_culprits, threshold_from_best

__all__ = [
    "LazyTTS",
    "thresholding_allocation",
    "thresholding_glr",
]


def _ratio(num_sq: np.ndarray, norms_sq: np.ndarray) -> np.ndarray:
    """num²/norm² with the conventions of a GLR: x/0 = inf for x > 0, 0/0 = 0."""
    out = np.full(num_sq.shape, np.inf)
    pos = norms_sq > 0.0
    np.divide(num_sq, norms_sq, out=out, where=pos)
    out[~pos & (num_sq <= 0.0)] = 0.0
    return out


def thresholding_glr(means: np.ndarray, leverages: np.ndarray, tau: float, sigma: float) -> float:
    """GLR statistic of the thresholding answer {i : μ̂_i ≥ τ} (Gaussian noise, linear model).

    Z = min_i (μ̂_i − τ)²/(2σ²‖a_i‖²_{A⁻¹}) (Rivera & Tewari 2024; the alternative closest to θ̂
    that moves arm i across τ changes θ̂ along A⁻¹a_i only). 0 if an arm sits on τ; with σ = 0,
    ``inf`` unless an arm sits on τ.

    Args:
        means: μ̂ = Zθ̂, shape (K,).
        leverages: ‖a_i‖²_{A⁻¹}, shape (K,).
        tau: the threshold τ.
        sigma: noise standard deviation σ ≥ 0.

    """
    gaps = means - tau
    ratio = _ratio(gaps * gaps, np.maximum(leverages, 0.0))
    z = float(ratio.min())
    if sigma == 0.0:
        return 0.0 if z == 0.0 else math.inf
    return z / (2.0 * sigma * sigma)


def _threshold_weights(means: np.ndarray, tau: float) -> np.ndarray:
    """1/(μ_i − τ)², gaps floored at 1e-9·max(1, max|μ|) (an arm on τ would need w = ∞)."""
    scale = max(1.0, float(np.max(np.abs(means))), abs(tau))
    gaps = np.maximum(np.abs(means - tau), 1e-9 * scale)
    return 1.0 / gaps**2


def thresholding_allocation(
    features: np.ndarray,
    means: np.ndarray,
    tau: float,
    *,
    tol: float = 1e-3,
    init: np.ndarray | None = None,
) -> DesignResult:
    """Optimal allocation of the linear thresholding bandit (Rivera & Tewari 2024).

    w* = argmax_w min_i (μ_i − τ)²/(2‖a_i‖²_{A(w)⁻¹}) = argmin_w max_i ‖a_i‖²_{A(w)⁻¹}/(μ_i − τ)²:
    the transductive design (:func:`bandit_envs.theory.design.transductive_design`) with targets
    a_i and weights 1/(μ_i − τ)². With σ-Gaussian noise the characteristic time is
    T*_τ = 2σ²·``value``. On the canonical basis, w*_i ∝ (μ_i − τ)⁻² and value = Σ_i (μ_i − τ)⁻².

    Args:
        features: arm features, shape (K, h).
        means: μ, shape (K,).
        tau: the threshold τ.
        tol: relative duality-gap tolerance of the design solver.
        init: optional warm start (K,).

    """
    x = np.asarray(features, dtype=np.float64)
    mu = np.asarray(means, dtype=np.float64)
    return transductive_design(x, x, _threshold_weights(mu, float(tau)), tol=tol, init=init)


class LazyTTS(LinearTrackAndStop):
    """Lazy Track-and-Stop for the linear thresholding bandit (Rivera & Tewari 2024).

    **Task.** With ``threshold=τ`` the agent identifies {i : μ_i ≥ τ} — the thresholding bandit
    problem; Li et al. run it on all-ε-good instances with τ = E[X̃] (the *expected* threshold
    of their random instances, Sec. 7), so its answer can differ from G_ε when the
    instance's threshold max μ − ε is not τ. With ``threshold=None`` (default) the threshold is
    the estimated τ̂ = max_j μ̂_j − ε, re-estimated at every pull, and the answer is the
    all-ε-good plug-in set {i : μ̂_i ≥ max μ̂ − ε} (a documented extension: it makes the agent
    usable on any all-ε-good problem without a hint).

    **Sampling** (Jedra & Proutière 2020 §3.2 as extended by Rivera & Tewari): least squares
    with Sherman–Morrison updates; forced exploration along a spanning set while
    λ_min(A_t) < c√t; otherwise C-tracking (or D-tracking) of the allocation
    w*(θ̂) = argmin_w max_i ‖a_i‖²_{A(w)⁻¹}/(μ̂_i − τ)² (:func:`thresholding_allocation`),
    recomputed *lazily*: geometrically often (``recompute_ratio``), or when the empirical answer
    set changed and at least √t pulls passed since the last solve. With ``threshold=None`` the
    threshold τ̂ = μ̂_1̂ − ε moves with the best arm's estimate, so the tracked allocation is the
    all-ε-good one (the culprits of :func:`bandit_envs.theory.eps_good.eps_good_culprits`, Li et al.
    Thm 3.2 on θ̂): its bad-arm
    culprits are the thresholding targets a_m measured against the best arm (a_1̂ − a_m,
    weights (μ̂_m − τ̂)⁻²), plus the good-vs-other pairs; it matches the stopping statistic below
    (the plain thresholding allocation at τ̂ under-samples the best arm: on the canonical
    instance μ = (1, 0.7, 0), ε = 0.5, σ = 0.5, δ = 0.1 it needs about four times the samples of
    this allocation).

    **Stopping** (fixed confidence): GLR statistic Z(t) ≥ β(t, δ), β from the same presets as
    :class:`~agents.linear_bai.track_and_stop.LinearTrackAndStop` (``glr_threshold``: ``"proven"`` =
    (1 + η/λ_min(A_t))(log(1/δ) + ½log det(I + A_t/η)), δ-correct for any sampling rule,
    the default; ``"heuristic"`` = log((1 + log t)/δ); or a number). Z is
    :func:`thresholding_glr` for a given τ (δ-correct for {μ_i ≥ τ}), and
    :func:`bandit_envs.theory.eps_good.eps_good_glr`
    (the GLR of the all-ε-good problem, Li et al. EC.2) when ``threshold=None``: a thresholding
    GLR at the plug-in τ̂ would ignore the uncertainty of max μ̂ and is not δ-correct, while the
    all-ε-good GLR equals the thresholding one once the best arm is known.

    **Answer**: {i : μ̂_i ≥ τ} (given τ) or {i : μ̂_i ≥ max μ̂ − ε} (``threshold=None``; the
    multiplicative definition uses (1 − ε)·max μ̂ in the answer, the GLR and the culprits).

    Cost per pull O(K r) (O(|Ĝ| K r) with ``threshold=None``) plus the lazy design solves, each
    O(K r² + r³) per solver iteration (the paper's O(nKd²) per allocation).

    Args:
        threshold: τ (a finite number) or ``None`` for the estimated threshold of the problem's
            definition (max μ̂ − ε, or (1 − ε)·max μ̂ when multiplicative), or ``"hint"``: the
            instance family's expected threshold (``ProblemSpec.extras["threshold_hint"]``), the
            protocol of Li et al. (2025, Sec. 7) for the thresholding baseline.
        glr_threshold: ``"proven"``, ``"heuristic"`` or a number b > 0 (β ≡ b, heuristic).
        tracking: ``"C"`` (default) or ``"D"``.
        forced: ``"spanning"`` (default) or ``"g_optimal"`` forced-exploration pulls.
        exploration_constant: c ≥ 0 in f(t) = c√t, or ``None`` (see LinearTrackAndStop).
        reg: η > 0 of the proven threshold.
        recompute_ratio: γ ≥ 0 of the lazy (geometric) recomputation schedule.
        design_tol: relative duality-gap tolerance of each allocation solve, in (0, 1).
        design_max_iter: Frank–Wolfe iterations per warm-started solve before the solver's
            SLSQP polish finishes it (``None``: the solver's default). The default 20 gives the
            same sample counts as the solver's default on the static d = 8 instance (τ = 0.5),
            for less work per solve.
        solver: ``"auto"`` (default), ``"certified"`` or ``"warm"``: how w* is re-solved (see
            LinearTrackAndStop; ``"auto"`` is ``"warm"`` above 150 arms, where each warm
            re-solve then takes at most ``design_max_iter`` Frank–Wolfe steps, unpolished).

    """

    card = AgentCard(
        summary="Thresholding Track-and-Stop with lazy allocation updates: identifies {mu_i >= "
        "threshold} for a given threshold, or all eps-good arms (estimated threshold, all-eps-good "
        "GLR and allocation) with threshold=None. Proven GLR threshold by default",
        paper="Rivera & Tewari, Optimal Thresholding Linear Bandit, arXiv 2402.09467 (2024); "
        "lazy Track-and-Stop of Jedra & Proutiere, NeurIPS 2020, Sec. 3",
        heuristics=(
            Heuristic(
                "glr_threshold",
                lambda v: v == "heuristic" or is_number(v),
                "GLR threshold log((1 + log t)/delta) or a constant",
            ),
            Heuristic(
                "threshold",
                lambda v: v is not None,
                "a given threshold tau identifies {mu_i >= tau}, which is G_eps only when "
                "tau = max mu - eps",
            ),
        ),
    )

    capabilities = AgentCapabilities(
        tasks=frozenset({"all_eps_good"}),
        settings=frozenset({"fixed_confidence"}),
        structures=frozenset({"linear"}),
        batch=False,
    )
    _beta_param = "glr_threshold"
    parameters = {
        "threshold": Is(None) | Choice("hint") | Real(),
        "glr_threshold": Choice(*THRESHOLDS) | Real(gt=0),
        **TRACKING_PARAMETERS,
    }

    def __init__(
        self,
        threshold: float | str | None = None,
        glr_threshold: str | float = "proven",
        tracking: str = "C",
        forced: str = "spanning",
        exploration_constant: float | None = None,
        reg: float = 1.0,
        recompute_ratio: float = 0.1,
        design_tol: float = 1e-2,
        design_max_iter: int | None = 20,
        solver: str = "auto",
    ) -> None:
        self.threshold = threshold
        self.glr_threshold = glr_threshold
        self.tracking = tracking
        self.forced = forced
        self.exploration_constant = exploration_constant
        self.reg = reg
        self.recompute_ratio = recompute_ratio
        self.design_tol = design_tol
        self.design_max_iter = design_max_iter
        self.solver = solver

    def _on_reset(self, spec: ProblemSpec) -> None:
        tau = self.threshold
        if isinstance(tau, str) and tau == "hint":
            if "threshold_hint" not in spec.extras:
                raise InvalidParameterError(
                    f"{self.name}: threshold='hint' reads ProblemSpec.extras['threshold_hint'] "
                    "(the expected threshold an instance family publishes); this problem has "
                    "none. Pass threshold=<tau> or threshold=None."
                )
            tau = float(spec.extras["threshold_hint"])
            if not math.isfinite(tau):
                raise InvalidParameterError(
                    f"{self.name}: the problem's extras['threshold_hint'] must be a finite "
                    f"number; got {tau!r}."
                )
        super()._on_reset(spec)
        self._tau = None if tau is None else float(tau)
        self._eps = float(spec.epsilon) if spec.epsilon is not None else 0.0
        self._multiplicative = bool(spec.extras.get("multiplicative", False))
        self._rule = (
            AllEpsilonGood(self._eps, multiplicative=self._multiplicative) if tau is None else None
        )

    # ------------------------------------------------------------------ task hooks

    def _current_tau(self, means: np.ndarray) -> float:
        if self._tau is not None:
            return self._tau
        assert self._rule is not None  # set whenever no threshold is given
        return self._rule.threshold(means)

    def _answer_key(self, means: np.ndarray, best: int) -> object:
        """The empirical answer set, as bytes of its indicator vector."""
        return (means >= self._current_tau(means)).tobytes()

    def _glr(self, means: np.ndarray, best: int) -> float:
        """The thresholding GLR (given τ), or the all-ε-good one (compiled, O(|Ĝ| K r))."""
        q = self._q
        assert q is not None  # the GLR is computed once A is invertible
        if self._tau is not None:
            return thresholding_glr(means, q, self._tau, self._sigma)
        p = self._p
        assert p is not None  # set with A⁻¹
        s, c = (1.0 - self._eps, 0.0) if self._multiplicative else (1.0, self._eps)
        tau = threshold_from_best(float(means[best]), self._eps, self._multiplicative)
        return tas_kernels.eps_good_statistic(self._z, p, q, means, best, tau, s, c, self._sigma)

    def _design_targets(self, means: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Targets and weights of the tracked allocation.

        Given τ: targets a_i, weights 1/(μ̂_i − τ)². Else the culprits of Theorem 3.2 on μ̂
        (:func:`bandit_envs.theory.eps_good.eps_good_culprits`), weights 1/b², margins floored at
        1e-9·max(1, max|μ̂|) (an estimated arm on the threshold would need an infinite weight).
        """
        if self._tau is not None:
            return self._z, _threshold_weights(means, self._tau)
        targets, margins = eps_good_culprits(
            self._z, means, self._eps, multiplicative=self._multiplicative
        )
        floor = 1e-9 * max(1.0, float(np.max(np.abs(means))))
        return targets, np.maximum(margins, floor) ** -2.0

    def _answer(self, means: np.ndarray) -> Answer:
        if self._tau is None:
            assert self._rule is not None  # set whenever no threshold is given
            return self._rule.empirical_answer(means)
        return frozenset(int(i) for i in np.flatnonzero(means >= self._tau))

    def _trivial(self) -> bool:
        """One arm is trivially ε-good; against a given τ it must still be measured."""
        return self.n_arms == 1 and self._tau is None
