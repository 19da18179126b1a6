"""``LinGapE``: gap-based fully adaptive exploration (Xu, Honda & Sugiyama, AISTATS 2018).

"A Fully Adaptive Algorithm for Pure Exploration in Linear Bandits". Fixed confidence; the
two arm-selection rules of the paper (the greedy rule, which the authors' experiments use, and
the ratio rule, which the analysis covers) and three confidence widths (the paper's
self-normalised bound, an S-free self-normalised bound for least squares, and a heuristic).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
from scipy.linalg.blas import dger
from scipy.optimize import OptimizeResult, linprog

from agents.base import AgentCard, BaseAgent, Heuristic
from agents.common.design_cache import DESIGNS, reduced_coordinates
from agents.common.kernels import lingape as lingape_kernels
from agents.common.params import Choice, Is, Real, Rule
from bandit_envs.core.problem import Answer, ProblemSpec
from bandit_envs.core.protocols import AgentCapabilities

__all__ = ["LinGapE", "single_direction_design", "single_direction_design_full"]

SELECTIONS = ("greedy", "ratio")
CONFIDENCES = ("heuristic", "self_normalized", "self_normalized_ols")

#: ``"self_normalized"`` needs the bound S >= ‖θ‖ of its bias term √λ·S.
THETA_BOUND_RULE = Rule(
    ("confidence", "theta_bound"),
    lambda confidence, bound: confidence != "self_normalized" or bound is not None,
    "theta_bound (a bound S >= ||theta||) must be given when confidence='self_normalized'",
)

#: rank-one updates between two exact re-inversions from the pull counts (stops round-off drift).
REFRESH_EVERY = 1024

#: columns G[:, s] = X A⁻¹ x_s kept, caught up lazily when used (the column state; all K when
#: K ≤ max(2r, 32)); an unused kept column costs nothing per pull.
MAX_CACHE_COLUMNS = 32

#: the updates logged for the lazy columns; A⁻¹ takes them in when the log is full.
LOGGED_UPDATES = 32

#: ``LinGapE._next`` when no compiled decision is pending (first round, NumPy representations)
_OFF = -4
_REFRESH_DUE = lingape_kernels.REFRESH_DUE

_CONFIDENCE_CODES = {
    "heuristic": lingape_kernels.HEURISTIC,
    "self_normalized": lingape_kernels.SELF_NORMALIZED,
    "self_normalized_ols": lingape_kernels.SELF_NORMALIZED_OLS,
}


def _rank_one_update(alpha: float, x: np.ndarray, y: np.ndarray, a: np.ndarray) -> None:
    """In place, ``a += alpha·x yᵀ`` (``a`` Fortran-ordered float64): one BLAS call, no copy."""
    if dger(alpha, x, y, a=a, overwrite_a=1) is not a:  # pragma: no cover - BLAS contract
        raise RuntimeError("LinGapE: BLAS dger did not update its matrix in place.")


class _Packed:
    """An attribute of the decision that lives in the packed state's buffers when it is on.

    LinGapE's own decision rule runs on the compiled packed state (``_f``, ``_n``), which holds
    i_t, j_t, B(t) and log det A; subclasses on the NumPy representations keep them as plain
    attributes. Reads and writes go to the buffers while ``_columns`` is set.
    """

    def __init__(self, buffer: str, slot: int, cast: type) -> None:
        self.buffer, self.slot, self.cast = buffer, slot, cast

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name
        self.key = name + "_plain"

    def __get__(self, obj: object, owner: type | None = None) -> Any:
        if obj is None:
            return self
        state = obj.__dict__
        if state.get("_columns", False):
            return self.cast(state[self.buffer][self.slot])
        try:
            return state[self.key]
        except KeyError:
            raise AttributeError(self.name) from None

    def __set__(self, obj: object, value: object) -> None:
        state = obj.__dict__
        if state.get("_columns", False):
            state[self.buffer][self.slot] = value
        else:
            state[self.key] = value


def _l1_lp(z: np.ndarray, y: np.ndarray) -> OptimizeResult:
    """The LP min ‖c‖₁ subject to zᵀc = y, as the LP over c = c⁺ − c⁻ ≥ 0 (HiGHS)."""
    k = z.shape[0]
    return linprog(
        np.ones(2 * k), A_eq=np.hstack([z.T, -z.T]), b_eq=y, bounds=(0, None), method="highs"
    )


def single_direction_design(z: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The optimal design for one direction: argmin_w ‖y‖²_{A(w)⁻¹} (Xu et al. 2018, ratio rule).

    With c* = argmin ‖c‖₁ subject to Σ_a c_a z_a = y (a linear program), the optimum is
    w*_a = |c*_a| / ‖c*‖₁ and min_w ‖y‖²_{A(w)⁻¹} = ‖c*‖₁² (the "p*" of the paper's ratio rule;
    Fiez et al.'s public LinGapE code solves the same LP).

    For K > max(64, 20r) the LP is solved by column generation, which is exact: the LP on a
    subset S of arms (first the 4r arms with the largest |z_aᵀy|) gives c_S and the dual λ
    (zᵀ_S λ ∈ [−1, 1]); if every arm has |z_aᵀλ| ≤ 1 (one product with z), λ is dual feasible
    for the whole LP and c_S, extended by zeros, is optimal (same objective as the dual);
    otherwise the most violating arms join S (up to 4r per round) and the LP is solved again.
    Each round costs an LP over O(r) arms instead of K; when the minimiser is unique, which is
    the generic case, it is the same design.

    Args:
        z: arm coordinates, shape (K, r).
        y: the direction, shape (r,), in the span of the arms.

    Returns:
        The design, shape (K,), read-only.
    """
    k, r = z.shape
    if k <= max(64, 20 * r):
        res = _l1_lp(z, y)
        if res.status != 0:
            raise RuntimeError(f"single_direction_design: the LP failed ({res.message}).")
        c = np.abs(res.x[:k] - res.x[k:])
    else:
        score = np.abs(z @ y)
        size = 4 * r
        subset = np.sort(np.argpartition(-score, size - 1)[:size])
        while True:
            res = _l1_lp(z[subset], y)
            if res.status != 0:  # y is not in the span of the subset: widen it
                size *= 2
                if size >= k:
                    return single_direction_design_full(z, y)
                subset = np.sort(np.argpartition(-score, size - 1)[:size])
                continue
            excess = np.abs(z @ res.eqlin.marginals)
            excess[subset] = 0.0
            worst = np.flatnonzero(excess > 1.0 + 1e-9)
            if worst.size == 0:
                break
            if worst.size > 4 * r:
                worst = worst[np.argpartition(-excess[worst], 4 * r - 1)[: 4 * r]]
            subset = np.union1d(subset, worst)
        n = subset.size
        c = np.zeros(k)
        c[subset] = np.abs(res.x[:n] - res.x[n:])
    c[c <= 1e-12 * c.max()] = 0.0
    w = c / c.sum()
    w.flags.writeable = False
    return w


