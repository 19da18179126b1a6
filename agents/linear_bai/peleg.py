"""``PELEG``: phased elimination with an online exploration game (Zaki, Mohan & Gopalan).

Zaki, Mohan & Gopalan, "Explicit Best Arm Identification in Linear Bandits Using No-Regret
Learners" (arXiv 2006.07562, 2020), Algorithm 1. Each phase m is a two-player zero-sum game
played online: a MAX player (exponential weights, "EXP-WTS", over all K arms) proposes a
sampling distribution w_t, a MIN player best-responds with the most confusing direction λ_t (the
minimum-W_t-norm point of a union of half-spaces), arms are pulled by cumulative tracking of the
w_t, and the phase ends when the confidence ellipsoid ``{λ: ‖λ‖²_{V_t} ≤ r_m²}`` misses every
half-space. OLS on the phase's own data then eliminates the arms more than 2^{-(m+2)} below
another active arm. Within a phase the whole pull sequence is a deterministic function of
(X, 𝒳_m, m, δ): Hedge gains, best responses, tracking and the phase's stopping test never look
at the rewards, which enter only through the phase's estimate. So the batch path announces a
whole phase at once, and phases are cached across episodes.

The module also exposes the building blocks: :func:`phase_constants`, :func:`hedge_weights`,
:func:`best_response`, :func:`ball_min_norm`, :func:`track`.
"""

from __future__ import annotations

import functools
import hashlib
import math
from typing import Any

import numpy as np

from agents.base import AgentCard, BaseAgent, Heuristic
from agents.common.design_cache import DesignMemo
from agents.common.params import Boolean, Choice, Integer, Is
from bandit_envs.core.problem import Answer, ProblemSpec
from bandit_envs.core.protocols import AgentCapabilities
from bandit_envs.errors import AgentProtocolError
from bandit_envs.theory.linalg import projected_least_squares, reduce_features

__all__ = [
    "PELEG",
    "PRESETS",
    "ball_min_norm",
    "best_response",
    "hedge_weights",
    "phase_constants",
    "track",
]

#: presets of :class:`PELEG`: the flags each one sets (see the class docstring).
PRESETS: dict[str, dict[str, bool]] = {
    "practical": {"use_ball": False, "shrink_eps": False},
    "theory": {"use_ball": True, "shrink_eps": True},
}

#: phases memoised for the batch path: key -> (counts, max pair norm at the end).
PHASE_MEMO = DesignMemo(maxsize=512)


# --------------------------------------------------------------------------- building blocks


def phase_constants(
    c_min: float,
    diameter_sq: float,
    n_arms: int,
    m: int,
    delta: float,
    *,
    sigma: float = 1.0,
    shrink_eps: bool = False,
    delta_schedule: str = "paper",
) -> dict[str, float]:
    """The per-phase constants of Algorithm 1, lines 5–7.

    * δ_m = δ/m² (``"paper"``) or 6δ/(π²m²) (``"corrected"``): the paper's Corollary 1 claims
      Π_m (1 − δ/m²) ≥ 1 − δ, which is false (the product is about 1 − π²δ/6); with
      6δ/(π²m²) the union bound sums to δ;
    * D_m = 2(√2 − 1)·√(C/(max_{x≠x'∈𝒳_m}‖x − x'‖²·log K)) (line 6);
    * r_m² = 8σ²·log(K²/δ_m) (line 13; the paper assumes 1-sub-Gaussian noise, σ = 1: the σ²
      factor is ours);
    * ε_m = min{1, D_m√C/r_m}·2^{-(m+1)} if ``shrink_eps`` else 2^{-(m+1)} (line 7).

    Args:
        c_min: C = λ_min(Σ_k x_k x_kᵀ) (line 3).
        diameter_sq: max_{x≠x'∈𝒳_m} ‖x − x'‖².
        n_arms: K ≥ 2.
        m: the phase, ≥ 1.
        delta: δ ∈ (0, 1).
        sigma: noise standard deviation σ ≥ 0.
        shrink_eps: keep the shrink factor of line 7.
        delta_schedule: ``"paper"`` or ``"corrected"``.

    Returns:
        dict with ``delta_m``, ``D``, ``r2``, ``shrink`` (the factor, 1 when not applied) and
        ``eps``.

    """
    if delta_schedule == "paper":
        delta_m = delta / m**2
    else:
        delta_m = 6.0 * delta / (math.pi**2 * m**2)
    d_m = 2.0 * (math.sqrt(2.0) - 1.0) * math.sqrt(c_min / (diameter_sq * math.log(n_arms)))
    r2 = 8.0 * sigma**2 * math.log(n_arms**2 / delta_m)
    factor = 1.0
    if shrink_eps and r2 > 0.0:
        factor = min(1.0, d_m * math.sqrt(c_min) / math.sqrt(r2))
    eps = factor * 0.5 ** (m + 1)
    return {"delta_m": delta_m, "D": d_m, "r2": r2, "shrink": factor, "eps": eps}


