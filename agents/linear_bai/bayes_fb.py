"""Fixed-budget Bayesian best-arm identification with correlated beliefs: BayesGap and KGCB.

Both agents keep a Gaussian posterior on the parameter of a linear model (the arms' means are
correlated through the shared θ) and spend a fixed budget; they differ in the sampling rule.

* :class:`BayesGap` — Hoffman, Shahriari & de Freitas (AISTATS 2014), "On correlation and budget
  constraints in model-based bandit optimization with application to automatic machine
  learning": the gap-based rule of UGapE (Gabillon et al. 2012) on posterior bounds.
* :class:`KGCB` — the knowledge gradient with correlated beliefs (Frazier, Powell & Dayanik 2009,
  "The knowledge-gradient policy for correlated normal beliefs"; with a linear belief model as
  in Negoescu, Frazier & Powell 2011, "The knowledge-gradient algorithm for sequencing
  experiments in drug discovery"), computed exactly.

Both solve best-arm identification (answer: the arm of largest posterior mean) and, as adapted
by Li, Ma, Hua & Zhu (2025, Sec. 7) for their all-ε-good benchmark, the all-ε-good task: at the
end of the budget they return ``{i : μ̂_i ≥ max_j μ̂_j − ε}`` with μ̂ the posterior means.

Shared math written here once: :class:`GaussianLinearPosterior` (Kalman / Bayesian linear
regression with rank-one updates, O(K r + r²) a pull) and the exact knowledge gradient of a
family of affine functions of one standard normal (:func:`log_expected_max_gain`,
:func:`log_knowledge_gradients`).
"""

from __future__ import annotations

import math
import numbers

import numpy as np
from scipy.special import erfcx

from agents.base import AgentCard, BaseAgent
from agents.common.params import Array, Choice, Is, Real
from bandit_envs.core.problem import Answer, ProblemSpec
from bandit_envs.core.protocols import AgentCapabilities
from bandit_envs.core.tasks import AllEpsilonGood, BestArm
from bandit_envs.core.validation import check_nonnegative
from bandit_envs.errors import InvalidParameterError
from bandit_envs.theory.linalg import reduce_features

__all__ = [
    "BayesGap",
    "GaussianLinearPosterior",
    "KGCB",
    "log_expected_max_gain",
    "log_f_neg",
    "log_knowledge_gradients",
]

#: exact recomputation of the posterior from the counts and sums every this many updates.
_REFRESH_EVERY = 1_000
#: noise variance floor, relative to the prior variance (σ = 0 makes every update singular).
_NOISE_FLOOR = 1e-8
_HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)
_SQRT_HALF_PI = math.sqrt(0.5 * math.pi)
#: above this |c| the asymptotic series of the Mills ratio replaces erfcx (see log_f_neg).
_SERIES_FROM = 30.0