def single_direction_design_full(z: np.ndarray, y: np.ndarray) -> np.ndarray:
    """:func:`single_direction_design` by one LP over all K arms (reference and fallback).

    Args:
        z: arm coordinates, shape (K, r).
        y: the direction, shape (r,), in the span of the arms.

    Returns:
        The design, shape (K,), read-only.
    """
    k = z.shape[0]
    res = _l1_lp(z, y)
    if res.status != 0:
        raise RuntimeError(f"single_direction_design: the LP failed ({res.message}).")
    c = np.abs(res.x[:k] - res.x[k:])
    c[c <= 1e-12 * c.max()] = 0.0
    w = c / c.sum()
    w.flags.writeable = False
    return w


class LinGapE(BaseAgent):
    """LinGapE (Xu, Honda & Sugiyama 2018), fixed confidence, with O(K·r + r²) work per pull.

    * **Initialisation**: pull every arm once (the paper's first K rounds).
    * **Directions** (the paper's LinGapE loop): i_t = argmax_i x_iᵀθ̂_t, the empirical best
      arm, then j_t = argmax_{j≠i_t} [Δ̂_t(j, i_t) + β_t(i_t, j)] with
      Δ̂_t(j, i) = (x_j − x_i)ᵀθ̂_t and β_t(i, j) = C_t ‖x_i − x_j‖_{A_t⁻¹}; the gap index is
      B(t) = Δ̂_t(j_t, i_t) + β_t(i_t, j_t).
    * **Stopping**: when B(t) ≤ ε (``epsilon``; 0 for exact best-arm identification), recommend
      i_t. On the event of the confidence bound, every j has μ_j − μ_{i_t} ≤ B(t) ≤ ε.
    * **Sampling** for y_t = x_{i_t} − x_{j_t}:

      - ``"greedy"`` (the variant of the authors' experiments): the arm minimising
        ‖y_t‖²_{(A_t + x_a x_aᵀ)⁻¹} = ‖y_t‖²_{A_t⁻¹} − (y_tᵀA_t⁻¹x_a)²/(1 + ‖x_a‖²_{A_t⁻¹}),
        i.e. argmax_a (y_tᵀA_t⁻¹x_a)² / (1 + ‖x_a‖²_{A_t⁻¹});
      - ``"ratio"`` (the rule the sample-complexity analysis covers): with p* the optimal
        design for the single direction y_t (:func:`single_direction_design`, an L1 linear
        program), pull argmin_{a: p*_a > 0} T_a(t)/p*_a, T_a(t) the pulls of arm a so far.

    * **Confidence width** C_t (σ = ``spec.noise_std``, r = rank of the features):

      - ``"self_normalized"`` (the paper's bound, from Abbasi-Yadkori, Pál & Szepesvári 2011,
        Thm 2; proven): ridge estimate θ̂ = (λI + Σ xxᵀ)⁻¹Σ x y with λ = ``ridge`` and
        C_t = σ √(2 log(det(A_t)^{1/2} λ^{-r/2} / δ)) + √λ S, which needs S = ``theta_bound`` ≥ ‖θ‖.
        It holds for all directions at once, so no union over the K² pairs is needed (Fiez et
        al.'s public LinGapE code puts a K² inside the log; that only widens the bound).
      - ``"self_normalized_ols"`` (proven, no S needed): least squares (λ = 0) after the first
        round, whose Gram matrix A₀ = Σ_k x_k x_kᵀ is known in advance. Abbasi-Yadkori et al.
        (2011) Thm 1 with the regulariser V = c·A₀ (c = ``ridge``) bounds the noise sum S_t by
        ‖S_t‖²_{(V+A_t)⁻¹} ≤ 2σ² log(det(V + A_t)^{1/2} det(V)^{-1/2}/δ) for all t. Since
        A_t ⪰ A₀, V + A_t ⪯ (1 + c)A_t, hence |yᵀ(θ̂ − θ)| ≤ ‖y‖_{A_t⁻¹}‖S_t‖_{A_t⁻¹} ≤
        ‖y‖_{A_t⁻¹} C_t with C_t² = 2σ²(1 + c)[(r/2) log((1 + c)/c) + ½ log(det A_t/det A₀)
        + log(1/δ)].
      - ``"heuristic"`` (default; **not proven δ-correct**): least squares and
        C_t = σ √(2 log((1 + log t)/δ)), the usual GLR-style threshold of the linear BAI
        literature. B(t) ≤ 0 is then the GLR test min_j Δ̂²/(2σ²‖x_i − x_j‖²_{A⁻¹}) ≥
        log((1 + log t)/δ). Much smaller than the proven widths, hence far fewer samples;
        its empirical error rate is checked in the tests.

    **Why one pass over the arms is exact.** i_t depends on θ̂_t only, not on the widths, and
    B(t) is the maximum over j of an index with that fixed i_t; so the maximum over K² pairs
    never arises: B(t) and j_t come from one vectorised pass over the K arms with
    ‖x_j − x_i‖²_{A⁻¹} = d_j + d_i − 2 g_j, where d = diag(X A⁻¹ Xᵀ) and g = X A⁻¹ x_i.

    **Per-pull cost** O(K·r + r²), no inverse and no Python loop over arms. A pull of x_a with
    reward y is a Sherman–Morrison step: with g = X A_t⁻¹x_a and c = 1/(1 + d_a),
    d_k = ‖x_k‖²_{A⁻¹}, μ̂ += c (y − μ̂_a) g (the recursive least-squares update), d -= c g∘g and
    log det += log(1 + d_a). A decision needs μ̂, d and the columns G[:, i] and G[:, j] of
    G = X A_t⁻¹ Xᵀ (g is column a). The state that provides them depends on the size:

    * LinGapE's own decision rule (the column state, compiled: :mod:`agents.common.kernels`):
      μ̂ and 1 + d, always current, and the columns G[:, s] of up to 32 recently used arms (all
      K when K ≤ max(2r, 32)) with A⁻¹x_s, each brought up to date only when a decision reads
      it, through a log of the last 32 Sherman–Morrison terms (O(K) per missed update; from
      A⁻¹ in O(K r) past min(32, r) missed updates; A⁻¹ takes the logged terms in when the log
      is full or a column is recomputed). The whole state, with the pull counts and sums,
      lives in two flat buffers (:func:`agents.common.kernels.lingape.lingape_pack`), and a
      pull is one kernel call on them: the update, log det A, the width C_t, the decision
      (index pass, stopping test, greedy or ratio rule); ``select`` returns the arm it chose.
      Python work is left for the ratio rule's LP (a new pair) and the exact refresh;
    * subclasses that override the decision in NumPy (LinGIFA, :mod:`agents.eps_good.top_m`;
      m-LinGapE decides on the column state): G itself when
      K ≤ max(2r, 32) (g is a row of G, d its diagonal), else W = X A_t⁻¹ (rows A_t⁻¹x_k):
      W -= c g (A_t⁻¹x_a)ᵀ, O(K r), and g = X W_a (NumPy/BLAS).

    Everything is recomputed exactly from the pull counts and sums every 1024 pulls (round-off
    drift). The ratio rule's LP is solved once per pair (i, j) and memoised; for large K it is
    solved by exact column generation (:func:`single_direction_design`).

    Args:
        selection: ``"greedy"`` or ``"ratio"``.
        confidence: ``"heuristic"``, ``"self_normalized"`` or ``"self_normalized_ols"``.
        ridge: λ > 0 of ``"self_normalized"``, and c > 0 of ``"self_normalized_ols"``.
        theta_bound: S ≥ ‖θ‖₂, required by ``"self_normalized"`` (ignored otherwise).
        epsilon: ε ≥ 0, the stopping tolerance (0: exact best arm).

    """

    card = AgentCard(
        summary="Gap-based fully adaptive sampling of the direction between the empirical best arm "
        "and its strongest challenger (greedy or ratio rule); stops when the gap index is at "
        "most epsilon. Heuristic (default) or self-normalised confidence widths",
        paper="Xu, Honda & Sugiyama, A Fully Adaptive Algorithm for Pure Exploration in Linear "
        "Bandits, AISTATS 2018 (LinGapE)",
        heuristics=(
            Heuristic(
                "confidence",
                lambda v: v == "heuristic",
                "width sigma sqrt(2 log((1 + log t)/delta)), the GLR threshold of the "
                "experiments, not proven (default)",
            ),
        ),
    )

    capabilities = AgentCapabilities(
        tasks=frozenset({"best_arm"}),
        settings=frozenset({"fixed_confidence"}),
        structures=frozenset({"linear"}),
    )

    parameters = {
        "selection": Choice(*SELECTIONS),
        "confidence": Choice(*CONFIDENCES),
        "ridge": Real(gt=0),
        "theta_bound": Is(None) | Real(ge=0),
        "epsilon": Real(ge=0),
    }
    parameter_rules = (THETA_BOUND_RULE,)

    # i_t, j_t, B(t) and log det A: in the packed state's buffers while it is on
    _best = _Packed("_n", lingape_kernels.N_BEST, int)
    _challenger = _Packed("_n", lingape_kernels.N_CHALLENGER, int)
    _index = _Packed("_f", lingape_kernels.F_INDEX, float)
    _logdet = _Packed("_f", lingape_kernels.F_LOGDET, float)
    #: the arm the last compiled decision chose, or its code (STOP, NEED_DESIGN), or _OFF
    _next = _OFF
    #: a subclass whose own decision is compiled on the column state (m-LinGapE) sets this
    _column_decision = False

    def __init__(
        self,
        selection: str = "greedy",
        confidence: str = "heuristic",
        ridge: float = 1.0,
        theta_bound: float | None = None,
        epsilon: float = 0.0,
    ) -> None:
        self.selection = selection
        self.confidence = confidence
        self.ridge = ridge
        self.theta_bound = theta_bound
        self.epsilon = epsilon

    # ------------------------------------------------------------------ episode set-up

    def _on_reset(self, spec: ProblemSpec) -> None:
        self._columns = False  # the packed state's attributes (_Packed) are plain until _start
        self._next = _OFF
        self._step: Callable[..., int] | None = None  # the compiled step, once the state is on
        self._logdet0 = 0.0
        self._ridge = float(self.ridge)
        self._eps = float(self.epsilon)
        self._greedy = self.selection == "greedy"
        self._s = 0.0
        if self.confidence == "self_normalized":
            assert self.theta_bound is not None  # THETA_BOUND_RULE
            self._s = float(self.theta_bound)
        k = spec.n_arms
        features = np.eye(k) if spec.features is None else np.asarray(spec.features, float)
        self._z, self._zkey = reduced_coordinates(features)
        self._r = self._z.shape[1]
        noise = 1.0 if spec.noise_std is None else spec.noise_std
        self._sigma = float(np.max(noise))
        self._lam = self._ridge if self.confidence == "self_normalized" else 0.0
        self._ready = False
        self._stopped = False
        self._since_refresh = 0
        self._decided_at = -1
        self._best = 0
        self._index = math.inf
        self._pair: tuple[int, int] | None = None

    # ------------------------------------------------------------------ statistics

    def _refresh(self) -> None:
        """Exact state from the pull counts and sums (every representation), and log det A."""
        z = self._z
        gram = (z.T * self.counts) @ z + self._lam * np.eye(self._r)
        inv = np.linalg.inv(gram)
        inv = 0.5 * (inv + inv.T)
        if self._columns:
            self._refresh_columns(inv)
        else:
            q = self._q
            w = z @ inv
            h = self._h
            h[:, :q] = w @ z.T if self._full else w
            h[:, q] = w @ (z.T @ self.sums[:, 0])
            if not self._full:
                self._d[:] = np.einsum("kr,kr->k", w, z)
        self._logdet = float(np.linalg.slogdet(gram)[1])
        self._since_refresh = 0

    def _start(self) -> None:
        """After the first round: allocate the state, log det A₀, and compute it exactly."""
        z, k = self._z, self.n_arms
        # Three representations (see the class docstring): G = X A⁻¹ Xᵀ (K ≤ max(2r, 32)),
        # a few columns of G (LinGapE's own decision rule, larger K), or W = X A⁻¹ (subclasses
        # that override _decide and read W, e.g. agents.eps_good.top_m). The matrices are
        # Fortran-ordered so that BLAS ``dger`` applies the rank-one updates in place.
        self._columns = type(self)._decide is LinGapE._decide or self._column_decision
        self._full = not self._columns and k <= max(2 * self._r, 32)
        if self._columns:
            self._start_columns()
        else:
            # H = [G or W | μ̂]; d = diag(G) = ‖x_k‖²_{A⁻¹}
            self._q = k if self._full else self._r
            self._h = np.zeros((k, self._q + 1), order="F")
            self._means = self._h[:, self._q]
            self._d = np.diagonal(self._h) if self._full else np.zeros(k)
            self._v = np.empty(self._q + 1)
            self._buf = np.empty(k)
            self._buf2 = np.empty(k)
        self._refresh()
        self._logdet0 = float(np.linalg.slogdet(z.T @ z)[1])
        self._ready = True
        if self._columns:  # the first decision; every later one comes with its pull's update
            self._f[lingape_kernels.F_LOGDET0] = self._logdet0
            self._n[lingape_kernels.N_T] = self.t
            self._step = lingape_kernels.lingape_packed_step
            self._decide()

    def _g(self, arm: int) -> np.ndarray:
        """X A⁻¹ x_arm (shape (K,)): a row of G, or X W[arm] (G and W representations)."""
        if self._full:
            return self._h[arm, : self._q]
        return self._z @ self._h[arm, : self._q]

    # ------------------------------------------------------------------ the column state

    def _start_columns(self) -> None:
        """Allocate the packed column state (layout: :mod:`agents.common.kernels.lingape`).

        The pull counts and sums move into its buffers (``counts`` and ``sums`` become views),
        so that a pull is one kernel call on two arrays.
        """
        k, r = self.n_arms, self._r
        kk = lingape_kernels
        self._pmax = k if k <= max(2 * r, MAX_CACHE_COLUMNS) else MAX_CACHE_COLUMNS
        f, n = kk.lingape_pack(k, r, self._pmax, LOGGED_UPDATES)
        counts, sums = self.counts, self.sums
        self._f, self._n = f, n
        self._bind_packed()
        self._state[0][:] = self._z
        self.counts[:] = counts
        self.sums[:] = sums
        n[kk.N_REFRESH] = REFRESH_EVERY
        n[kk.N_CONFIDENCE] = _CONFIDENCE_CODES[self.confidence]
        n[kk.N_GREEDY] = self._greedy
        f[kk.F_SIGMA], f[kk.F_DELTA], f[kk.F_EPS] = self._sigma, self._require_delta(), self._eps
        f[kk.F_LAM], f[kk.F_S], f[kk.F_RIDGE] = self._lam, self._s, self._ridge
        self._columns = True  # from here _best, _challenger, _index, _logdet live in f and n
        self._index = math.inf

    def _bind_packed(self) -> None:
        """The views of the packed buffers ``_f`` and ``_n``.

        Also after a copy or unpickling, which copies every view apart from its buffer.
        """
        kk = lingape_kernels
        views = kk.lingape_unpack(self._f, self._n)
        # the arrays of the column state in the kernels' argument order (all updated in place)
        z, self._m, self._ru, self._ainv, self._glog, self._ulog, self._ints = views[:7]
        self._state = (z, self._m, self._ru, self._ainv, self._glog, self._ulog, self._ints)
        self.counts, self.sums = views[7:]
        self._support_n, self._inv_p_f = kk.lingape_design(self._f, self._n)
        self._e = self._m[:, 0]  # 1 + ‖x_k‖²_{A⁻¹}
        self._means = self._m[:, 1]

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        if state.get("_columns", False):
            self._bind_packed()

    def _refresh_columns(self, inv: np.ndarray) -> None:
        """Exact column state from A⁻¹ = ``inv``, the counts and the sums (O(K r² + r³))."""
        z, m, ru = self._z, self._m, self._ru
        self._ainv[:] = inv
        np.einsum("kr,kr->k", z @ inv, z, out=self._e)
        self._e += 1.0
        ru[:, 0] = inv @ (z.T @ self.sums[:, 0])
        m[:, 1] = z @ ru[:, 0]
        for arm, col in lingape_kernels.lingape_slots(self._ints, self._pmax).items():
            ru[:, col - 1] = inv @ z[arm]
            m[:, col] = z @ ru[:, col - 1]
        lingape_kernels.lingape_mark_current(self._ints, self._pmax)
        self._n[lingape_kernels.N_SINCE] = 0

    def _sync(self) -> None:
        """Fold A⁻¹ and bring every kept column up to date (for inspection only)."""
        lingape_kernels.lingape_sync(*self._state)

    # ------------------------------------------------------------------ decisions

    def _width(self) -> float:
        """C_t of the chosen confidence bound (compiled: ``lingape_kernels.lingape_width``)."""
        return lingape_kernels.lingape_width(
            _CONFIDENCE_CODES[self.confidence], self.t, self._logdet, self._logdet0, self._sigma,
            self._require_delta(), self._r, self._lam, self._s, self._ridge,
        )  # fmt: skip

    def _decide(self) -> None:
        """i_t, j_t and B(t) by one vectorised pass over the arms (see the class docstring)."""
        if self._columns:  # compiled: i, j, B and the arm (or a code) in one pass
            self._next = lingape_kernels.lingape_packed_decide(self._f, self._n)
            self._decided_at = self.t
            return
        means, buf = self._means, self._buf
        i = int(means.argmax())
        d = self._d  # ‖x_j − x_i‖² = d_j + d_i − 2 G_ij
        gi = self._g(i)
        np.subtract(d, gi, out=buf)
        buf -= gi
        buf += d[i]
        np.abs(buf, out=buf)  # ‖x_j − x_i‖²_{A⁻¹} ≥ 0; abs only clears round-off of −1e-17
        np.sqrt(buf, out=buf)
        buf *= self._width()
        buf += means
        buf[i] = -np.inf
        j = int(buf.argmax())
        self._best, self._challenger = i, j
        self._index = float(buf[j] - means[i])
        self._decided_at = self.t

    # ------------------------------------------------------------------ protocol

    def select(self) -> int | None:
        """An arm of the first round, then the LinGapE choice; None once B(t) ≤ ε."""
        arm = self._next  # chosen with the last pull's update (the packed state)
        if arm >= 0:
            return arm
        return self._select(arm)

    def _select(self, code: int) -> int | None:
        """``select`` without a pending compiled arm.

        The first round, a stop, a new ratio-rule design, or the NumPy representations of
        subclasses.
        """
        if code == lingape_kernels.STOP:
            self._stopped = True
            self._step = None  # later observations update the state, the decision stays
            return None
        if code == lingape_kernels.NEED_DESIGN:
            self._next = self._ratio_arm()
            return self._next
        if not self.__dict__.get("_ready", False):
            self._require_reset("select")
            unpulled = np.flatnonzero(self.counts == 0)
            return int(unpulled[0]) if unpulled.size else 0
        if self._stopped:
            return None
        if self._decided_at != self.t:
            self._decide()
        if self._index <= self._eps:
            self._stopped = True
            return None
        if self.selection == "greedy":
            buf, den = self._buf, self._buf2
            np.subtract(self._g(self._best), self._g(self._challenger), out=buf)
            np.square(buf, out=buf)
            np.add(self._d, 1.0, out=den)
            np.divide(buf, den, out=buf)
            return int(buf.argmax())
        return self._ratio_arm()

    def _ratio_arm(self) -> int:
        """The ratio rule: argmin T_a/p*_a over the support of the design p* of {i_t, j_t}."""
        i, j = self._best, self._challenger
        pair = (min(i, j), max(i, j))
        if pair != self._pair:  # T_a/p*_a as T_a · (1/p*_a) over the support of p*
            key = ("LinGapE-ratio", self._zkey, *pair)
            p = DESIGNS.get(key, lambda: single_direction_design(self._z, self._z[i] - self._z[j]))
            self._support = np.flatnonzero(p)  # ascending: ties go to the lowest index
            self._inv_p = 1.0 / p[self._support]
            self._pair = pair
            if self._columns:  # the compiled decision reuses it while the pair stays
                count, n = self._support.size, self._n
                n[lingape_kernels.N_PAIR_LO], n[lingape_kernels.N_PAIR_HI] = pair
                n[lingape_kernels.N_SUPPORTED] = count
                self._support_n[:count] = self._support
                self._inv_p_f[:count] = self._inv_p
        return lingape_kernels.ratio_arm(self.counts, self._support, self._inv_p)

    def observe(self, arm: int, outcome: np.ndarray) -> None:
        """Record one outcome of ``arm`` (the base bookkeeping, inlined for one scalar reward).

        On the packed state one kernel call makes the update (with the counts, the sums and
        log det A) and the next decision, whose arm ``select`` returns.
        """
        step = self._step
        if step is None:
            self._observe(arm, outcome)
            return
        self.t += 1
        code = step(self._f, self._n, arm, outcome)
        if code == _REFRESH_DUE:
            self._refresh()
            code = lingape_kernels.lingape_packed_decide(self._f, self._n)
        self._next = code

    def _observe(self, arm: int, outcome: np.ndarray) -> None:
        """``observe`` off the packed state's decisions (first round, after a stop, subclasses)."""
        if not self.__dict__.get("_ready", False):
            super().observe(arm, outcome)
            return
        self.t += 1
        if self._columns:  # stopped: the state takes the pull in, no new decision
            code = lingape_kernels.lingape_packed_step(self._f, self._n, arm, outcome)
            if code == lingape_kernels.REFRESH_DUE:
                self._refresh()
            return
        self.counts[arm] += 1
        self.sums[arm, 0] += outcome[0]
        self._on_observe(arm, outcome)

    def _on_observe(self, arm: int, outcome: np.ndarray) -> None:
        if not self._ready:
            if np.all(self.counts > 0):
                self._start()
            return
        self._since_refresh += 1
        if self._since_refresh >= REFRESH_EVERY:
            self._refresh()
            return
        # Sherman–Morrison on H = [G or W | μ̂]: with g = X A⁻¹x_a and c = 1/(1 + ‖x_a‖²_{A⁻¹}),
        # H -= c g vᵀ with v = [A⁻¹x_a-row of H | μ̂_a − y], i.e. G -= c g gᵀ (or W -= c g
        # (A⁻¹x_a)ᵀ), μ̂ += c (y − μ̂_a) g; and d -= c g∘g. v is a copy (H changes in place).
        h, v, q = self._h, self._v, self._q
        v[:] = h[arm]
        v[q] -= outcome[0]
        c = 1.0 / (1.0 + self._d[arm])
        if self._full:
            g = v[:q]  # row a of the symmetric G is its column a
        else:
            g = self._z @ v[:q]
            buf = self._buf
            np.square(g, out=buf)
            buf *= c
            self._d -= buf
        _rank_one_update(-c, g, v, h)
        self._logdet -= math.log(c)

    def recommend(self) -> Answer:
        """i_t: the empirical best arm (the answer once B(t) ≤ ε)."""
        self._require_reset("recommend")
        if not self._ready:
            if self.t == 0:
                return frozenset({0})
            pulled = self.counts > 0
            means = np.where(pulled, self.sums[:, 0] / np.maximum(self.counts, 1), -np.inf)
            return frozenset({int(np.argmax(means))})
        return frozenset({int(np.argmax(self._means))})
