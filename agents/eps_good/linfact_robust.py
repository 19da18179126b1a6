"""LinFACT beyond the linear model: LinFACT-MIS (misspecified) and LinFACT-GLM (Li et al. §5–§6).

"Identifying All ε-Best Arms in (Misspecified) Linear Bandits" (Li, Ma, Hua & Zhu, arXiv
2510.00073), Section 5 (with E-Companion EC.8–EC.10) and Section 6 (EC.11). The choices the
paper leaves open are stated where they are made. Both agents are small subclasses of LinFACT-G's
rounds (:class:`agents.eps_good.linfact.GOptimalRounds`: G-optimal rounds on the projected active
arms, fresh data every round, Algorithm 3, the exact batch path); they change only the round's
pulls, estimator and confidence radius. The math is shared with the environments:
:mod:`bandit_envs.theory.misspecification` (orthogonal estimator, radius inflation) and
:mod:`bandit_envs.theory.glm` (links, maximum likelihood).

* :class:`LinFACTMIS`: misspecified linear model ``μ = Ψθ + Δ_m``, ``‖Δ_m‖_∞ ≤ L_m``;
* :class:`LinFACTGLM`: generalized linear model ``E[X | a] = μ_link(aᵀθ)``.
"""

from __future__ import annotations

import math

import numpy as np

from agents.base import AgentCard, Heuristic
from agents.common.params import Boolean, Choice, Integer, Is, Real
from agents.eps_good.linfact import DESIGN_TOL, MAX_ARM_SAMPLES, GOptimalRounds, ceil_counts
from bandit_envs.core.problem import ProblemSpec
from bandit_envs.core.protocols import AgentCapabilities
from bandit_envs.errors import InvalidParameterError
from bandit_envs.theory.glm import LINKS, Link, get_link, glm_mle
from bandit_envs.theory.misspecification import orthogonal_estimate, radius_inflation

__all__ = ["LinFACTGLM", "LinFACTMIS"]

#: floor of ε² in the counts: a noiseless run that never stops reaches rounds where 4^{-r}
#: underflows (the counts stay at one pull per support arm, σ² = 0).
_TINY = 1e-300

ESTIMATORS = ("ols", "orthogonal")
USE_FEATURES = ("auto", "always", "when_cheaper", "never")