# --------------------------------------------------------------------------- the posterior
class GaussianLinearPosterior:
    """Gaussian posterior of θ (and of the means μ = Zθ) under a Gaussian prior and noise.

    Model: θ ~ N(m₀, η² I), y = z_aᵀθ + N(0, λ) for a pull of arm a. Work happens in the
    coordinates of an orthonormal basis of the span of the arms (``z`` from
    :func:`bandit_envs.theory.linalg.reduce_features`): the prior of the projected parameter is
    again N(Uᵀm₀, η² I) and the means are unchanged, so the posterior of μ is exact.

    A pull of arm a with outcome y is the Kalman (rank-one) update, with s = S z_a and
    d = λ + z_aᵀ S z_a (Frazier, Powell & Dayanik 2009, eq. (4)–(5)):
    m ← m + (y − μ_a) s/d, S ← S − s sᵀ/d, μ ← μ + (y − μ_a) Z s/d, var(μ_k) ← var(μ_k) −
    (z_kᵀs)²/d, and with ``full_cov`` the K×K covariance C ← C − (Zs)(Zs)ᵀ/d. Cost O(K r + r²)
    (plus O(K²) with ``full_cov``); the state is recomputed exactly from the pull counts and
    reward sums (batch Bayesian linear regression) every 1000 updates.

    Args:
        z: arm features in reduced coordinates, shape (K, r).
        prior_mean: m₀ in reduced coordinates, shape (r,).
        prior_var: η² > 0.
        noise_var: λ > 0.
        full_cov: keep the K×K covariance of μ (the knowledge gradient needs it).

    """

    def __init__(
        self,
        z: np.ndarray,
        prior_mean: np.ndarray,
        prior_var: float,
        noise_var: float,
        full_cov: bool = False,
    ) -> None:
        self.z = np.ascontiguousarray(z, dtype=np.float64)
        k, r = self.z.shape
        self.prior_mean = np.array(prior_mean, dtype=np.float64).reshape(r)
        self.prior_var = float(prior_var)
        self.noise_var = float(noise_var)
        self.full_cov = bool(full_cov)
        self.counts = np.zeros(k, dtype=np.int64)
        self.sums = np.zeros(k)
        self._since = 0
        self.refresh()

    def refresh(self) -> None:
        """Recompute the posterior exactly from the counts and sums (batch regression).

        Precision Λ = I/η² + Σ_k n_k z_k z_kᵀ/λ, S = Λ⁻¹, m = S(m₀/η² + Σ_k z_k s_k/λ).
        """
        z, lam = self.z, self.noise_var
        r = z.shape[1]
        prec = np.eye(r) / self.prior_var + (z.T * (self.counts / lam)) @ z
        evals, evecs = np.linalg.eigh(0.5 * (prec + prec.T))
        self.cov_theta = (evecs / evals) @ evecs.T
        rhs = self.prior_mean / self.prior_var + z.T @ self.sums / lam
        self.mean_theta = self.cov_theta @ rhs
        self.mu = z @ self.mean_theta
        zs = z @ self.cov_theta
        if self.full_cov:
            self.cov = zs @ z.T
            self.cov = 0.5 * (self.cov + self.cov.T)
            self.var = np.diagonal(self.cov)
        else:
            self.var = np.einsum("ij,ij->i", zs, z)
        self._since = 0

    def update(self, arm: int, y: float) -> None:
        """One observation ``y`` of arm ``arm`` (rank-one Kalman update)."""
        self.counts[arm] += 1
        self.sums[arm] += y
        self._since += 1
        if self._since >= _REFRESH_EVERY:
            self.refresh()
            return
        s = self.cov_theta @ self.z[arm]
        den = self.noise_var + float(self.z[arm] @ s)
        c = self.z @ s  # Cov(μ, μ_arm)
        gain = (y - float(self.mu[arm])) / den
        self.mean_theta += gain * s
        self.mu += gain * c
        self.cov_theta -= np.outer(s, s / den)
        if self.full_cov:
            self.cov -= np.outer(c, c / den)
            self.var = np.diagonal(self.cov)
        else:
            self.var -= c * c / den

    @property
    def sd(self) -> np.ndarray:
        """Posterior standard deviations of the means (round-off negatives clipped to 0)."""
        return np.sqrt(np.maximum(self.var, 0.0))


# --------------------------------------------------------------------------- knowledge gradient
def log_f_neg(s: np.ndarray) -> np.ndarray:
    """Log of f(−s) for s ≥ 0, where f(z) = zΦ(z) + φ(z) (Frazier et al. 2009, eq. (14)).

    f(−s) = φ(s)(1 − s R(s)) with the Mills ratio R(s) = Φ(−s)/φ(s) = √(π/2)·erfcx(s/√2), so
    log f(−s) = −s²/2 − ½log 2π + log(1 − sR(s)), which never underflows. For s ≥ 30 the
    cancellation in 1 − sR(s) is avoided by the asymptotic series
    1 − sR(s) = s⁻² − 3s⁻⁴ + 15s⁻⁶ − 105s⁻⁸ + 945s⁻¹⁰ − … (relative error < 1e-11 there).
    """
    s = np.minimum(np.asarray(s, dtype=np.float64), 1e100)
    if s.size and s.max() < _SERIES_FROM:  # the usual case: one expression
        return (
            -0.5 * s * s
            - _HALF_LOG_2PI
            + np.log1p(-s * (_SQRT_HALF_PI * erfcx(s / math.sqrt(2.0))))
        )
    out = np.empty_like(s)
    small = s < _SERIES_FROM
    ss = s[small]
    out[small] = (
        -0.5 * ss * ss
        - _HALF_LOG_2PI
        + np.log1p(-ss * (_SQRT_HALF_PI * erfcx(ss / math.sqrt(2.0))))
    )
    sl = s[~small]
    u = 1.0 / (sl * sl)
    series = u * (1.0 + u * (-3.0 + u * (15.0 + u * (-105.0 + 945.0 * u))))
    out[~small] = -0.5 * sl * sl - _HALF_LOG_2PI + np.log(series)
    return out