def hedge_weights(gains: np.ndarray, eta: float) -> np.ndarray:
    """Exponential weights w ∝ exp(η·G) on cumulative gains (EXP-WTS, App. B.1.1).

    Computed with the log-sum-exp shift, so the weights are finite, sum to 1 and are strictly
    positive unless a gain gap exceeds ~745/η (then the smallest underflow to 0).
    """
    logits = eta * np.asarray(gains, dtype=np.float64)
    w = np.exp(logits - logits.max())
    return w / w.sum()


def track(counts: np.ndarray, cum_weights: np.ndarray) -> int:
    """Tracking rule of line 19: argmin_k n_{t−1}^k / Σ_{s≤t} w_s^k, lowest index on ties.

    Lemma 3 (App. B.1): with counts and cumulative weights both starting at 1 per arm after the
    burn-in (the base case of its proof counts the burn-in pull of arm s as w_s = e_s),
    Σ_s w_s^k − (K − 1) ≤ n_t^k ≤ Σ_s w_s^k + 1 for all t ≥ K.
    """
    return int(np.argmin(counts / cum_weights))


def ball_min_norm(
    matrix: np.ndarray, pairs: np.ndarray, eps: float, radius: float
) -> tuple[np.ndarray, np.ndarray]:
    """Min λᵀMλ s.t. yᵀλ ≥ ε, ‖λ‖ ≤ D, for every row y of ``pairs`` (App. C, Claim 1).

    KKT (Claim 1: the linear constraint is tight): λ(μ) = ε(M + μI)⁻¹y/(yᵀ(M + μI)⁻¹y)
    with μ = 0 if ‖λ(0)‖ ≤ D, else the μ > 0 with ‖λ(μ)‖ = D, found by bisection (‖λ(μ)‖ is
    non-increasing in μ). Pairs with ε/‖y‖ > D are infeasible: value +∞. One eigen-decomposition
    of M; vectorised over pairs.

    Args:
        matrix: M, symmetric positive definite, shape (r, r).
        pairs: the directions y, shape (P, r), non-zero.
        eps: ε > 0.
        radius: D > 0.

    Returns:
        (values, mus): the minimum of λᵀMλ per pair (+∞ if infeasible) and the multiplier μ.

    """
    s, q = np.linalg.eigh(0.5 * (matrix + matrix.T))
    s = np.maximum(s, 0.0)
    yt = pairs @ q  # (P, r)
    y2 = yt * yt
    ynorm2 = y2.sum(axis=1)
    n_pairs = pairs.shape[0]
    values = np.full(n_pairs, np.inf)
    mus = np.zeros(n_pairs)
    feasible = eps * eps < radius * radius * ynorm2 * (1.0 + 1e-12)

    def norm_sq_and_value(mu: np.ndarray, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        den = s[None, :] + mu[:, None]
        a = y2[idx] / den
        f = a.sum(axis=1)
        g = (a / den).sum(axis=1)
        h = (s[None, :] * a / den).sum(axis=1)
        return eps * eps * g / (f * f), eps * eps * h / (f * f)

    idx = np.flatnonzero(feasible)
    if idx.size == 0:
        return values, mus
    tiny = 1e-300
    with np.errstate(divide="ignore", invalid="ignore"):
        den0 = np.maximum(s, tiny)
        a0 = y2[idx] / den0[None, :]
        f0 = a0.sum(axis=1)
        n0 = eps * eps * (a0 / den0[None, :]).sum(axis=1) / (f0 * f0)
    inside = n0 <= radius * radius
    values[idx[inside]] = eps * eps / f0[inside]
    out = idx[~inside]
    if out.size:
        lo = np.zeros(out.size)
        hi = np.full(out.size, max(float(s.max()), 1.0))
        for _ in range(200):  # grow hi until ‖λ(hi)‖ ≤ D
            n_hi, _ = norm_sq_and_value(hi, out)
            grow = n_hi > radius * radius
            if not grow.any():
                break
            hi[grow] *= 4.0
        for _ in range(100):
            mid = 0.5 * (lo + hi)
            n_mid, _ = norm_sq_and_value(mid, out)
            big = n_mid > radius * radius
            lo = np.where(big, mid, lo)
            hi = np.where(big, hi, mid)
            if np.all(hi - lo <= 1e-13 * np.maximum(hi, 1e-300)):
                break
        _, val = norm_sq_and_value(hi, out)
        values[out] = val
        mus[out] = hi
    return values, mus


def best_response(
    w_matrix: np.ndarray,
    pairs: np.ndarray,
    eps: float,
    radius: float | None = None,
) -> tuple[np.ndarray, int, float]:
    """The MIN player's best response λ_t (Algorithm 1, line 16).

    Without the ball (``radius=None``, Note 2; Lemma 5): the pair maximising ‖y‖²_{W⁻¹}, and
    λ = ε W⁻¹y/‖y‖²_{W⁻¹}, of value ε²/‖y‖²_{W⁻¹} (lowest pair index on ties; the sign of y
    does not change the gains (λᵀx)²). With the ball B(0, D): the pair of smallest
    :func:`ball_min_norm` value and its λ(μ).

    Args:
        w_matrix: W = Σ_k w_k x_k x_kᵀ, positive definite, shape (r, r).
        pairs: the differences y = x − x' of the active pairs, shape (P, r).
        eps: ε_m.
        radius: D_m, or ``None`` to ignore the ball.

    Returns:
        (λ, pair index, value λᵀWλ); λ = 0 and value +∞ if every pair is infeasible.

    """
    if radius is None:
        sol = pairs @ np.linalg.inv(w_matrix)  # rows W⁻¹y (W symmetric)
        norms = np.einsum("pi,pi->p", sol, pairs)
        p = int(np.argmax(norms)) if norms.shape[0] > 1 else 0
        lam = (eps / norms[p]) * sol[p]
        return lam, p, eps * eps / float(norms[p])
    values, mus = ball_min_norm(w_matrix, pairs, eps, radius)
    p = int(np.argmin(values))
    if not np.isfinite(values[p]):
        return np.zeros(pairs.shape[1]), p, math.inf
    reg = w_matrix + mus[p] * np.eye(w_matrix.shape[0])
    v = np.linalg.solve(reg, pairs[p])
    lam = eps * v / float(pairs[p] @ v)
    return lam, p, float(values[p])


# --------------------------------------------------------------------------- one phase


class _Phase:
    """The deterministic game of one phase (lines 9–23): burn-in, then rounds until the end."""

    def __init__(
        self,
        z: np.ndarray,
        active: np.ndarray,
        consts: dict[str, float],
        *,
        use_ball: bool,
        eta_clock: str,
        hedge_update_every: int,
    ) -> None:
        self.z = z
        k, r = z.shape
        self.k = k
        self.eps = consts["eps"]
        self.r2 = consts["r2"]
        self.radius = consts["D"]
        self.use_ball = use_ball
        self.eta_clock = eta_clock
        self.every = hedge_update_every
        i, j = np.triu_indices(active.size, 1)
        self.pairs = z[active[i]] - z[active[j]]
        self.t = 0  # pulls made in this phase (burn-in included)
        self.h = 0  # Hedge rounds
        self.counts = np.zeros(k, dtype=np.int64)
        self.cumw = np.ones(k)  # the burn-in counts as w_s = e_s (see track)
        self.gains = np.zeros(k)
        self.eta_scale = math.sqrt(8.0 * math.log(k)) / self.radius**2
        self.w = np.full(k, 1.0 / k)
        self.u = np.zeros(k)
        self.vinv: np.ndarray | None = None
        self.v = np.zeros((r, r))
        self.qn: np.ndarray | None = None  # ‖y‖²_{V⁻¹} per pair
        self.passed = np.zeros(self.pairs.shape[0], dtype=bool)
        self.ended = False

    # -- the phase stopping criterion (line 13; without the ball: the practical form, Note 2)
    def _criterion(self) -> bool:
        if self.r2 <= 0.0:  # noiseless: any V ≻ 0 puts every half-space outside the ellipsoid
            return True
        limit = self.eps * self.eps / self.r2
        qn = self.qn
        assert qn is not None  # the criterion is checked from the end of the burn-in on
        if not self.use_ball:
            return bool(qn.max() < limit)
        todo = np.flatnonzero(~self.passed)
        # without the ball the minimum is ε²/‖y‖²_{V⁻¹}; the ball only makes it larger
        easy = qn[todo] < limit
        self.passed[todo[easy]] = True
        todo = todo[~easy]
        if todo.size == 0:
            return True
        values, _ = ball_min_norm(self.v, self.pairs[todo], self.eps, self.radius)
        ok = values > self.r2
        self.passed[todo[ok]] = True
        return bool(ok.all())

    def max_pair_norm(self) -> float:
        """Max over active pairs of ‖x − x'‖²_{V⁻¹} (the quantity of the Key Lemma, Lemma 1)."""
        return float(self.qn.max()) if self.qn is not None else math.inf

    def _pull(self, arm: int) -> None:
        x = self.z[arm]
        self.counts[arm] += 1
        self.t += 1
        if self.use_ball or self.vinv is None:
            self.v += x[:, None] * x[None, :]
        if self.vinv is not None:  # Sherman–Morrison on V⁻¹ and on the pair norms
            u = self.vinv @ x
            den = 1.0 + float(x @ u)
            self.vinv -= (u[:, None] * u[None, :]) / den
            yu = self.pairs @ u
            self.qn -= yu * yu / den

    def _after_burn_in(self) -> None:
        self.vinv = np.linalg.inv(self.v)
        self.vinv = 0.5 * (self.vinv + self.vinv.T)
        self.qn = np.einsum("pi,ij,pj->p", self.pairs, self.vinv, self.pairs)

    def _game_round(self) -> int:
        self.h += 1
        if (self.h - 1) % self.every == 0:
            clock = self.h if self.eta_clock == "hedge" else self.k + self.h
            self.w = hedge_weights(self.gains, self.eta_scale / math.sqrt(clock))
            wm = (self.z.T * self.w) @ self.z
            wm = 0.5 * (wm + wm.T)
            try:
                lam, _, _ = best_response(
                    wm, self.pairs, self.eps, self.radius if self.use_ball else None
                )
            except np.linalg.LinAlgError:  # underflowed weights: regularise slightly
                wm += 1e-12 * np.trace(wm) * np.eye(wm.shape[0])
                lam, _, _ = best_response(
                    wm, self.pairs, self.eps, self.radius if self.use_ball else None
                )
            proj = self.z @ lam
            self.u = proj * proj
        self.gains += self.u
        self.cumw += self.w
        return track(self.counts, self.cumw)

    def next_arm(self) -> int | None:
        """The next pull of the phase, or None once the phase stopping criterion holds."""
        if self.ended:
            return None
        if self.t < self.k:
            arm = self.t  # burn-in: every arm once, eliminated ones included (line 10)
            self._pull(arm)
            if self.t == self.k:
                self._after_burn_in()
            return arm
        if self._criterion():
            self.ended = True
            return None
        arm = self._game_round()
        self._pull(arm)
        return arm

    def run_to_end(self) -> np.ndarray:
        """Play the phase to its end; the pull counts of the pulls made by this call."""
        start = self.counts.copy()
        while self.next_arm() is not None:
            pass
        return self.counts - start


def _played(phase: _Phase) -> tuple[np.ndarray, float]:
    """Play a fresh ``phase`` to its end: its pull counts and final max pair norm."""
    phase.run_to_end()
    return phase.counts.copy(), phase.max_pair_norm()


# --------------------------------------------------------------------------- the agent


class PELEG(BaseAgent):
    """PELEG (Zaki, Mohan & Gopalan 2020, Algorithm 1).

    Phase m: constants δ_m, D_m, r_m², ε_m (:func:`phase_constants`); burn-in (every one of the K
    arms once, eliminated ones included, line 10); then game rounds: the MAX player's exponential
    weights w_t ∝ exp(η_t G_{t−1}) over all K arms with η_t = √(8 log K/t)/D_m² (the rate of the
    experiments, App. G) and
    cumulative gains G (:func:`hedge_weights`); the MIN player's best response λ_t
    (:func:`best_response`); gains U_t^k = (λ_tᵀx_k)²; tracking (:func:`track`). The phase ends
    at the first t ≥ K where the stopping criterion holds (line 13), checked right after the
    burn-in and after every pull; without the ball it reads
    max_{x≠x'∈𝒳_m}‖x − x'‖²_{V_t⁻¹} < ε_m²/r_m² (Note 2). Then θ̂_m = OLS on the phase's own
    data (burn-in included, line 25) and 𝒳_{m+1} = {x ∈ 𝒳_m: max_{x'} θ̂_mᵀ(x' − x) ≤ 2^{-(m+2)}}
    (line 26: an arm is eliminated only when strictly more than 2^{-(m+2)} below). The agent stops
    when one arm is left (line 29). Ties (tracking, best response) go to the lowest index.

    Presets: ``"practical"`` (default; the variant of the paper's experiments, Sec. 6 and Note 2:
    no ball in the best response nor in the stopping criterion, unshrunk ε_m) and ``"theory"``
    (the ball B(0, D_m) in both, shrunk ε_m: the analysed Algorithm 1). The paper drops the ball
    in its experiments without saying whether the shrink factor min{1, D_m√C/r_m} of ε_m stays;
    it only serves the ball's analysis and costs a factor about r_m²/(D_m²C) in samples, so the
    practical preset drops it too. ``use_ball`` and ``shrink_eps`` override the preset.

    δ-correctness: within a phase the design does not depend on the rewards, so on the phase's
    OLS every yᵀ(θ̂_m − θ) is σ²‖y‖²_{V⁻¹}-sub-Gaussian, and the stopping criterion makes every
    active pair's error exceed 2^{-(m+2)} with probability ≤ 2δ_m/K² (Lemma 6, App. E; without
    the ball the Key Lemma, Lemma 1, holds directly by the stopping rule). The union over pairs
    and phases gives an error ≤ Σ_m δ_m: ≤ δ with ``delta_schedule="corrected"``
    (δ_m = 6δ/(π²m²), default), ≤ π²δ/6 with the paper's δ_m = δ/m² (its Corollary 1 claims
    ≤ δ, which is false), kept for exact reproduction.

    Noise: r_m² = 8σ²log(K²/δ_m) with σ = ``spec.noise_std`` (the paper assumes σ = 1). Features
    that do not span R^h, which the paper leaves undefined (C = 0), are handled in the
    coordinates of their span (C = the smallest non-zero eigenvalue). The theory preset's ball
    radius assumes ‖x_k‖ ≤ 1, as the paper does (Sec. 2).

    Batch path: the pull sequence of a phase is a deterministic function of (X, 𝒳_m, m, δ, σ,
    flags), so ``select_batch`` announces a whole phase (its pull counts), and the
    counts are cached across episodes (batch path only). The one-pull path plays the same
    sequence pull by pull: both paths take the same decisions at the same sample counts.

    Args:
        preset: ``"practical"`` or ``"theory"``.
        use_ball: ``None`` (from the preset) or a bool: the ball B(0, D_m) in the best response
            and in the stopping criterion (lines 13 and 16).
        shrink_eps: ``None`` (from the preset) or a bool: the factor min{1, D_m√C/r_m} of ε_m
            (line 7).
        delta_schedule: ``"corrected"`` (6δ/(π²m²), δ-correct) or ``"paper"`` (δ/m²).
        eta_clock: the t of η_t, which the paper leaves ambiguous: ``"hedge"`` (default; t = the
            Hedge round, 1, 2, …) or ``"phase"`` (t = the round index of line 14, K + 1, …).
        hedge_update_every: B ≥ 1: the MAX and MIN players act every B rounds and hold their
            play in between (a speed knob). 1 (default) is the paper's algorithm; B > 1 is a
            labelled approximation.

    """

    card = AgentCard(
        summary="Phased elimination where each phase is an online game (a Hedge player over the "
        "arms against a best-responding player), pulls by cumulative tracking, and least "
        "squares on the phase's own data",
        paper="Zaki, Mohan & Gopalan, Explicit Best Arm Identification in Linear Bandits Using "
        "No-Regret Learners, arXiv 2006.07562 (2020), Algorithm 1 (PELEG)",
        heuristics=(
            Heuristic(
                "delta_schedule",
                lambda v: v == "paper",
                "the paper's delta_m = delta/m^2 sums to pi^2 delta/6 > delta",
            ),
        ),
    )

    capabilities = AgentCapabilities(
        tasks=frozenset({"best_arm"}),
        settings=frozenset({"fixed_confidence"}),
        structures=frozenset({"linear"}),
        batch=True,
    )

    parameters = {
        "preset": Choice(*PRESETS),
        "use_ball": Is(None) | Boolean(),
        "shrink_eps": Is(None) | Boolean(),
        "delta_schedule": Choice("paper", "corrected"),
        "eta_clock": Choice("hedge", "phase"),
        "hedge_update_every": Integer(min=1),
    }

    def __init__(
        self,
        preset: str = "practical",
        use_ball: bool | None = None,
        shrink_eps: bool | None = None,
        delta_schedule: str = "corrected",
        eta_clock: str = "hedge",
        hedge_update_every: int = 1,
    ) -> None:
        self.preset = preset
        self.use_ball = use_ball
        self.shrink_eps = shrink_eps
        self.delta_schedule = delta_schedule
        self.eta_clock = eta_clock
        self.hedge_update_every = hedge_update_every

    def _on_reset(self, spec: ProblemSpec) -> None:
        every = self.hedge_update_every
        flags = dict(PRESETS[self.preset])
        for key in ("use_ball", "shrink_eps"):
            if getattr(self, key) is not None:
                flags[key] = bool(getattr(self, key))
        self._use_ball = flags["use_ball"]
        self._shrink = flags["shrink_eps"]
        features = np.eye(spec.n_arms) if spec.features is None else spec.features
        z, _ = reduce_features(features)
        self._z = np.ascontiguousarray(z)
        self._c_min = float(np.linalg.eigvalsh(z.T @ z)[0])
        noise = 1.0 if spec.noise_std is None else spec.noise_std
        self._sigma = float(np.max(noise))
        self._key = (
            hashlib.sha1(self._z.tobytes()).hexdigest(),
            self._z.shape,
            self._require_delta(),
            self._sigma,
            self._use_ball,
            self._shrink,
            self.delta_schedule,
            self.eta_clock,
            int(every),
        )
        self._active = np.arange(spec.n_arms)
        self._m = 1
        self._phase: _Phase | None = None
        self._phase_counts = np.zeros(spec.n_arms, dtype=np.int64)
        self._phase_sums = np.zeros(spec.n_arms)
        self._theta: np.ndarray | None = None
        self._log: list[dict[str, Any]] = []
        self._done = spec.n_arms <= 1
        self._pending: int | None = None

    # ------------------------------------------------------------------ phases

    def _constants(self) -> dict[str, float]:
        za = self._z[self._active]
        i, j = np.triu_indices(za.shape[0], 1)
        diff = za[i] - za[j]
        diameter_sq = float(np.max(np.sum(diff * diff, axis=1)))
        return phase_constants(
            self._c_min,
            diameter_sq,
            self.n_arms,
            self._m,
            self._require_delta(),
            sigma=self._sigma,
            shrink_eps=self._shrink,
            delta_schedule=self.delta_schedule,
        )

    def _start_phase(self) -> _Phase:
        self._consts = self._constants()
        self._phase = phase = _Phase(
            self._z,
            self._active,
            self._consts,
            use_ball=self._use_ball,
            eta_clock=self.eta_clock,
            hedge_update_every=int(self.hedge_update_every),
        )
        self._phase_counts[:] = 0
        self._phase_sums[:] = 0.0
        return phase

    def _end_phase(self) -> None:
        """OLS on the phase's data (line 25) and elimination (line 26)."""
        n = self._phase_counts.astype(np.float64)
        gram = (self._z.T * n) @ self._z
        theta = np.linalg.solve(gram, self._z.T @ self._phase_sums)
        self._theta = theta
        scores = self._z[self._active] @ theta
        keep = scores.max() - scores <= 0.5 ** (self._m + 2)
        phase = self._phase
        assert phase is not None  # a phase ends only once started
        self._log.append(
            {
                "m": self._m,
                "active": self._active.tolist(),
                "samples": int(phase.t),
                "counts": phase.counts.copy(),
                "max_pair_norm": phase.max_pair_norm(),
                "theta_hat": theta.copy(),
                **self._consts,
            }
        )
        self._active = self._active[keep]
        self._m += 1
        self._phase = None
        if self._active.size <= 1:
            self._done = True

    def _advance(self) -> int | None:
        """Next pull of the one-pull path, closing finished phases on the way."""
        while not self._done:
            phase = self._phase if self._phase is not None else self._start_phase()
            arm = phase.next_arm()
            if arm is not None:
                return arm
            self._end_phase()
        return None

    # ------------------------------------------------------------------ protocol

    def select(self) -> int | None:
        """The next pull (burn-in, then the game's tracking), or None when one arm is left."""
        self._require_reset("select")
        if self._phase is not None and self._phase.t > self._phase_counts.sum():
            return self._pending  # select() twice without observe()
        arm = self._advance()
        self._pending = arm
        return arm

    def _on_observe(self, arm: int, outcome: np.ndarray) -> None:
        self._phase_counts[arm] += 1
        self._phase_sums[arm] += float(outcome[0])

    def select_batch(self) -> np.ndarray | None:
        """The pull counts of the rest of the current phase (a whole phase at a time)."""
        self._require_reset("select_batch")
        while not self._done:
            phase = self._phase
            if phase is None:
                phase = self._start_phase()
                key = (*self._key, self._m, tuple(self._active.tolist()))
                counts, max_norm = PHASE_MEMO.get(key, functools.partial(_played, phase))
                if not phase.ended:  # memoised: the phase takes the recorded end state
                    phase.counts = counts.copy()
                    phase.t = int(counts.sum())
                    phase.qn = np.array([max_norm])
                    phase.ended = True
                return counts.copy()
            if phase.ended:
                if self._phase_counts.sum() < phase.t:
                    raise AgentProtocolError(
                        f"{self.name}: select_batch() called before the previous batch was "
                        "observed (observe_batch)."
                    )
                self._end_phase()
                continue
            counts = phase.run_to_end()
            if counts.sum() > 0:
                return counts
        return None

    def _on_observe_batch(self, counts: np.ndarray, sums: np.ndarray) -> None:
        self._phase_counts += counts
        self._phase_sums += sums[:, 0]

    def recommend(self) -> Answer:
        """The surviving arm; before the end, the best active arm under the last θ̂ (D-choice)."""
        self._require_reset("recommend")
        if self._active.size == 1:
            return frozenset({int(self._active[0])})
        theta = self._theta
        if theta is None:
            if self.t == 0:
                return frozenset({int(self._active[0])})
            theta = projected_least_squares(self._z, self.counts, self.sums[:, 0])
        scores = self._z[self._active] @ theta
        return frozenset({int(self._active[int(np.argmax(scores))])})

    # ------------------------------------------------------------------ diagnostics

    @property
    def phase_log(self) -> list[dict[str, Any]]:
        """One record per finished phase: m, active set, samples N_m, counts, constants, θ̂_m."""
        return list(getattr(self, "_log", []))

    @property
    def active_arms(self) -> list[int]:
        """The arms still active."""
        return getattr(self, "_active", np.zeros(0, dtype=int)).tolist()