class LinFACTMIS(GOptimalRounds):
    """LinFACT-MIS: all ε-good arms under misspecification (Li, Ma, Hua & Zhu 2025, Sec. 5).

    The model is ``μ = Ψθ + Δ_m`` with ``‖Δ_m‖_∞ ≤ L_m`` (eq. 28–29). Rounds are LinFACT-G's
    (G-optimal design on the projected active arms, fresh data, Algorithm 3); what changes:

    * ``estimator="ols"`` — least squares on the round's data with the counts of eq. 21.
      With ``inflate=True`` and ``L_m`` known, the confidence radius of Algorithm 3 is inflated
      as Proposition 5.4 proposes (eq. 35), so that the clean event ``|μ̂_i − μ_i| ≤ radius``
      (EC.8.1) holds with probability ≥ 1 − δ for *any* ``L_m``. The paper's eq. 35 as printed,
      ``ε_r + L_m√d``, bounds ``|a_iᵀ(θ̂ − θ)|`` (EC.8.3–EC.8.4), but ``μ̂_i − μ_i`` also
      contains the arm's own deviation ``−Δ_m(a_i)``; we use ``ε_r + L_m(√d + 1)``
      (:func:`bandit_envs.theory.misspecification.radius_inflation`). ``paper_radius=True`` uses
      eq. 35 as printed (its clean event fails under an adversarial deviation, see the tests),
      and the conditions of Theorem 5.1 / Proposition 5.4 read
      ``L_m < min(α_ε, β_ε)/(2(√d + 1))``.
    * ``estimator="orthogonal"`` — the orthogonal-parameterization estimator of Sec. 5.2
      (eq. 30: the ``D_N``-weighted projection of the round's empirical means onto the
      realizable set, computed by minimising over θ the convex "dead-zone" loss obtained by
      eliminating the deviations in closed form,
      :func:`bandit_envs.theory.misspecification.orthogonal_estimate`) with the counts of eq. 33,
      ``T_r(a) = ⌈8dπ_r(a)ε_r^{-2}(d log 6 + log(Kr(r+1)/δ))⌉``, and radius
      ``ε_r + (√d + 2)L_m`` (EC.9.8; the paper keeps Algorithm 3 unchanged in Theorem 5.2, and
      inflating the radius when ``L_m`` is known is our analogue of Proposition 5.4). Arms not
      pulled in a round get deviation 0 (the paper is silent).
    * ``use_features`` — ``"always"`` (the paper's Algorithm 5); ``"never"``: every round is a
      round of the unstructured problem (identity features, Remark 3.3: each active arm pulled
      ``⌈2ε_r^{-2}log(2Kr(r+1)/δ)⌉`` times, its empirical mean the estimate, radius ``ε_r``):
      δ-correct for any deviation, the unstructured baseline of the robustness study;
      ``"when_cheaper"`` (ours): every round targets the radius ``ε_r`` and buys it the cheaper
      way — structured with the per-arm accuracy ``ε_r − c`` (``c`` the inflation above; eq. 21
      or 33 at that accuracy) or unstructured — so the agent uses the features while they pay
      and drops them once ``L_m`` dominates the radius (Proposition 5.3: beyond some ``L_μ``
      structure cannot help). Each round is valid on its own (fresh data, a union bound over
      rounds and arms), so mixing the two keeps the guarantee, and the radius schedule (hence
      the stopping round ``R_upper``) is that of the well-specified problem. ``"auto"`` (the
      default): ``"when_cheaper"`` when ``L_m`` is known, ``"always"`` when it is not (see
      below). The default is the variant that stops whatever the told ``L_m``: the paper's
      rounds stop only while ``L_m`` is small against the gaps (below), which a user who knows
      only a bound on the deviation cannot check, and while they do stop, ``"when_cheaper"``
      buys about the same structured rounds (measured: 1.5·10⁶ samples for either on
      ``MisspecifiedEpsGood-Adaptive-v0`` with ``L_m=0.001``; at its default ``L_m = 0.01``,
      ``"always"`` never stops and ``"when_cheaper"`` stops at 3.8·10⁶).

    ``L_m``: the ``L_m`` argument, else ``ProblemSpec.misspecification``, else 0 on a linear
    problem. With ``L_m`` unknown (a misspecified problem that does not publish it) the OLS
    rounds run uninflated — Theorem 5.1's agent, LinFACT-G itself (Section 5.3: with unknown
    ``L_m`` no improvement is possible); that is what ``"auto"`` does; the orthogonal estimator
    and an explicit ``"when_cheaper"``, which need ``L_m``, refuse at reset. With ``L_m = 0``,
    ``estimator="ols"`` and ``use_features="always"`` the agent is exactly LinFACT-G (so is the
    default, unless a round is cheaper without features). The noise level σ scales every count
    by σ² (the paper assumes σ = 1).

    Guarantees: on the clean event (probability ≥ 1 − δ) every answer is ``G_ε``. With
    ``"never"`` or ``"when_cheaper"`` (the default when ``L_m`` is known) the radius reaches
    every ``ε_r`` and the agent stops by the well-specified problem's ``R_upper``, whatever
    ``L_m``. With ``"always"`` the radius never falls below the inflation ``c`` (``L_m(√d + 1)``
    for OLS, ``L_m(√d + 2)`` orthogonal), and Algorithm 3 classifies an arm only once its gap
    exceeds twice the radius plus the error of the estimates: the clean event alone guarantees a
    stop
    when ``c < min(α_ε, β_ε)/4``; Theorems 5.1 and 5.2 state ``L_m√d < min(α_ε, β_ε)/2``
    (resp. ``L_m(√d + 2)``), for the uninflated radius. Beyond, the paper's rounds stop only if
    the realised bias is small, and otherwise run to the environment's ``max_samples`` (on
    ``MisspecifiedEpsGood-Adaptive-v0`` at its defaults, ``L_m = 0.01``, ``α_ε = 0.015``,
    ``c = 0.032``: they never stop).

    Args:
        estimator: ``"ols"`` or ``"orthogonal"``.
        L_m: the misspecification level (``None``: the problem's).
        inflate: inflate the radius by the misspecification bias when ``L_m`` is known.
        paper_radius: the OLS inflation ``L_m√d`` of eq. 35 as printed (not valid, see above)
            instead of ``L_m(√d + 1)``.
        use_features: ``"auto"`` (default), ``"always"``, ``"when_cheaper"`` or ``"never"``.
        use_ambient_d: the ambient dimension instead of ``d_r`` in the counts and the inflation.
        design_tol: relative tolerance of the G-optimal design, in (0, 1).

    Attributes:
        phase_history: as :class:`agents.eps_good.linfact.LinFACTG`, plus ``kind``
            (``"structured"`` or ``"unstructured"``), ``accuracy`` (the per-arm accuracy the counts
            buy), ``inflation`` and ``radius`` per round.
    """

    card = AgentCard(
        summary="All eps-good arms under misspecification (|Delta_m|_inf <= L_m): LinFACT-G rounds "
        "with least squares and a radius inflated by L_m (sqrt(d) + 1), or the "
        "orthogonal-parameterization estimator. use_features='never' is the unstructured "
        "baseline, 'when_cheaper' (the default when L_m is known) drops the features once L_m "
        "dominates",
        paper="Li, Ma, Hua & Zhu, Identifying All eps-Best Arms in (Misspecified) Linear "
        "Bandits, arXiv 2510.00073 (2025), Sec. 5 (Thm 5.1, 5.2, Prop. 5.4, Algorithm 5)",
        heuristics=(
            Heuristic(
                "paper_radius",
                lambda v: v is True,
                "eq. 35 as printed misses the arm's own deviation",
            ),
        ),
    )

    capabilities = AgentCapabilities(
        tasks=frozenset({"all_eps_good"}),
        settings=frozenset({"fixed_confidence"}),
        structures=frozenset({"linear", "misspecified_linear"}),
        batch=True,
        extras={"multiplicative": frozenset({False})},
    )

    parameters = {
        "estimator": Choice(*ESTIMATORS),
        "L_m": Is(None) | Real(ge=0),
        "inflate": Boolean(),
        "paper_radius": Boolean(),
        "use_features": Choice(*USE_FEATURES),
        "use_ambient_d": Boolean(),
        "design_tol": DESIGN_TOL,
    }

    def __init__(
        self,
        estimator: str = "ols",
        L_m: float | None = None,  # noqa: N803 - the paper's name
        inflate: bool = True,
        paper_radius: bool = False,
        use_features: str = "auto",
        use_ambient_d: bool = False,
        design_tol: float = 1e-6,
    ) -> None:
        self.estimator = estimator
        self.L_m = L_m
        self.inflate = inflate
        self.paper_radius = paper_radius
        self.use_features = use_features
        self.use_ambient_d = use_ambient_d
        self.design_tol = design_tol

    def _on_reset(self, spec: ProblemSpec) -> None:
        super()._on_reset(spec)
        if self.L_m is not None:
            level: float | None = float(self.L_m)
        elif spec.misspecification is not None:
            level = float(spec.misspecification)
        elif spec.structure == "linear":
            level = 0.0
        else:
            level = None
        mode = self.use_features
        if mode == "auto":  # when_cheaper needs L_m; without it, Theorem 5.1's agent
            mode = "always" if level is None else "when_cheaper"
        needs = mode == "when_cheaper" or (self.estimator == "orthogonal" and mode != "never")
        if level is None and needs:
            what = (
                "use_features='when_cheaper'"
                if mode == "when_cheaper"
                else "the orthogonal estimator"
            )
            raise InvalidParameterError(
                f"{self.name}: {what} needs the misspecification level L_m, and this problem "
                f"does not publish it (ProblemSpec.misspecification is None); give L_m=..., or "
                f"use estimator='ols' with use_features='auto' or 'always' (Theorem 5.1: no "
                f"inflation), or use_features='never'."
            )
        self._level = level
        self._mode = mode

    # ------------------------------------------------------------------ rounds

    def _inflation(self, factor: float) -> float:
        if self._level is None or not self.inflate:
            return 0.0
        return radius_inflation(self._level, factor, self.estimator, paper=bool(self.paper_radius))

    def _structured_counts(
        self, r: int, weights: np.ndarray, factor: float, accuracy: float
    ) -> np.ndarray:
        if self.estimator == "ols":
            return self._g_counts(r, weights, factor, accuracy)
        # eq. 33: ⌈8 d π(a) ε^{-2} (d log 6 + log(K r(r+1)/δ))⌉, times σ²
        log_term = factor * math.log(6.0) + math.log(
            self.n_arms * r * (r + 1) / self._require_delta()
        )
        scale = self._sigma2 * 8.0 * factor / max(accuracy * accuracy, _TINY) * log_term
        counts = ceil_counts(np.minimum(scale * weights, MAX_ARM_SAMPLES))
        return np.where(weights > 0, np.maximum(counts, 1), 0)

    def _unstructured_counts(self, r: int, accuracy: float) -> np.ndarray:
        """Eq. 21 with every active arm weighted 1 (dimension factor 1): no feature is used."""
        return self._g_counts(r, np.ones(self._active.size), 1.0, accuracy)

    def _allocate(self, r: int) -> tuple[np.ndarray, dict]:
        eps_r = 2.0 ** (-r)
        if self._mode == "never":
            counts = self._unstructured_counts(r, eps_r)
            return counts, {
                "kind": "unstructured",
                "rank": int(self._active.size),
                "accuracy": eps_r,
                "inflation": 0.0,
                "radius": eps_r,
            }
        weights, value, rank = self._g_design_of_active()
        factor = self._factor(value, rank)
        c = self._inflation(factor)
        info = {
            "kind": "structured",
            "rank": rank,
            "design_value": value,
            "factor": factor,
            "inflation": c,
        }
        if self._mode == "always":
            counts = self._structured_counts(r, weights, factor, eps_r)
            return counts, {**info, "accuracy": eps_r, "radius": eps_r + c}
        unstructured = self._unstructured_counts(r, eps_r)
        if eps_r > c:
            counts = self._structured_counts(r, weights, factor, eps_r - c)
            if counts.sum() <= unstructured.sum():
                return counts, {**info, "accuracy": eps_r - c, "radius": eps_r}
        return unstructured, {
            "kind": "unstructured",
            "rank": int(self._active.size),
            "accuracy": eps_r,
            "inflation": 0.0,
            "radius": eps_r,
        }

    def _prepare_estimator(self, alloc: np.ndarray) -> None:
        if self._plan["kind"] == "structured" and self.estimator == "ols":
            super()._prepare_estimator(alloc)

    def _estimate_means(self) -> np.ndarray:
        active = self._active
        if self._plan["kind"] == "unstructured":
            return self._psums[active] / self._pcounts[active]
        if self.estimator == "orthogonal":
            assert self._level is not None  # the orthogonal estimator needs L_m (see _on_reset)
            fit = orthogonal_estimate(self._z, self._pcounts, self._psums, float(self._level))
            return np.asarray(fit.means[active])
        return super()._estimate_means()

    def _radius(self, r: int) -> float:
        return float(self._plan["radius"])