#: rows·width² up to which the envelope is found by the dense O(width²)-per-row test.
_DENSE_MAX = 1 << 16
#: numbers of lines above which a cheap pre-filter drops most dominated lines before sorting.
_PREFILTER_FROM = 64
#: the points z (besides ±∞), in units of the row's crossing scale, whose maximising lines seed
#: the pre-filter.
_PREFILTER_GRID = (-2.0, -1.0, -0.5, -0.25, -0.1, 0.0, 0.1, 0.25, 0.5, 1.0, 2.0)


def _compact(alive: np.ndarray, *arrays: np.ndarray) -> tuple[np.ndarray, ...]:
    """Move each row's alive entries to the front (order kept) and drop the dead columns.

    Padding entries are dead; their values are copies of the row's last alive entry's column
    neighbours (never read through ``alive``). O(rows·width), no sort.
    """
    n_rows = alive.shape[0]
    width = max(int(alive.sum(axis=1).max()), 1)
    pos = np.cumsum(alive, axis=1) - 1
    rows = np.nonzero(alive)[0]
    cols = pos[alive]
    out_alive = np.zeros((n_rows, width), dtype=bool)
    out_alive[rows, cols] = True
    outs = []
    for arr in arrays:
        out = np.zeros((n_rows, width), dtype=arr.dtype)
        out[rows, cols] = arr[alive]
        outs.append(out)
    return (out_alive, *outs)


