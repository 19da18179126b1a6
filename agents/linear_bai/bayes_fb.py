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

from agents.base import AgentCard, BaseAgent
from agents.common.kernels import bayes as bayes_kernels
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
    (plus O(K²) with ``full_cov``), compiled (:func:`agents.common.kernels.bayes.posterior_update`);
    the state is recomputed exactly from the pull counts and reward sums (batch Bayesian linear
    regression) every 1000 updates. Without ``full_cov``, ``cov`` is an empty (0, 0) array.

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
        self._work = np.empty(2 * (r + k))
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
            cov = zs @ z.T
            self.cov = 0.5 * (cov + cov.T)
            self.var = np.diagonal(self.cov).copy()
        else:
            self.cov = np.empty((0, 0))  # not kept
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
        bayes_kernels.posterior_update(
            self.z,
            self.cov_theta,
            self.mean_theta,
            self.mu,
            self.var,
            self.cov,
            self._work,
            arm,
            y,
            self.noise_var,
        )

    @property
    def sd(self) -> np.ndarray:
        """Posterior standard deviations of the means (round-off negatives clipped to 0)."""
        return np.sqrt(np.maximum(self.var, 0.0))


# --------------------------------------------------------------------------- knowledge gradient
def log_f_neg(s: np.ndarray) -> np.ndarray:
    """Log of f(−s) for s ≥ 0, where f(z) = zΦ(z) + φ(z) (Frazier et al. 2009, eq. (14)).

    f(−s) = φ(s)(1 − s R(s)) with the Mills ratio R(s) = Φ(−s)/φ(s), so
    log f(−s) = −s²/2 − ½log 2π + log(1 − sR(s)), which never underflows; for s ≥ 4 the
    cancellation in 1 − sR(s) is avoided by Laplace's continued fraction of R, and from s = 10
    by its asymptotic series (compiled: :func:`agents.common.kernels.bayes.log_f_neg_into`).
    """
    arr = np.asarray(s, dtype=np.float64)
    flat = np.ascontiguousarray(arr).reshape(-1)
    out = np.empty_like(flat)
    bayes_kernels.log_f_neg_into(flat, out)
    return out.reshape(arr.shape)


#: lines up to which the compiled envelope sorts by insertion (the dense O(m²) route, fastest
#: for the few lines the pre-filter keeps); longer lists are heap-sorted.
_DENSE_MAX = 32
#: numbers of lines above which a pre-filter drops lines below three known envelope lines
#: before sorting (typically all but 4–8 of 100 lines).
_PREFILTER_FROM = 8


def log_expected_max_gain(a: np.ndarray, slopes: np.ndarray) -> np.ndarray:
    """Log of E[max_i (a_i + b_i Z)] − max_i a_i, Z ~ N(0, 1), for every row b of ``slopes``.

    The exact algorithm of Frazier, Powell & Dayanik (2009, §4, Algorithm 1): sort the lines by
    slope, keep the upper envelope of z ↦ max_i a_i + b_i z, and sum, over consecutive envelope
    lines (i, i+1) meeting at c_i = (a_i − a_{i+1})/(b_{i+1} − b_i), the terms
    (b_{i+1} − b_i) f(−|c_i|) (:func:`log_f_neg`), here in log space (log-sum-exp).

    Compiled (:func:`agents.common.kernels.bayes.log_gain_rows`), one row at a time: above
    :data:`_PREFILTER_FROM` lines a pre-filter drops the lines below three known envelope lines,
    the rest are sorted (insertion sort up to :data:`_DENSE_MAX` lines, else heap sort) and
    their envelope found by one monotone-chain pass. Every route is exact; they differ in cost.

    Args:
        a: intercepts (the current means), shape (K,).
        slopes: b, shape (R, K); row r holds the slopes of the K lines for measurement r.

    Returns:
        Shape (R,): the log of the expected gain; ``-inf`` where the gain is 0 (all slopes equal).

    """
    a = np.ascontiguousarray(a, dtype=np.float64)
    b = np.ascontiguousarray(slopes, dtype=np.float64)
    out = np.empty(b.shape[0])
    bayes_kernels.log_gain_rows(a, b, out, _PREFILTER_FROM, _DENSE_MAX)
    return out


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
    mu = np.ascontiguousarray(mu, dtype=np.float64)
    k = mu.shape[0]
    out = np.empty(k)
    bayes_kernels.kgcb_choose(
        mu,
        np.ascontiguousarray(cov, dtype=np.float64),
        float(noise_var),
        out,
        np.empty(2 * k),
        np.empty(k, dtype=np.int64),
        np.full((k, 2), -1, dtype=np.int64),
        _PREFILTER_FROM,
        _DENSE_MAX,
    )
    return out


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

    Cost: O(K r + r²) a pull (rank-one posterior update and O(K) indices), compiled
    (:func:`agents.common.kernels.bayes.bayesgap_choose`).

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
        self._sd = np.empty(k)

    def _choose(self) -> int:
        if self.n_arms == 1:
            return 0
        post = self._post
        arm, beta, cand, gap = bayes_kernels.bayesgap_choose(
            post.mu,
            post.var,
            self._sd,
            0.0 if self.beta is None else float(self.beta),
            self._beta_num,
            self._gap_eps,
            self._h_floor,
        )
        self._beta_t = beta
        if gap < self._min_gap:
            self._min_gap, self._min_gap_arm = gap, cand
        return arm

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

    Cost per pull (compiled, :func:`agents.common.kernels.bayes.kgcb_choose`): O(K²) for the
    pre-filter of every measurement's lines, plus the sort and envelope of the few lines it
    keeps (O(m log m) for m of them; O(K² log K) at worst), and O(K² + K r) for the update.

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

    def _on_reset(self, spec: ProblemSpec) -> None:
        super()._on_reset(spec)
        k = spec.n_arms
        self._out = np.empty(k)
        self._work = np.empty(2 * k)
        self._idx = np.empty(k, dtype=np.int64)
        self._ends = np.full((k, 2), -1, dtype=np.int64)

    def _choose(self) -> int:
        post = self._post
        logkg = self._out
        first, ties = bayes_kernels.kgcb_choose(
            post.mu,
            post.cov,
            post.noise_var,
            logkg,
            self._work,
            self._idx,
            self._ends,
            _PREFILTER_FROM,
            _DENSE_MAX,
        )
        self._logkg = logkg
        if ties == 1:
            return first
        top = float(logkg.max())
        if top == -math.inf:
            tied = np.arange(self.n_arms)
        else:
            tied = np.flatnonzero(logkg >= top - 1e-12 * max(1.0, abs(top)))
        return int(tied[int(self.rng.integers(tied.size))])

    @property
    def knowledge_gradients(self) -> np.ndarray | None:
        """ν_x of the last pull decision (``None`` before the first one)."""
        logkg = getattr(self, "_logkg", None)
        return None if logkg is None else np.exp(logkg)