class LinFACTGLM(GOptimalRounds):
    """LinFACT-GLM: all ε-good arms of a generalized linear bandit (Li et al. 2025, Sec. 6).

    The model is ``E[X | a] = μ_link(aᵀθ)`` (eq. 36) with a canonical link. LinFACT-G's rounds
    (Algorithm 6: the G-optimal design on the projected active arms), with

    * **counts** (eq. 40): ``T_r(a) = ⌈2dπ_r(a)ε_r^{-2}c_min^{-2} log(2Kr(r+1)/δ)⌉``, times σ² —
      the sub-Gaussian constant of the outcomes, ``ProblemSpec.noise_std`` (1/2 for Bernoulli);
    * **estimation**: maximum likelihood on the round's data (eq. 38–39) by Newton/IRLS with a
      ridge ``λ`` and an iteration cap (:func:`bandit_envs.theory.glm.glm_mle`), warm-started from
      the previous round's estimate; ``μ̂_i = μ_link(a_iᵀθ̂)``, with ``a_iᵀθ̂`` clipped to the known
      range ``[−B, B]`` when a predictor bound ``B`` is known (the truth lies inside, so clipping
      never increases an error);
    * **radius** (Algorithm 3): the proof (EC.11.3–EC.11.7) gives ``|a_iᵀ(θ̂ − θ)| ≤ ε_r`` on the
      linear-predictor scale, and the paper does not say on which scale ``G_ε`` is defined; we
      define it on the mean scale, so the radius is ``L·ε_r`` with ``L = sup μ̇_link`` over the
      predictor range (valid by the mean value theorem). That is the default
      (``lipschitz_radius=True``): it carries the paper's guarantee to the scale on which the
      classification is made, and stops near Theorem 6.1's round ``R_GLM = R_upper``
      (EC.11.9). ``lipschitz_radius=False`` uses ``max(1, L)·ε_r`` — the paper's number ``ε_r``
      applied to the means for the logistic (``L = 1/4``) and identity links: valid, but 4
      times wider than needed for the logistic link, so the agent takes about two more rounds
      and some 17 times the samples (``LogisticEpsGood-Adaptive-v0`` at its defaults:
      1.05·10⁸ samples, past the default ``max_samples`` of 10⁸, against 6.2·10⁶).

    ``c_min`` (Assumption 6: ``μ̇_link(aᵀθ̌) ≥ c_min`` between θ and θ̂): the ``c_min``
    argument; else ``μ̇``'s minimum over ``[−B, B]`` (logistic: ``σ̇(B)``) for the
    ``predictor_bound`` argument ``B``, or the problem's ``extras["predictor_bound"]``; 1 for the
    identity link; otherwise the agent refuses at reset.

    ``link``: ``None`` uses the problem's (``ProblemSpec.link``; ``"identity"`` on a linear
    problem); a name forces one. ``link="identity"`` is LinFACT-G run on the outcomes: on a
    linear problem it reproduces LinFACT-G exactly (same counts, same estimates; tested), and on
    a logistic problem it is the linear fit the robustness study compares with.

    Warm-up (Sec. 6 mentions "forced exploration at the beginning of the algorithm" of O(d) pulls,
    which makes the maximum likelihood exist): before round 1, each arm in the support of the
    G-optimal design of all arms is pulled ``warmup`` times; the MLE of those pulls only starts
    Newton's method in round 1 (no classification uses them: data are not reused across rounds).
    Skipped for the identity link.

    Args:
        link: ``None``, ``"identity"``, ``"logistic"`` or ``"poisson"``.
        c_min: the lower bound of Assumption 6 (> 0), or ``None``.
        predictor_bound: ``B ≥ max_a |aᵀθ|`` (≥ 0), or ``None`` (the problem's, if published).
        lipschitz_radius: the radius ``L·ε_r`` (default) rather than ``max(1, L)·ε_r`` (see
            above).
        warmup: pulls per design-support arm before round 1 (≥ 0).
        ridge: the ridge ``λ ≥ 0`` of the MLE.
        max_iter: Newton iteration cap of the MLE (≥ 1).
        use_ambient_d: the ambient dimension instead of ``d_r`` in the counts.
        design_tol: relative tolerance of the G-optimal design, in (0, 1).

    Attributes:
        phase_history: as :class:`agents.eps_good.linfact.LinFACTG`, plus ``c_min``, ``radius``,
            ``mle_iterations`` and ``mle_converged`` per round (round 0 is the warm-up).
    """

    card = AgentCard(
        summary="All eps-good arms of a generalized linear (logistic, Poisson) bandit: LinFACT-G "
        "rounds with eq. 40 counts and maximum likelihood (Newton/IRLS) on each round's data. "
        "link='identity' is LinFACT-G's linear fit",
        paper="Li, Ma, Hua & Zhu, Identifying All eps-Best Arms in (Misspecified) Linear "
        "Bandits, arXiv 2510.00073 (2025), Sec. 6 (Thm 6.1, Algorithm 6)",
    )

    capabilities = AgentCapabilities(
        tasks=frozenset({"all_eps_good"}),
        settings=frozenset({"fixed_confidence"}),
        structures=frozenset({"linear", "glm"}),
        batch=True,
        extras={"multiplicative": frozenset({False})},
    )

    parameters = {
        "link": Is(None) | Choice(*sorted(LINKS)),
        "c_min": Is(None) | Real(gt=0),
        "predictor_bound": Is(None) | Real(ge=0),
        "lipschitz_radius": Boolean(),
        "warmup": Integer(min=0),
        "ridge": Real(ge=0),
        "max_iter": Integer(min=1),
        "use_ambient_d": Boolean(),
        "design_tol": DESIGN_TOL,
    }

    def __init__(
        self,
        link: str | None = None,
        c_min: float | None = None,
        predictor_bound: float | None = None,
        lipschitz_radius: bool = True,
        warmup: int = 1,
        ridge: float = 1e-6,
        max_iter: int = 100,
        use_ambient_d: bool = False,
        design_tol: float = 1e-6,
    ) -> None:
        self.link = link
        self.c_min = c_min
        self.predictor_bound = predictor_bound
        self.lipschitz_radius = lipschitz_radius
        self.warmup = warmup
        self.ridge = ridge
        self.max_iter = max_iter
        self.use_ambient_d = use_ambient_d
        self.design_tol = design_tol

    def _on_reset(self, spec: ProblemSpec) -> None:
        super()._on_reset(spec)
        name = self.link if self.link is not None else spec.link
        if name is None:
            if spec.structure != "linear":
                raise InvalidParameterError(
                    f"{self.name}: the problem does not say its link (ProblemSpec.link is None); "
                    f"give link=..."
                )
            name = "identity"
        link: Link = get_link(name, self.name)
        bound = self.predictor_bound
        if bound is None and (self.link is None or self.link == spec.link):
            published = spec.extras.get("predictor_bound")
            bound = None if published is None else float(published)
        if self.c_min is not None:
            c_min = float(self.c_min)
        elif link.name == "identity":
            c_min = 1.0
        elif bound is not None:
            c_min = link.min_slope(bound)
        else:
            raise InvalidParameterError(
                f"{self.name}: the {link.name} link needs c_min (Assumption 6): give c_min=..., "
                f"or a bound on the linear predictors, predictor_bound=... (the problem "
                f"publishes none in extras['predictor_bound'])."
            )
        slope = link.max_slope(bound)
        if not math.isfinite(slope):
            raise InvalidParameterError(
                f"{self.name}: the {link.name} link's slope is unbounded without a predictor "
                f"bound; give predictor_bound=... (the radius needs sup of the slope)."
            )
        self._link = link
        self._bound = bound
        self._cmin = c_min
        self._slope_factor = slope if self.lipschitz_radius else max(1.0, slope)
        self._theta_hat: np.ndarray | None = None
        self._warm = link.name == "identity" or int(self.warmup) == 0

    # ------------------------------------------------------------------ rounds

    def _plan_phase(self) -> None:
        if self._warm:
            super()._plan_phase()
            return
        weights, value, rank = self._g_design_of_active()
        counts = np.where(weights > 0, int(self.warmup), 0).astype(np.int64)
        self._start_round(0, counts, {"kind": "warmup", "rank": rank, "design_value": value})

    def _allocate(self, r: int) -> tuple[np.ndarray, dict]:
        weights, value, rank = self._g_design_of_active()
        factor = self._factor(value, rank)
        counts = self._g_counts(r, weights, factor / self._cmin**2)
        return counts, {
            "kind": "round",
            "rank": rank,
            "design_value": value,
            "factor": factor,
            "c_min": self._cmin,
        }

    def _prepare_estimator(self, alloc: np.ndarray) -> None:
        if self._link.name == "identity":
            super()._prepare_estimator(alloc)

    def _mle(self, active: np.ndarray) -> np.ndarray:
        fit = glm_mle(
            self._z,
            self._pcounts,
            self._psums,
            self._link,
            ridge=float(self.ridge),
            max_iter=int(self.max_iter),
            init=self._theta_hat,
        )
        self._fit = fit
        eta = self._z[active] @ fit.theta
        if self._bound is not None:
            eta = np.clip(eta, -self._bound, self._bound)
        return np.asarray(self._link.mean(eta))

    def _estimate_means(self) -> np.ndarray:
        if self._link.name == "identity":
            return super()._estimate_means()
        means = self._mle(self._active)
        self._theta_hat = self._fit.theta
        self._plan["mle_iterations"] = self._fit.iterations
        self._plan["mle_converged"] = self._fit.converged
        return means

    def _partial_means(self, active: np.ndarray) -> np.ndarray:
        if self._link.name == "identity":
            return super()._partial_means(active)
        return self._mle(active)

    def _radius(self, r: int) -> float:
        return self._slope_factor * 2.0 ** (-r)

    def _finish_phase(self) -> None:
        if self._plan["kind"] != "warmup":
            super()._finish_phase()
            return
        fit = glm_mle(
            self._z,
            self._pcounts,
            self._psums,
            self._link,
            ridge=float(self.ridge),
            max_iter=int(self.max_iter),
        )
        self._theta_hat = fit.theta
        self.phase_history.append(
            {**self._plan, "mle_iterations": fit.iterations, "mle_converged": fit.converged}
        )
        self._warm = True
        self._planned = False