def _hull_prefilter(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Lines that may lie on the upper envelope of z ↦ max_i a_i + b_i z (a superset).

    The maximising lines at z = ±∞ and at z = t·s_r, t in :data:`_PREFILTER_GRID`,
    s_r = (max a − min a)/(max b_r − min b_r) the row's scale of crossings, are envelope lines;
    their maximum E(z) is a convex lower bound of the envelope. A line ℓ with ℓ ≤ E everywhere is
    dominated, and since ℓ − E is concave it suffices to check ℓ ≤ E at the breakpoints of E
    (a relative slack of 1e-12 keeps borderline lines). Rows: one per measurement. O(rows·K)
    per grid point; typically a few dozen of 10³ lines survive.
    """
    n_rows, k = b.shape
    rows = np.arange(n_rows)
    full = np.broadcast_to(a, b.shape)
    lo_b, hi_b = b.min(axis=1, keepdims=True), b.max(axis=1, keepdims=True)
    scale = float(a.max() - a.min()) / np.maximum(hi_b - lo_b, 1e-300)
    verts = [np.argmax(np.where(b == lo_b, full, -np.inf), axis=1)]  # z = −∞
    with np.errstate(over="ignore", invalid="ignore"):
        verts += [np.argmax(full + (t * scale) * b, axis=1) for t in _PREFILTER_GRID]
    verts.append(np.argmax(np.where(b == hi_b, full, -np.inf), axis=1))  # z = +∞
    keep = np.zeros((n_rows, k), dtype=bool)
    for v in verts:
        keep[rows, v] = True
    vb = np.stack([b[rows, v] for v in verts], axis=1)
    va = np.stack([a[v] for v in verts], axis=1)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for g in range(len(verts) - 1):
            step = vb[:, g + 1] - vb[:, g]
            ok = step > 0
            c = np.where(ok, (va[:, g] - va[:, g + 1]) / np.where(ok, step, 1.0), 0.0)
            env = va[:, g] + vb[:, g] * c
            tol = 1e-12 * (np.abs(env) + np.abs(vb[:, g] * c) + 1.0)
            above = full + b * c[:, None] > (env - tol)[:, None]
            keep |= above & ok[:, None]
    return keep


def _envelope_dense(as_: np.ndarray, bs: np.ndarray, alive: np.ndarray) -> np.ndarray:
    """Envelope lines among sorted lines of distinct slopes: line i is on it iff lo_i < hi_i.

    With c_ij = (a_j − a_i)/(b_i − b_j) the crossing of lines i and j, line i is the maximum
    exactly on [lo_i, hi_i], lo_i = max_{j<i} c_ij, hi_i = min_{j>i} c_ij (sorted by slope).
    O(rows·width²), no data-dependent loop.
    """
    width = bs.shape[1]
    db = bs[:, :, None] - bs[:, None, :]
    da = as_[:, None, :] - as_[:, :, None]
    pair = alive[:, :, None] & alive[:, None, :]
    below = np.tri(width, width, -1, dtype=bool)  # j < i
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        c = da / np.where(pair & (db != 0.0), db, 1.0)
    lo = np.where(pair & below, c, -np.inf).max(axis=2)
    hi = np.where(pair & below.T, c, np.inf).min(axis=2)
    return alive & (lo < hi)


def _envelope_pruning(
    as_: np.ndarray, bs: np.ndarray, alive: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Envelope by rounds of parallel pruning (rows compacted as lines die).

    Every alive line on or below the segment joining its alive neighbours (in the dual plane of
    points (b_i, a_i)) is dropped; such a line is never a vertex of the upper hull, so dropping
    several at once is exact. Stops when a round drops nothing. O(rows·width) per round.
    """
    while True:
        n_rows, width = bs.shape
        rows = np.arange(n_rows)[:, None]
        idx = np.arange(width)
        prev = np.maximum.accumulate(np.where(alive, idx, -1), axis=1)
        nxt = np.minimum.accumulate(np.where(alive, idx, width)[:, ::-1], axis=1)[:, ::-1]
        p = np.empty_like(prev)
        p[:, 0] = -1
        p[:, 1:] = prev[:, :-1]
        n = np.empty_like(nxt)
        n[:, -1] = width
        n[:, :-1] = nxt[:, 1:]
        inner = alive & (p >= 0) & (n < width)
        if not inner.any():
            return alive, as_, bs
        p = np.maximum(p, 0)
        n = np.minimum(n, width - 1)
        bp, ap, bn, an = bs[rows, p], as_[rows, p], bs[rows, n], as_[rows, n]
        drop = inner & ((as_ - ap) * (bn - bp) <= (an - ap) * (bs - bp))
        if not drop.any():
            return alive, as_, bs
        alive = alive & ~drop
        if 2 * int(alive.sum(axis=1).max()) <= width:
            alive, as_, bs = _compact(alive, as_, bs)


def log_expected_max_gain(a: np.ndarray, slopes: np.ndarray) -> np.ndarray:
    """Log of E[max_i (a_i + b_i Z)] − max_i a_i, Z ~ N(0, 1), for every row b of ``slopes``.

    The exact algorithm of Frazier, Powell & Dayanik (2009, §4, Algorithm 1): sort the lines by
    slope, keep the upper envelope of z ↦ max_i a_i + b_i z, and sum, over consecutive envelope
    lines (i, i+1) meeting at c_i = (a_i − a_{i+1})/(b_{i+1} − b_i), the terms
    (b_{i+1} − b_i) f(−|c_i|) (:func:`log_f_neg`), here in log space (log-sum-exp).

    Vectorised over rows (one row per measured arm), with no loop over lines: (for K > 64) a
    pre-filter drops lines below a known part of the envelope (:func:`_hull_prefilter`); a
    stable sort of all rows at once (of lines of equal slope only the largest intercept is kept);
    then the envelope by the dense crossing test (:func:`_envelope_dense`, small problems) or by
    rounds of parallel pruning (:func:`_envelope_pruning`). Both are exact; they differ only in
    cost.

    Args:
        a: intercepts (the current means), shape (K,).
        slopes: b, shape (R, K); row r holds the slopes of the K lines for measurement r.

    Returns:
        Shape (R,): the log of the expected gain; ``-inf`` where the gain is 0 (all slopes equal).

    """
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(slopes, dtype=np.float64)
    n_rows, k = b.shape
    rows = np.arange(n_rows)[:, None]
    if k > _PREFILTER_FROM:
        full = np.broadcast_to(a, b.shape)
        alive, as_, bs = _compact(_hull_prefilter(a, b), full, b)
        top = bs.max(axis=1, keepdims=True) + 1.0  # padding sorts last (and stays dead)
        bs = np.where(alive, bs, top)
        order = np.argsort(as_, axis=1, kind="stable")
        as_, bs, alive = as_[rows, order], bs[rows, order], alive[rows, order]
        order = np.argsort(bs, axis=1, kind="stable")  # by slope, ties by intercept
        as_, bs, alive = as_[rows, order], bs[rows, order], alive[rows, order]
    else:  # one intercept vector for every row: sort the columns by it once
        by_a = np.argsort(a, kind="stable")
        bs = b[:, by_a]
        order = np.argsort(bs, axis=1, kind="stable")  # by slope, ties by intercept
        bs = bs[rows, order]
        as_ = a[by_a][order]
        alive = np.ones(b.shape, dtype=bool)
    alive[:, :-1] &= bs[:, 1:] != bs[:, :-1]  # equal slopes: keep the largest intercept
    if n_rows * bs.shape[1] ** 2 <= _DENSE_MAX:
        alive = _envelope_dense(as_, bs, alive)
    else:
        alive, as_, bs = _envelope_pruning(as_, bs, alive)
    # consecutive envelope lines (p, i): p = the previous alive line of i
    width = bs.shape[1]
    prev = np.maximum.accumulate(np.where(alive, np.arange(width), -1), axis=1)
    p = np.empty_like(prev)
    p[:, 0] = -1
    p[:, 1:] = prev[:, :-1]
    seg = alive & (p >= 0)
    p = np.maximum(p, 0)
    db = np.where(seg, bs - bs[rows, p], 1.0)
    with np.errstate(over="ignore"):
        c = np.abs(as_[rows, p] - as_) / db
    terms = np.where(seg, np.log(db) + log_f_neg(c), -np.inf)
    top = terms.max(axis=1)
    finite = np.isfinite(top)
    base = np.where(finite, top, 0.0)
    with np.errstate(divide="ignore"):
        return np.where(finite, base + np.log(np.exp(terms - base[:, None]).sum(axis=1)), -np.inf)


def log_knowledge_gradients(mu: np.ndarray, cov: np.ndarray, noise_var: float) -> np.ndarray:
    """Log of the knowledge gradient ν_x with correlated beliefs, for every arm x.

    ν_x = E[max_i μ_i^{n+1} − max_i μ_i^n | measure x] (Frazier, Powell & Dayanik 2009, eq. (9)):
    after measuring x, μ^{n+1} = μ^n + σ̃(x) Z with σ̃(x) = Σ e_x/√(λ + Σ_xx), Z ~ N(0, 1)
    (their eq. (6)), so ν_x = :func:`log_expected_max_gain` (μ^n, σ̃(x)).

    Args:
        mu: posterior means, shape (K,).
        cov: posterior covariance of the means, shape (K, K).
        noise_var: λ, the variance of one measurement.

    Returns:
        Shape (K,): log ν_x (``-inf`` where measuring x cannot change the argmax).

    """
    sd = np.sqrt(noise_var + np.maximum(np.diagonal(cov), 0.0))
    return log_expected_max_gain(mu, cov / sd[:, None])


# --------------------------------------------------------------------------- the agents
class _BayesFixedBudget(BaseAgent):
    """Posterior bookkeeping, answers and parameters shared by BayesGap and KGCB."""

    capabilities = AgentCapabilities(
        tasks=frozenset({"best_arm", "all_eps_good"}),
        settings=frozenset({"fixed_budget"}),
        structures=frozenset({"linear"}),
        batch=False,
    )
    #: whether the posterior keeps the K×K covariance of the means.
    _full_cov = False
    parameters = {"prior_mean": Real() | Array(ndim=1), "prior_std": Real(gt=0)}

    def __init__(self, prior_mean: float | np.ndarray = 0.0, prior_std: float = 1.0) -> None:
        self.prior_mean = prior_mean
        self.prior_std = prior_std

    def _prior(self, h: int) -> tuple[np.ndarray, float]:
        """m₀ with one entry per feature (a number is repeated) and η, as floats."""
        m0 = self.prior_mean
        if isinstance(m0, numbers.Real):  # a bool is refused by the constraints
            arr = np.full(h, float(m0))
        else:
            arr = np.array(m0, dtype=np.float64).reshape(-1)
            if arr.shape != (h,):
                raise InvalidParameterError(
                    f"{self.name}: prior_mean must have one entry per feature ({h} here); got "
                    f"{m0!r}."
                )
        return arr, float(self.prior_std)

    def _on_reset(self, spec: ProblemSpec) -> None:
        features = np.eye(spec.n_arms) if spec.features is None else spec.features
        m0, eta = self._prior(features.shape[1])
        z, u = reduce_features(features)
        noise = 1.0 if spec.noise_std is None else float(np.max(spec.noise_std))
        self._eta = eta
        self._noise_var = max(noise * noise, _NOISE_FLOOR * eta * eta)
        self._post = GaussianLinearPosterior(
            z, u.T @ m0, eta * eta, self._noise_var, full_cov=self._full_cov
        )
        self._rule: AllEpsilonGood | BestArm
        if spec.task == "all_eps_good":
            eps = check_nonnegative(spec.epsilon, "ProblemSpec.epsilon", self.name)
            self._rule = AllEpsilonGood(eps, bool(spec.extras.get("multiplicative", False)))
            self._task_eps = eps
        else:
            self._rule = BestArm()
            self._task_eps = 0.0
        self._chosen_t, self._chosen = -1, 0

    def _on_observe(self, arm: int, outcome: np.ndarray) -> None:
        self._post.update(arm, float(outcome[0]))

    def _choose(self) -> int:
        raise NotImplementedError

    def select(self) -> int:
        """The next arm (the budget is spent by the environment's runner)."""
        self._require_reset("select")
        if self._chosen_t != self.t:  # select() twice without observe(): same arm
            self._chosen_t, self._chosen = self.t, self._choose()
        return self._chosen

    def recommend(self) -> Answer:
        """Best arm: argmax of the posterior means; all ε-good: {i : μ̂_i ≥ max μ̂ − ε}."""
        self._require_reset("recommend")
        return self._rule.empirical_answer(self._post.mu)

    @property
    def posterior_means(self) -> np.ndarray | None:
        """The current posterior means of the arms (``None`` before ``reset``)."""
        post = getattr(self, "_post", None)
        return None if post is None else post.mu.copy()


def _gap_index(upper: np.ndarray, lower: np.ndarray) -> np.ndarray:
    """B_k = max_{i≠k} U_i − L_k for every k (UGapE's gap index; O(K), top two of U)."""
    top = int(np.argmax(upper))
    first = float(upper[top])
    upper[top] = -np.inf
    second = float(upper.max())
    upper[top] = first
    gap = first - lower
    gap[top] = second - lower[top]
    return gap


class BayesGap(_BayesFixedBudget):
    """BayesGap (Hoffman, Shahriari & de Freitas, AISTATS 2014, Algorithm 1), linear beliefs.

    **Model**: θ ~ N(m₀, η²I), Gaussian noise of the problem's σ; the posterior of the means μ is
    correlated through θ (:class:`GaussianLinearPosterior`), with mean μ̂_k(t) and standard
    deviation σ_k(t).

    **Sampling** (their Algorithm 1). With U_k = μ̂_k + βσ_k, L_k = μ̂_k − βσ_k, the gap index
    B_k = max_{i≠k} U_i − L_k, J_t = argmin_k B_k (the candidate), j_t = argmax_{k≠J_t} U_k (its
    strongest challenger); pull whichever of J_t, j_t has the larger σ_k (J_t on ties).

    **Exploration parameter** (their Theorem 1):
    β = √(((T − K)/σ² + κ/η²)/(4H_ε)), κ = Σ_k ‖x_k‖⁻², H_ε = Σ_k H_{kε}⁻²,
    H_{kε} = max(½(Δ_k + ε), ε). Theorem 1 takes the true gaps Δ_k, which the agent does not
    know, so H_ε is *estimated* at every pull from the model (our estimator, a documented
    choice; the theorem's guarantee is for the true H_ε): Δ̂_k = |B⁽³⁾_k|, the gap index of the
    3σ bounds
    μ̂ ± 3σ (for every arm but the top one B⁽³⁾_k ≥ 0 is an upper estimate of Δ_k; for the top
    arm |B⁽³⁾_k| is the margin by which it leads). Early on the bounds are wide, Ĥ_ε is small and
    β large (exploration); as they shrink, β adapts. ``beta=b`` fixes β ≡ b instead.

    **Answer** (fixed budget T). Best arm: argmax μ̂ (``recommendation="posterior_mean"``,
    default) or the paper's Ω_T = J_t at the pull with the smallest B_{J_t}(t)
    (``"min_gap"``). All ε-good (Li et al.'s adaptation, 2025, Sec. 7, whatever
    ``recommendation`` says): {i : μ̂_i ≥ max μ̂ − ε} at the end of the budget.

    Cost: O(K r + r²) a pull (rank-one posterior update and O(K) indices).

    Args:
        beta: ``None`` (the paper's β with the estimated H_ε) or a fixed β > 0.
        gap_epsilon: the ε ≥ 0 of H_{kε} (the simple-regret tolerance of the paper); ``None``
            uses the problem's ε for all ε-good (any ε-good arm is acceptable) and 0 for best arm.
        recommendation: the best-arm answer, ``"posterior_mean"`` or ``"min_gap"``.
        prior_mean: m₀, a number (every coordinate) or one number per feature.
        prior_std: η > 0.

    """

    card = AgentCard(
        summary="Fixed budget: Bayesian gap-based (UGapE-like) sampling with a Gaussian linear "
        "belief, so that the posterior means are correlated. Answers the best arm, or the "
        "eps-rule on the posterior means for all-eps-good problems",
        paper="Hoffman, Shahriari & de Freitas, On correlation and budget constraints in "
        "model-based bandit optimization, AISTATS 2014, Algorithm 1; all-eps-good answer as in "
        "Li, Ma, Hua & Zhu, arXiv 2510.00073 (2025), Sec. 7",
    )

    parameters = {
        "beta": Is(None) | Real(gt=0),
        "gap_epsilon": Is(None) | Real(ge=0),
        "recommendation": Choice("posterior_mean", "min_gap"),
        **_BayesFixedBudget.parameters,
    }

    def __init__(
        self,
        beta: float | None = None,
        gap_epsilon: float | None = None,
        recommendation: str = "posterior_mean",
        prior_mean: float | np.ndarray = 0.0,
        prior_std: float = 1.0,
    ) -> None:
        super().__init__(prior_mean=prior_mean, prior_std=prior_std)
        self.beta = beta
        self.gap_epsilon = gap_epsilon
        self.recommendation = recommendation

    def _on_reset(self, spec: ProblemSpec) -> None:
        super()._on_reset(spec)
        if self.gap_epsilon is not None:
            self._gap_eps = float(self.gap_epsilon)
        else:
            self._gap_eps = self._task_eps  # the problem's ε for all ε-good, 0 for best arm
        z = self._post.z
        norms = np.einsum("ij,ij->i", z, z)
        # H_kε = max(½(Δ̂_k + ε), ε), floored far below any mean scale (ε = 0, Δ̂_k = 0)
        scale = self._eta * math.sqrt(float(norms.max())) + float(np.max(np.abs(self._post.mu)))
        self._h_floor = max(self._gap_eps, 1e-12 * max(scale, 1e-300))
        kappa = float(np.sum(1.0 / norms[norms > 0]))
        k, budget = spec.n_arms, self._require_budget()
        self._beta_num = max(budget - k, 0) / self._noise_var + kappa / self._eta**2
        self._beta_t = math.inf
        self._min_gap = math.inf
        self._min_gap_arm = 0

    def _beta(self, mu: np.ndarray, sd: np.ndarray) -> float:
        """β of Theorem 1 with the estimated hardness Ĥ_ε (or the fixed ``beta``)."""
        if self.beta is not None:
            return float(self.beta)
        wide = 3.0 * sd
        b3 = _gap_index(mu + wide, mu - wide)
        inv_h = 1.0 / np.maximum(0.5 * (np.abs(b3) + self._gap_eps), self._h_floor)
        hardness = float(inv_h @ inv_h)
        return math.sqrt(self._beta_num / (4.0 * hardness))

    def _choose(self) -> int:
        post = self._post
        if self.n_arms == 1:
            return 0
        mu, sd = post.mu, post.sd
        beta = self._beta(mu, sd)
        self._beta_t = beta
        width = beta * sd
        upper, lower = mu + width, mu - width
        gap = _gap_index(upper, lower)
        cand = int(np.argmin(gap))
        if gap[cand] < self._min_gap:
            self._min_gap, self._min_gap_arm = float(gap[cand]), cand
        saved = float(upper[cand])
        upper[cand] = -np.inf
        challenger = int(np.argmax(upper))  # argmax_{k≠J} U_k
        upper[cand] = saved
        return cand if sd[cand] >= sd[challenger] else challenger

    def recommend(self) -> Answer:
        """Best arm: argmax μ̂ or Ω_T (``min_gap``); all ε-good: {i : μ̂_i ≥ max μ̂ − ε}."""
        self._require_reset("recommend")
        if self.recommendation == "min_gap" and self.t > 0 and self.spec.task == "best_arm":
            return frozenset({self._min_gap_arm})
        return super().recommend()

    @property
    def exploration(self) -> float:
        """β used at the last pull (``inf`` before the first one)."""
        return getattr(self, "_beta_t", math.inf)


class KGCB(_BayesFixedBudget):
    """Knowledge gradient with correlated beliefs (Frazier, Powell & Dayanik 2009; KGCB).

    Negoescu, Frazier & Powell (2011) apply KGCB to a linear (Free–Wilson) belief model, which is
    what this agent does: θ ~ N(m₀, η²I) (default N(0, I): Li et al. do not give their prior),
    Gaussian noise of the problem's σ, so the means μ = Zθ have a correlated Gaussian belief
    N(μⁿ, Σⁿ).

    **Sampling**: measure x_n = argmax_x ν_x,
    ν_x = E[max_i μ_i^{n+1} | x] − max_i μ_i^n, computed exactly by the piecewise-linear
    algorithm of Frazier et al. (2009, §4) for all K measurements at once
    (:func:`log_knowledge_gradients`), in log space so that the argmax stays exact when ν
    underflows (late in long budgets); ties (within 1e-12) are broken uniformly at random with
    the episode's generator. The belief is updated by the Kalman rank-one formulas
    (:class:`GaussianLinearPosterior`, full K×K covariance).

    **Answer** (fixed budget T): best arm: argmax μⁿ; all ε-good (Li et al.'s adaptation, 2025,
    Sec. 7): {i : μ_iⁿ ≥ max μⁿ − ε}.

    Cost per pull: O(K² log K) for the sort plus O(K²) per pruning round of the envelope
    (a few rounds in practice), and O(K² + K r) for the update.

    Args:
        prior_mean: m₀, a number (every coordinate) or one number per feature.
        prior_std: η > 0.

    """

    card = AgentCard(
        summary="Fixed budget: knowledge gradient with correlated beliefs under a Gaussian linear "
        "belief, computed exactly. Answers the best arm, or the eps-rule on the posterior means "
        "for all-eps-good problems",
        paper="Frazier, Powell & Dayanik, INFORMS J. Computing 2009 (KGCB, Sec. 4); Negoescu, "
        "Frazier & Powell, INFORMS J. Computing 2011 (linear beliefs); all-eps-good answer as "
        "in Li, Ma, Hua & Zhu, arXiv 2510.00073 (2025), Sec. 7",
    )

    _full_cov = True

    def __init__(self, prior_mean: float | np.ndarray = 0.0, prior_std: float = 1.0) -> None:
        super().__init__(prior_mean=prior_mean, prior_std=prior_std)

    def _choose(self) -> int:
        post = self._post
        logkg = log_knowledge_gradients(post.mu, post.cov, post.noise_var)
        self._logkg = logkg
        top = float(logkg.max())
        if top == -math.inf:
            ties = np.arange(self.n_arms)
        else:
            ties = np.flatnonzero(logkg >= top - 1e-12 * max(1.0, abs(top)))
        if ties.size == 1:
            return int(ties[0])
        return int(ties[int(self.rng.integers(ties.size))])

    @property
    def knowledge_gradients(self) -> np.ndarray | None:
        """ν_x of the last pull decision (``None`` before the first one)."""
        logkg = getattr(self, "_logkg", None)
        return None if logkg is None else np.exp(logkg)
