"""``LinearTrackAndStop``: asymptotically optimal best-arm identification in linear bandits.

Jedra & Proutière (NeurIPS 2020), "Optimal Best-arm Identification in Linear Bandits": a
Track-and-Stop strategy (Garivier & Kaufmann 2016) for linear models, made of

* a least-squares estimate θ̂_t = A_t⁻¹ b_t, ``A_t = Σ_s x_s x_sᵀ`` (J&P §3.1), kept with
  Sherman–Morrison rank-one updates;
* forced exploration with a spanning set 𝒜₀ whenever λ_min(A_t) < f(t) = c·√t (J&P §3.2,
  "Sampling rule": the pull is an arm of 𝒜₀, cyclically), so that θ̂_t is consistent;
* otherwise tracking (C-tracking, or D-tracking) of the optimal allocation w*(θ̂) — the
  minimiser of max_{x≠x̂} ‖x̂ − x‖²_{A(w)⁻¹}/Δ̂_x², whose value is T*(θ̂)/(2σ²) (lower bound of
  Soare et al. 2014; Fiez et al. 2019) — recomputed *lazily*, which J&P (§3.2, "lazy updates")
  show does not compromise asymptotic optimality;
* GLR stopping Z(t) = min_{x≠x̂} Δ̂(x̂, x)²/(2σ²‖x̂ − x‖²_{A_t⁻¹}) ≥ β(t, δ) (J&P §3.3;
  Garivier & Kaufmann 2016 §3).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from agents.base import AgentCard, BaseAgent, Heuristic
from agents.common.kernels import track_and_stop as tas_kernels
from agents.common.params import Choice, Constraint, Integer, Is, Real, is_number
from bandit_envs.core.problem import Answer, ProblemSpec
from bandit_envs.core.protocols import AgentCapabilities
from bandit_envs.theory.design import POLISH_MAX_ARMS, g_optimal_design, transductive_design
from bandit_envs.theory.linalg import projected_least_squares, reduce_features, ridge_unit
from bandit_envs.theory.thresholds import (
    loglog_heuristic_threshold,
    self_normalized_terms,
    self_normalized_threshold,
)

__all__ = [
    "LinearTrackAndStop",
    "SOLVERS",
    "THRESHOLDS",
    "TRACKING_PARAMETERS",
    "WARM_ITERATIONS",
    "spanning_subset",
]

#: how :class:`LinearTrackAndStop` re-solves w*(θ̂) (see its ``solver`` argument).
SOLVERS: tuple[str, ...] = ("auto", "certified", "warm")

#: named stopping thresholds of :class:`LinearTrackAndStop`.
THRESHOLDS: tuple[str, ...] = ("proven", "heuristic")

#: the constraints of the sampling and solver parameters (shared with the thresholding variant,
#: :class:`agents.eps_good.lazy_tts.LazyTTS`).
TRACKING_PARAMETERS: dict[str, Constraint] = {
    "tracking": Choice("C", "D"),
    "forced": Choice("spanning", "g_optimal"),
    "exploration_constant": Is(None) | Real(ge=0),
    "reg": Real(gt=0),
    "recompute_ratio": Real(ge=0),
    "design_tol": Real(gt=0, lt=1),
    "design_max_iter": Is(None) | Integer(min=1),
    "solver": Choice(*SOLVERS),
}

#: Frank–Wolfe iterations of one warm re-solve (``solver="warm"``) when ``design_max_iter`` is None.
WARM_ITERATIONS = 10

#: exact re-inversion of the Gram matrix every this many rank-one updates (round-off control).
_REFRESH_EVERY = 1_000


def spanning_subset(z: np.ndarray) -> np.ndarray:
    """Indices of r = rank(z) linearly independent rows, by pivoted Gram–Schmidt.

    The largest residual is taken first (lowest index on ties), which gives a well-conditioned
    spanning set 𝒜₀ for forced exploration (J&P §3.2 only requires linear independence).

    Args:
        z: features in reduced coordinates, shape (K, r), of rank r.

    Returns:
        int64 indices, shape (r,), in the order they were picked.

    """
    k, r = z.shape
    resid = np.array(z, dtype=np.float64)
    chosen: list[int] = []
    scale = float(np.max(np.sum(z * z, axis=1))) if k else 0.0
    for _ in range(r):
        norms = np.sum(resid * resid, axis=1)
        norms[chosen] = -1.0
        j = int(np.argmax(norms))
        if norms[j] <= 1e-20 * max(scale, 1e-300):
            break
        chosen.append(j)
        q = resid[j] / math.sqrt(norms[j])
        resid -= np.outer(resid @ q, q)
    return np.asarray(chosen, dtype=np.int64)


class LinearTrackAndStop(BaseAgent):
    """Track-and-Stop for linear best-arm identification (Jedra & Proutière 2020).

    **Sampling** (J&P §3.2). With t pulls made and A_t the Gram matrix of the pulled arms:

    1. *Forced exploration*: if A_t is singular or λ_min(A_t) < f(t+1) = c·√(t+1), pull the
       next arm of the spanning set 𝒜₀ (cyclically; ``forced="spanning"``, the paper's rule), or
       track the G-optimal design among the forced pulls (``forced="g_optimal"``, Soare et al.
       2014's G-allocation; better conditioned when 𝒜₀ is skewed). The default
       c = λ_min(Σ_{a∈𝒜₀} a aᵀ)/√r (r = rank of the features) keeps the forced pulls near √(r t).
       λ_min(A_t) is computed by an eigen-decomposition only when the cached value (a valid
       lower bound, since A_t only grows) falls below f(t+1).
    2. Otherwise *tracking* of w*(θ̂_t) = argmin_w max_{x≠x̂} ‖x̂ − x‖²_{A(w)⁻¹}/Δ̂_x²
       (:func:`bandit_envs.theory.design.transductive_design`, targets x̂ − x, weights 1/Δ̂_x²,
       warm-started from the previous solution): C-tracking pulls argmax_a Σ_{s≤t+1} w_a(s) −
       N_a(t) (Garivier & Kaufmann 2016, §3.1; the default, robust to non-unique optimal
       allocations), D-tracking argmax_a (t+1)·w_a(t) − N_a(t).
    3. *Lazy updates* (J&P §3.2): w* is recomputed only when t ≥ (1 + ``recompute_ratio``)·t_last
       (a geometric schedule: O(log t / ``recompute_ratio``) solves up to time t), or when the
       empirical best arm differs from the one of the last solve and at least ⌈√t⌉ pulls have
       passed since it (at most √t extra solves). The amortised per-pull cost is
       O(K h + h²); ``recompute_ratio=0`` recomputes at every pull.
    4. *Warm re-solves* (``solver``): the first solve is certified to ``design_tol``; each later
       one either is certified too (``"certified"``: Frank–Wolfe, then the solver's SLSQP polish
       or interior-point finish) or takes at most ``design_max_iter`` (default
       :data:`WARM_ITERATIONS` = 10) Frank–Wolfe steps from the previous allocation
       (``"warm"``), as Frank–Wolfe sampling does (Wang, Tzeng & Proutière 2021, "Fast pure
       exploration via Frank–Wolfe": a few conditional-gradient steps per update, not an exact
       solve, keep the allocation tracking w*(θ̂)). ``"auto"`` (default) is ``"warm"`` for more
       than :data:`~bandit_envs.theory.design.POLISH_MAX_ARMS` arms, where a certified solve
       needs the interior-point finish (0.3–0.4 s at K = 1000, h = 20), and ``"certified"``
       otherwise, where it is already cheap.

    **Estimation**: least squares in the coordinates of the span of the arms
    (:func:`bandit_envs.theory.linalg.reduce_features`); P = Z A_t⁻¹ (whose row k is A_t⁻¹z_k, the
    vector of the Sherman–Morrison update) and the leverages z_kᵀA_t⁻¹z_k are updated by
    Sherman–Morrison in O(K h) per pull, and recomputed exactly every 1000 pulls. The update, the
    means, the stopping statistics and the C-tracking arm are compiled
    (:mod:`agents.common.kernels.track_and_stop`): one kernel call per observation, one per
    selection.

    **Stopping** (fixed confidence, J&P §3.3): stop as soon as the GLR statistic
    Z(t) = min_{x≠x̂} Δ̂(x̂, x)²/(2σ²‖x̂ − x‖²_{A_t⁻¹})
    (:func:`bandit_envs.theory.thresholds.glr_from_norms`, the statistic of
    :func:`~bandit_envs.theory.thresholds.glr_best_arm`) reaches β(t, δ):

    * ``threshold="proven"`` (default): β = (1 + η/λ_min(A_t))(log(1/δ) + ½ log det(I + A_t/η))
      (:func:`bandit_envs.theory.thresholds.self_normalized_threshold`): δ-correct for any sampling
      rule and σ-sub-Gaussian noise, by Abbasi-Yadkori et al. (2011, Thm. 1), as in J&P §3.3.
      log det(I + A_t/η) is updated in O(h²) per pull by the matrix determinant lemma.
    * ``threshold="heuristic"``: β = log((1 + log t)/δ)
      (:func:`bandit_envs.theory.thresholds.loglog_heuristic_threshold`). **Heuristic, not δ-correct
      in theory** (the usual choice in experiments; much closer to T*·log(1/δ)).
    * a number b > 0: β ≡ b. **Heuristic**, for calibration studies.

    The full O(K h) statistic is skipped when one alternative already certifies that the test
    fails: Z(t) is a minimum over x ≠ x̂, so the term of the last minimiser w bounds it from
    above, in O(h); when that bound is below β (for the proven threshold: below its factor-1
    lower bound), the exact test would fail too, and nothing else changes (an exact
    certificate, not a lazy test: the agent stops at the same pull, and :attr:`statistic`
    computes Z(t) when read).

    The default is the proven threshold so that, like every zoo agent at its defaults, the agent
    is δ-correct; ``threshold="heuristic"`` is one keyword away.

    **Fixed budget**: the same sampling rule (it does not depend on δ) until the budget is spent;
    the answer is the least-squares best arm.

    Args:
        threshold: ``"proven"``, ``"heuristic"`` or a number b > 0 (see above).
        tracking: ``"C"`` (cumulative tracking, default) or ``"D"`` (direct tracking).
        forced: ``"spanning"`` (J&P's spanning set, default) or ``"g_optimal"``.
        exploration_constant: c ≥ 0 in f(t) = c√t, or ``None`` for λ_min(Σ_{𝒜₀} a aᵀ)/√r.
            Forced pulls also happen, whatever c, while A_t is singular.
        reg: η > 0 of the proven threshold (fixed in advance), in units of max‖x‖² rounded
            to a power of two (:func:`bandit_envs.theory.linalg.ridge_unit`; exactly η on
            unit-norm arms).
        recompute_ratio: γ ≥ 0 of the geometric recomputation schedule of w*.
        design_tol: relative duality-gap tolerance of each w* solve, in (0, 1).
        design_max_iter: cap on the Frank–Wolfe iterations of each (warm-started) w* solve, or
            ``None`` for the solver's default (:data:`WARM_ITERATIONS` for a warm re-solve);
            certified solves of small problems are then finished by the solver's SLSQP polish,
            which is much faster than long Frank–Wolfe runs (see
            :func:`bandit_envs.theory.design.transductive_design`).
        solver: ``"auto"`` (default), ``"certified"`` (every re-solve certified; the behaviour
            before warm re-solves existed) or ``"warm"`` (see *Warm re-solves* above).

    """

    card = AgentCard(
        summary="Track-and-Stop: C-tracking of the optimal allocation w*(theta_hat), recomputed "
        "lazily, with forced exploration; GLR stopping with a proven self-normalised threshold "
        "(default) or the log((1 + log t)/delta) heuristic",
        paper="Jedra & Proutiere, Optimal Best-arm Identification in Linear Bandits, NeurIPS "
        "2020, Sec. 3 (sampling, lazy updates, stopping)",
        heuristics=(
            Heuristic(
                "threshold",
                lambda v: v == "heuristic" or is_number(v),
                "GLR threshold log((1 + log t)/delta) or a constant",
            ),
        ),
    )

    #: β here; :class:`~agents.eps_good.lazy_tts.LazyTTS` keeps its threshold τ (or None) under
    #: this name and β under ``glr_threshold`` (see :attr:`_beta_param`).
    threshold: str | float | None

    capabilities = AgentCapabilities(
        tasks=frozenset({"best_arm"}),
        settings=frozenset({"fixed_confidence", "fixed_budget"}),
        structures=frozenset({"linear"}),
        batch=False,
    )

    parameters = {
        "threshold": Choice(*THRESHOLDS) | Real(gt=0),
        **TRACKING_PARAMETERS,
    }

    def __init__(
        self,
        threshold: str | float = "proven",
        tracking: str = "C",
        forced: str = "spanning",
        exploration_constant: float | None = None,
        reg: float = 1.0,
        recompute_ratio: float = 0.1,
        design_tol: float = 1e-2,
        design_max_iter: int | None = None,
        solver: str = "auto",
    ) -> None:
        self.threshold = threshold
        self.tracking = tracking
        self.forced = forced
        self.exploration_constant = exploration_constant
        self.reg = reg
        self.recompute_ratio = recompute_ratio
        self.design_tol = design_tol
        self.design_max_iter = design_max_iter
        self.solver = solver

    # ------------------------------------------------------------------ validation and state

    #: the name of the hyper-parameter that holds the stopping threshold β (a subclass whose
    #: ``threshold`` means something else, e.g. :class:`agents.eps_good.lazy_tts.LazyTTS`,
    #: renames it).
    _beta_param: str = "threshold"

    @property
    def _beta_choice(self) -> str | float:
        """The stopping-threshold choice: ``"proven"``, ``"heuristic"`` or a number."""
        return getattr(self, self._beta_param)

    def _on_reset(self, spec: ProblemSpec) -> None:
        features = np.eye(spec.n_arms) if spec.features is None else spec.features
        z, _ = reduce_features(features)
        self._z = np.ascontiguousarray(z)
        k, r = z.shape
        self._r = r
        noise = 1.0 if spec.noise_std is None else spec.noise_std
        self._sigma = float(np.max(noise))
        self._delta = spec.delta
        self._span = spanning_subset(z)
        lam0 = float(np.linalg.eigvalsh(z[self._span].T @ z[self._span])[0]) if r else 0.0
        self._c = (
            lam0 / math.sqrt(r)
            if self.exploration_constant is None
            else float(self.exploration_constant)
        )
        w_span = np.zeros(k)
        w_span[self._span] = 1.0 / max(len(self._span), 1)
        self._w_span = w_span
        if self.forced == "g_optimal" and r > 0:
            wg = g_optimal_design(z, tol=1e-3).weights
            self._w_forced = wg / wg.sum()
        else:
            self._w_forced = w_span
        self._forced_counts = np.zeros(k)
        self._n_forced = 0
        # least squares state (reduced coordinates)
        self._b = np.zeros(r)
        self._ainv: np.ndarray | None = None  # A⁻¹ at the last exact refresh (None: singular)
        self._p: np.ndarray | None = None  # Z A^-1, shape (K, r)
        self._q: np.ndarray | None = None  # leverages z_k^T A^-1 z_k
        self._since_refresh = 0
        self._buf = np.empty(k)
        self._mu = np.empty(k)  # μ̂ = P b after the last pull (compiled update)
        self._witness = -1  # the last minimiser x of the GLR statistic (best-arm task)
        self._exact_glr = type(self)._glr is LinearTrackAndStop._glr
        self._lmin = 0.0  # lower bound of lambda_min(A_t)
        self._lmin_t = -1
        # proven threshold: (A + reg I)^-1 and log det(I + A/reg)
        self._proven = self._beta_choice == "proven"
        self._reg = float(self.reg) * ridge_unit(self._z)  # in units of max‖x‖² (exact)
        # (A + ηI)⁻¹ for the proven threshold; empty (r = 0 rows) without it
        self._minv = np.eye(r) / self._reg if self._proven else np.empty((0, 0))
        self._logdet = 0.0
        # allocation state
        self._warm = self.solver == "warm" or (self.solver == "auto" and k > POLISH_MAX_ARMS)
        self._w: np.ndarray | None = None
        self._cum = np.zeros(k)
        self._last_solve = 0
        self._next_solve = 0
        self._n_solves = 0
        # statistics
        self._key: object = None  # the empirical answer's key (:meth:`_answer_key`)
        self._solve_key: object = None
        self._z_stat = 0.0
        self._beta = math.inf
        self._stop = False
        self._chosen_t, self._chosen = -1, 0

    # ------------------------------------------------------------------ least squares

    def _gram(self) -> np.ndarray:
        """A_t = Σ_k N_k z_k z_kᵀ from the pull counts (O(K r²); only when needed)."""
        return (self._z.T * self.counts) @ self._z

    def _refresh(self) -> None:
        """Exact inverse, P = Z A⁻¹ and leverages (O(K r² + r³)); every 1000 updates."""
        gram = self._gram()
        evals, evecs = np.linalg.eigh(gram)
        if evals[0] <= 1e-12 * max(evals[-1], 1e-300):
            self._ainv = self._p = self._q = None
            return
        self._ainv = (evecs / evals) @ evecs.T
        self._p = self._z @ self._ainv
        self._q = np.einsum("ij,ij->i", self._p, self._z)
        self._since_refresh = 0
        self._lmin, self._lmin_t = max(self._lmin, float(evals[0])), self.t
        if self._proven:  # (A + ηI)⁻¹ and log det(I + A/η) from the same eigen-decomposition
            self._minv = (evecs / (evals + self._reg)) @ evecs.T
            self._logdet = float(np.sum(np.log1p(np.maximum(evals, 0.0) / self._reg)))

    def _on_observe(self, arm: int, outcome: np.ndarray) -> None:
        """One compiled call per pull (:func:`agents.common.kernels.track_and_stop.tas_observe`)."""
        invertible = self._ainv is not None
        refresh = not invertible or self._since_refresh + 1 >= _REFRESH_EVERY
        p, q = (self._p, self._q) if invertible else (self._z, self._buf)  # unused when singular
        assert p is not None and q is not None  # set with A⁻¹
        den, best, upper = tas_kernels.tas_observe(
            self._z,
            p,
            q,
            self._b,
            self._minv,
            self._mu,
            arm,
            float(outcome[0]),
            invertible,
            not refresh,
            self._witness if self._exact_glr else -1,
            self._sigma,
        )
        if self._proven:
            self._logdet += math.log(den)
        if invertible:
            self._since_refresh += 1
        if refresh:
            self._refresh()  # every 1000 updates, and while the design is singular
            if self._p is None:
                return
            best = tas_kernels.tas_means(self._p, self._b, self._mu)
        means = self._mu
        self._key = self._answer_key(means, best)
        if self.spec.fixed_budget:
            return
        if self._exact_glr and self._glr_certainly_below(upper):
            self._stop = False  # the exact test would fail too (see _glr_certainly_below)
            return
        self._z_stat = self._glr(means, best)
        self._stop = self._z_stat >= self._threshold_value()

    # ------------------------------------------------------------------ task hooks
    # Best-arm identification here; :class:`agents.eps_good.lazy_tts.LazyTTS` overrides them for the
    # thresholding / all-ε-good tasks (same estimation, forcing, tracking, lazy solves, β).

    def _answer_key(self, means: np.ndarray, best: int) -> object:
        """A comparable key of the empirical answer (here x̂ = ``best``, the argmax of μ̂)."""
        return best

    def _glr(self, means: np.ndarray, best: int) -> float:
        """Z(t) = min_{x≠x̂} Δ̂(x̂, x)²/(2σ²‖x̂ − x‖²_{A_t⁻¹}), O(K h) from P and q (compiled).

        ``best`` is x̂ = argmax μ̂; the minimiser x is remembered as the next witness.
        """
        p, q = self._p, self._q
        assert p is not None and q is not None  # the GLR is computed once A is invertible
        z_stat, witness = tas_kernels.tas_glr(self._z, p, q, means, best, self._sigma)
        if witness >= 0:
            self._witness = witness
        return z_stat

    def _glr_certainly_below(self, upper: float) -> bool:
        """Whether Z(t) < β(t, δ) is certain from one alternative (O(h), exact; best arm).

        Z(t) is a minimum over the alternatives x ≠ x̂, so the term of any one x bounds it from
        above: with the last minimiser w (an exact certificate, not a lazy test),
        Z(t) ≤ Δ̂(x̂, w)²/(2σ²‖x̂ − w‖²_{A_t⁻¹}) = ``upper`` (computed by the compiled update
        with a relative margin of 1e-9 for round-off; NaN when w bounds nothing). When that
        bound is below β — for the proven threshold, below its lower bound
        log(1/δ) + ½ log det(I + A_t/η), under which the exact test takes the branch without
        side effects (no λ_min refresh) — the exact test fails too, so it is skipped: the
        decisions are those of the exact test at every pull. β is then computed as the exact
        test does, and :attr:`statistic` computes Z(t) when read.
        """
        if math.isnan(upper):
            return False
        if not self._proven:
            beta = self._threshold_value()
            if upper < beta:
                self._z_stat = math.nan  # computed on demand by :attr:`statistic`
                return True
            return False
        delta = self._delta
        assert delta is not None  # stopping tests happen in fixed confidence only
        base = math.log(1.0 / delta) + 0.5 * self._logdet
        if upper < base:
            self._beta = self_normalized_threshold(
                self._logdet, max(self._lmin, 1e-300), delta, self._reg
            )
            self._z_stat = math.nan
            return True
        return False

    def _design_targets(self, means: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Targets y_j and weights c_j of the allocation min_w max_j c_j‖y_j‖²_{A(w)⁻¹}.

        Best arm: y = x̂ − x, c = 1/Δ̂_x² for every x ≠ x̂ (gaps floored at 1e-9·max|μ̂|).
        """
        best = int(np.argmax(means))
        others = np.flatnonzero(np.arange(self.n_arms) != best)
        scale = max(1.0, float(np.max(np.abs(means))))
        gaps = np.maximum(means[best] - means[others], 1e-9 * scale)
        return self._z[best] - self._z[others], 1.0 / gaps**2

    def _answer(self, means: np.ndarray) -> Answer:
        """The answer for estimated means (here {argmax_k μ̂_k}, lowest index on ties)."""
        return frozenset({int(np.argmax(means))})

    def _trivial(self) -> bool:
        """Whether the answer is known without any pull (here: a single arm)."""
        return self.n_arms == 1

    def _means(self) -> np.ndarray:
        """Least-squares means x_kᵀθ̂ (projected on the span of the pulled arms if needed)."""
        if self._ainv is not None:
            return self._least_squares_means()
        theta = projected_least_squares(self._z, self.counts, self.sums[:, 0])
        return self._z @ theta

    def _least_squares_means(self) -> np.ndarray:
        """x_kᵀθ̂ = (P b)_k, once A is invertible (a new array)."""
        p = self._p
        assert p is not None  # set with A⁻¹
        means = np.empty(self.n_arms)
        tas_kernels.tas_means(p, self._b, means)
        return means

    def _threshold_value(self) -> float:
        """β(t, δ) of the chosen preset; refreshes λ_min lazily for the proven one."""
        delta = self._delta
        assert delta is not None  # stopping tests happen in fixed confidence only
        if not self._proven:
            if isinstance(self._beta_choice, str):
                self._beta = loglog_heuristic_threshold(self.t, delta)
            else:
                self._beta = float(self._beta_choice)
            return self._beta
        base = math.log(1.0 / delta) + 0.5 * self._logdet
        if self._z_stat < base:  # fails even with the factor 1: no need for λ_min
            self._beta = self_normalized_threshold(
                self._logdet, max(self._lmin, 1e-300), delta, self._reg
            )
            return self._beta
        beta = self_normalized_threshold(self._logdet, max(self._lmin, 1e-300), delta, self._reg)
        if self._z_stat < beta and self.t - self._lmin_t >= max(1, self.t // 1000):
            self._update_lmin()
            beta = self_normalized_threshold(self._logdet, self._lmin, delta, self._reg)
        self._beta = beta
        return beta

    def _update_lmin(self) -> None:
        _, lmin = self_normalized_terms(self._gram(), self._reg)
        self._lmin = max(self._lmin, lmin)
        self._lmin_t = self.t

    # ------------------------------------------------------------------ sampling

    def _needs_forcing(self) -> bool:
        if self._ainv is None:
            return True
        f = self._c * math.sqrt(self.t + 1)
        if self._lmin >= f:
            return False
        if self._lmin_t != self.t:
            self._update_lmin()
        return self._lmin < f

    def _forced_arm(self) -> int:
        if self.forced == "spanning":
            arm = int(self._span[self._n_forced % len(self._span)])
        else:
            deficit = (self._n_forced + 1) * self._w_forced - self._forced_counts
            deficit[self._w_forced <= 0] = -np.inf
            arm = int(np.argmax(deficit))
        self._n_forced += 1
        self._forced_counts[arm] += 1
        return arm

    def _solve_due(self) -> bool:
        t = self.t
        if self._w is None or t >= self._next_solve:
            return True
        return self._key != self._solve_key and t - self._last_solve >= math.isqrt(t) + 1

    def _solve(self) -> None:
        """w*(θ̂_t) of :meth:`_design_targets`, warm-started (J&P §3.2, lazy updates)."""
        means = self._least_squares_means()
        targets, weights = self._design_targets(means)
        init = None if self._w is None else 0.999 * self._w + 0.001 * self._w_span
        kw: dict[str, Any] = (
            {} if self.design_max_iter is None else {"max_iter": int(self.design_max_iter)}
        )
        if init is not None and self._warm:
            kw = {"max_iter": int(self.design_max_iter or WARM_ITERATIONS), "finish": False}
        try:
            res = transductive_design(
                self._z, targets, weights, tol=self.design_tol, init=init, **kw
            )
        except ValueError:
            res = transductive_design(self._z, targets, weights, tol=self.design_tol, **kw)
        w = np.maximum(res.weights, 0.0)
        self._w = w / w.sum()
        self._n_solves += 1
        t = self.t
        self._solve_key = self._answer_key(means, int(np.argmax(means)))
        self._last_solve = t
        self._next_solve = max(t + 1, math.ceil((1.0 + self.recompute_ratio) * t))

    def select(self) -> int | None:
        """The next arm (forced exploration or tracking), or None once Z(t) ≥ β(t, δ)."""
        self._require_reset("select")
        if self._stop and self.spec.fixed_confidence:
            return None
        if self._trivial():
            return None if self.spec.fixed_confidence else 0
        if self._chosen_t == self.t:  # select() twice without observe(): same answer
            return self._chosen
        if self._ainv is not None and self._solve_due():
            self._solve()
        tracked = -1
        if self._w is not None:  # Σ_s w(s) and the C-tracking arm, in one compiled pass
            tracked = tas_kernels.tas_track(self._cum, self._w, self.counts)
        if self._needs_forcing():
            arm = self._forced_arm()
        elif self.tracking == "C":
            arm = tracked
        else:
            w = self._w
            assert w is not None  # solved as soon as A is invertible, before any tracking
            arm = int(np.argmax((self.t + 1) * w - self.counts))
        self._chosen_t, self._chosen = self.t, arm
        return arm

    def recommend(self) -> Answer:
        """argmax_k x_kᵀθ̂ (least squares; projected on the span of the pulled arms if needed)."""
        self._require_reset("recommend")
        return self._answer(self._means())

    # ------------------------------------------------------------------ diagnostics

    @property
    def allocation(self) -> np.ndarray | None:
        """The allocation w*(θ̂) currently tracked (``None`` before the first solve)."""
        w = getattr(self, "_w", None)
        return None if w is None else w.copy()

    @property
    def statistic(self) -> tuple[float, float]:
        """(Z(t), β(t, δ)) at the last stopping test (fixed confidence)."""
        z_stat = getattr(self, "_z_stat", 0.0)
        if math.isnan(z_stat):  # the last test was certified by one alternative: compute Z(t)
            means = self._least_squares_means()
            z_stat = self._z_stat = self._glr(means, int(np.argmax(means)))
        return z_stat, getattr(self, "_beta", math.inf)

    @property
    def design_solves(self) -> int:
        """How many times w*(θ̂) was computed in this episode."""
        return getattr(self, "_n_solves", 0)

    @property
    def forced_pulls(self) -> int:
        """How many pulls were forced-exploration pulls in this episode."""
        return getattr(self, "_n_forced", 0)
