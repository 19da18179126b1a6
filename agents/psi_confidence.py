"""Fixed-confidence Pareto set identification baselines: ``APE``, ``Racing`` and ``PAL``.

Spec 000 §3.9 (d)–(f). Outcomes are vectors of ``d`` objectives, all maximised; the answer is the
Pareto set ``S*`` (task ``"pareto_set"``). Margins ``M̂(i, j) = max_c [μ̂_i(c) − μ̂_j(c)]`` and
``m̂(i, j) = −M̂(i, j)`` (spec 000 §1.4); the pairwise confidence widths ``β_ij`` of APE and
Racing come from :func:`bandit_envs.pareto.ape_confidence`.

* :class:`APE` — Adaptive Pareto Exploration (Kone, Kaufmann & Richert 2023), fully sequential,
  unstructured, with an incremental ``O(K d)``-per-pull state.
* :class:`Racing` — Auer, Chiang, Ortner & Drugan (2016), rounds of one pull per active arm.
* :class:`PAL` — Zuluaga, Sergent, Krause & Püschel (2013) with a linear kernel, as in the GEGE
  authors' code: rounds of one pull per active arm, least squares on the features.
"""

from __future__ import annotations

import math

import numpy as np

from agents._phases import PhaseTracking
from agents.base import BaseAgent
from bandit_envs.errors import AgentProtocolError, InvalidParameterError
from bandit_envs.linalg import reduce_features
from bandit_envs.pareto import APE_THRESHOLDS, ape_confidence, dominance_margins, pareto_mask
from bandit_envs.problem import Answer, ProblemSpec
from bandit_envs.protocols import AgentCapabilities

__all__ = ["APE", "PAL", "Racing"]

#: pulling rules of APE (spec 000 §3.9(d)).
APE_PULLS = ("both", "least_sampled")

#: PAL's confidence constants (spec 000 §3.9(e)).
PAL_CONSTANTS = ("practical", "theory")


def _sigma(spec: ProblemSpec) -> float:
    """The noise level used by the widths: the largest per-objective σ (1 when unknown)."""
    noise = 1.0 if spec.noise_std is None else spec.noise_std
    return float(np.max(noise))


def _check_choice(who: str, name: str, value: object, choices: tuple[str, ...]) -> None:
    if not isinstance(value, str) or value not in choices:
        raise InvalidParameterError(f"{who}: {name} must be one of {choices}; got {value!r}.")


class APE(BaseAgent):
    """Adaptive Pareto Exploration (Kone, Kaufmann & Richert, NeurIPS 2023; spec 000 §3.9(d)).

    Unstructured and fully sequential. After one pull of every arm, each step ``t``:

    * ``h_i = min_{j≠i} [M̂(i, j) − β_ij]``, ``OPT(t) = {i : h_i > 0}``,
      ``g_i = max_{j≠i} [m̂(i, j) − β_ij]``; with ``S(t)`` the empirical Pareto set of all arms,
      stop when ``Z1 = min_{i∈S(t)} h_i + ε ≥ 0`` and ``Z2 = min_{i∉S(t)} max(h_i, g_i) ≥ 0``
      (as :func:`bandit_envs.pareto.ape_stop`) and answer ``S(t)``;
    * ``b_t = argmax_{i∉OPT(t)} min_{j≠i} [M̂(i, j) + β_ji]`` and
      ``c_t = argmin_{j≠b_t} [M̂(b_t, j) − β_{b_t j}]``;
    * ``pull="both"`` (default, the authors' C++ code) pulls ``b_t`` then ``c_t`` — one arm per
      ``select()``, so on two consecutive calls, with no stopping test in between;
      ``pull="least_sampled"`` (the paper's rule) pulls the less sampled of the two (``b_t`` on a
      tie).

    ``ε`` is the task's public ``spec.epsilon`` (0 for exact PSI). Ties in the argmax/argmin go
    to the smallest index.

    **Incremental state.** ``β`` is symmetric, so ``min_j [M̂(i, j) + β_ij] = −g_i`` and only two
    ``K × K`` matrices are kept, ``M̂ − β`` and ``M̂ + β`` (diagonal ``+inf``), with their row
    minima and row argmins. A pull of arm ``a`` changes only row and column ``a`` of both
    (``O(K d)``); row ``a``'s minimum is recomputed, and another row's minimum only when its
    argmin was column ``a`` and that entry increased (otherwise one comparison with the new entry
    suffices). The stopping test first checks the necessary condition "every arm has
    ``h_i + ε ≥ 0`` or ``g_i ≥ 0``" in ``O(K)`` and computes ``S(t)`` only when it holds.
    ``state()`` exposes the maintained quantities (tests compare them with a recomputation).

    Args:
        pull: ``"both"`` or ``"least_sampled"`` (above).
        threshold: the widths of :func:`bandit_envs.pareto.ape_confidence`: ``"union"``
            (default; δ-correct by a union bound over pairs, objectives and sample counts — see
            that function's proof and :func:`~bandit_envs.pareto.ape_stop`'s correctness
            argument) or ``"heuristic"`` (the authors' C++ code, "simplified for empirical
            purpose": **not** δ-correct; it is what the paper's plots use).

    Sample complexity = every pull, including the initial ``K``.
    """

    capabilities = AgentCapabilities(
        tasks=frozenset({"pareto_set"}),
        settings=frozenset({"fixed_confidence"}),
        structures=frozenset({"none"}),
        outcome_dims="any",
    )

    def __init__(self, pull: str = "both", threshold: str = "union") -> None:
        self.pull = pull
        self.threshold = threshold

    # ------------------------------------------------------------------ set-up

    def _on_reset(self, spec: ProblemSpec) -> None:
        _check_choice(self.name, "pull", self.pull, APE_PULLS)
        _check_choice(self.name, "threshold", self.threshold, APE_THRESHOLDS)
        k, d = spec.n_arms, int(spec.outcome_dim)
        self._k, self._d = k, d
        self._delta = float(spec.delta)
        self._sig = _sigma(spec)
        self._eps = float(spec.epsilon or 0.0)
        # β_ij = σ√2 · sqrt((c0 + ℓ_i + ℓ_j)(1/T_i + 1/T_j)), the form of both thresholds of
        # ape_confidence: ℓ = 2 log T (union) or log(1 + log T) (heuristic)
        if self.threshold == "union":
            pairs = max(k * (k - 1), 1) * d
            self._c0 = math.log(pairs * math.pi**4 / (36.0 * self._delta))
        else:
            log_inv = math.log(1.0 / self._delta)
            self._c0 = 2.0 * (log_inv / 2.0 + max(math.log(log_inv / 2.0), 0.0))
        self._scale = self._sig * math.sqrt(2.0)
        self._mu = np.zeros((k, d))
        self._inv = np.zeros(k)
        self._ell = np.zeros(k)
        self._h2: np.ndarray | None = None  # (2, K, K): M̂ − β and M̂ + β, diagonal +inf
        self._min2 = np.zeros((2, k))  # row minima: h_i and −g_i
        self._arg2 = np.zeros((2, k), dtype=np.intp)
        self._sign = np.array([[-1.0], [1.0]])
        self._pending: int | None = None
        self._stopped = False
        self._answer: frozenset[int] | None = None
        self.steps = 0  # APE iterations (stopping tests) after the initialisation

    def _ell_of(self, n: float) -> float:
        if self.threshold == "union":
            return 2.0 * math.log(n)
        return math.log1p(math.log(n))

    def _beta_row(self, a: int) -> np.ndarray:
        """``β_aj`` for every ``j`` (``O(K)``)."""
        tot = self._ell + (self._c0 + self._ell[a])
        tot *= self._inv + self._inv[a]
        np.sqrt(tot, out=tot)
        tot *= self._scale
        return tot

    def _build(self) -> None:
        """All pairwise state from scratch, ``O(K² d)`` (once, after the initial pulls)."""
        k = self._k
        big_m = dominance_margins(self._mu)
        beta = (self._c0 + self._ell[:, None] + self._ell[None, :]) * (
            self._inv[:, None] + self._inv[None, :]
        )
        beta = self._scale * np.sqrt(beta)
        h2 = np.stack([big_m - beta, big_m + beta])
        h2[:, np.arange(k), np.arange(k)] = np.inf
        self._h2 = h2
        self._arg2 = h2.argmin(axis=2)
        self._min2 = np.take_along_axis(h2, self._arg2[:, :, None], axis=2)[:, :, 0]

    # ------------------------------------------------------------------ protocol

    def select(self) -> int | None:
        """The next arm: initial round robin, then ``b_t`` (and ``c_t``), or None once stopped."""
        self._require_reset("select")
        if self._stopped:
            return None
        if self.t < self._k:
            return self.t
        if self._pending is not None:
            arm, self._pending = self._pending, None
            return arm
        self.steps += 1
        if self._k == 1 or self._stop_test():
            self._stopped = True
            return None
        h, neg_g = self._min2[0], self._min2[1]
        score = np.where(h > 0.0, -np.inf, neg_g)
        b = int(np.argmax(score))
        c = int(self._arg2[0, b])
        if self.pull == "both":
            self._pending = c
            return b
        return b if self.counts[b] <= self.counts[c] else c

    def _stop_test(self) -> bool:
        """``Z1 ≥ 0`` and ``Z2 ≥ 0`` (spec 000 §3.9(d)); ``S(t)`` only when it can pass."""
        h, neg_g = self._min2[0], self._min2[1]
        # every arm needs h_i + ε ≥ 0 (if in S(t)) or max(h_i, g_i) ≥ 0 (if not)
        if not ((h + self._eps >= 0.0) | (neg_g <= 0.0)).all():
            return False
        mask = pareto_mask(self._mu)
        z1 = h[mask].min(initial=np.inf) + self._eps
        z2 = np.maximum(h, -neg_g)[~mask].min(initial=np.inf)
        if z1 >= 0.0 and z2 >= 0.0:
            self._answer = frozenset(int(i) for i in np.flatnonzero(mask))
            return True
        return False

    def _on_observe(self, arm: int, outcome: np.ndarray) -> None:
        a = int(arm)
        n = float(self.counts[a])
        mu_a = self.sums[a] / n
        self._mu[a] = mu_a
        self._inv[a] = 1.0 / n
        self._ell[a] = self._ell_of(n)
        if self._h2 is None:
            if self.t == self._k and self._k > 1:
                self._build()
            return
        self._update(a, mu_a)

    def _update(self, a: int, mu_a: np.ndarray) -> None:
        """Row and column ``a`` of ``M̂ ∓ β`` and the row minima they affect (``O(K d)``)."""
        h2 = self._h2
        diff = self._mu - mu_a
        col = diff.max(axis=1)  # M̂(j, a)
        row = diff.min(axis=1)
        np.negative(row, out=row)  # M̂(a, j)
        sb = self._sign * self._beta_row(a)  # (2, K): −β_aj, +β_aj
        new_row = row + sb
        new_col = col + sb
        new_row[:, a] = np.inf
        new_col[:, a] = np.inf
        h2[:, a, :] = new_row
        h2[:, :, a] = new_col
        mins, args = self._min2, self._arg2
        # rows whose minimum sat in column a and increased: recompute them
        stale = (args == a) & (new_col > mins)
        better = new_col < mins
        mins[better] = new_col[better]
        args[better] = a
        if stale.any():
            which, rows = np.nonzero(stale)
            sub = h2[which, rows]
            pos = sub.argmin(axis=1)
            args[which, rows] = pos
            mins[which, rows] = sub[np.arange(pos.size), pos]
        pos = new_row.argmin(axis=1)
        args[:, a] = pos
        mins[:, a] = new_row[[0, 1], pos]

    def state(self) -> dict[str, np.ndarray]:
        """The maintained incremental state (copies), for inspection and tests.

        ``lower`` = ``M̂ − β``, ``upper`` = ``M̂ + β`` (diagonal ``+inf``), ``h`` (row minima of
        ``lower``), ``g`` (``−`` row minima of ``upper``),
        ``argmin`` (of ``lower``'s rows: ``c_t`` when ``b_t = i``) and the sample ``means``.
        """
        self._require_reset("state")
        if self._h2 is None:
            raise AgentProtocolError(
                f"{self.name}: state() is available once every arm has been pulled once."
            )
        return {"lower": self._h2[0].copy(), "upper": self._h2[1].copy(),
                "h": self._min2[0].copy(), "g": -self._min2[1], "argmin": self._arg2[0].copy(),
                "means": self._mu.copy()}

    def recommend(self) -> Answer:
        """``S(t)`` at stopping.

        Before that: the empirical Pareto set of the pulled arms plus every arm not pulled yet.
        """
        self._require_reset("recommend")
        if self._answer is not None:
            return self._answer
        pulled = np.flatnonzero(self.counts)
        if pulled.size == 0:
            return frozenset(range(self._k))
        best = pulled[pareto_mask(self._mu[pulled])]
        unpulled = np.flatnonzero(self.counts == 0)
        return frozenset(int(i) for i in best) | frozenset(int(i) for i in unpulled)


class _Rounds(PhaseTracking, BaseAgent):
    """Rounds of one pull per active arm, then a classification step (Racing, PAL).

    Subclasses implement ``_classify()`` (called at the end of every round with ``counts`` and
    ``sums`` up to date) which updates ``_active`` (sorted arm indices) and ``_accepted``.
    """

    def _start(self) -> None:
        k = self.spec.n_arms
        self._active = np.arange(k)
        self._accepted: list[int] = []
        self._rejected: list[int] = []
        self._round = 0
        self._start_phases(k, int(self.spec.outcome_dim))

    @property
    def done(self) -> bool:
        """Whether every arm is classified (no active arm left)."""
        return hasattr(self, "_active") and self._active.size == 0

    def _plan_phase(self) -> None:
        self._remaining = np.zeros(self.n_arms, dtype=np.int64)
        self._remaining[self._active] = 1
        self._left = int(self._active.size)
        self._cursor = 0
        self._planned = True

    def _finish_phase(self) -> None:
        self._round += 1
        self._planned = False
        self._classify()

    def _classify(self) -> None:
        raise NotImplementedError

    def _apply(self, remove: np.ndarray, accept: np.ndarray) -> None:
        """Remove ``remove`` (positions in ``_active``), then accept ``accept`` (in the rest)."""
        active = self._active
        self._rejected = sorted(self._rejected + active[remove].tolist())
        active = active[~remove]
        self._accepted = sorted(self._accepted + active[accept].tolist())
        self._active = active[~accept]

    @property
    def accepted(self) -> list[int]:
        """Arms classified Pareto-optimal so far."""
        return list(self._accepted)

    @property
    def rejected(self) -> list[int]:
        """Arms discarded as dominated so far."""
        return list(self._rejected)

    def _active_means(self) -> np.ndarray:
        raise NotImplementedError

    def recommend(self) -> Answer:
        """The accepted arms plus the active arms empirically Pareto-optimal among themselves.

        Before the first round ends: every arm.
        """
        self._require_reset("recommend")
        active = self._active
        if active.size and self._round > 0:
            active = active[pareto_mask(self._active_means())]
        return frozenset(self._accepted) | frozenset(int(i) for i in active)


def _accept_sets(big_m: np.ndarray, width: np.ndarray) -> np.ndarray:
    """``P_2`` as a mask, given the margins ``M̂(i, j)`` and widths among the remaining arms.

    ``P_1 = {i : ∀ j ≠ i, M̂(i, j) > w_ij}``; ``P_2 = P_1`` if every arm is in ``P_1``, else
    ``{i ∈ P_1 : ∀ j ∉ P_1, M̂(j, i) > w_ji}`` (Auer et al. 2016, Alg. 1; spec 000 §3.9(e)-(f)).
    """
    n = big_m.shape[0]
    diag = np.eye(n, dtype=bool)
    p1 = ((big_m > width) | diag).all(axis=1)
    if p1.all():
        return p1
    safe = (big_m > width)[~p1][:, p1].all(axis=0)  # rows j ∉ P_1, columns i ∈ P_1
    p2 = np.zeros(n, dtype=bool)
    p2[np.flatnonzero(p1)[safe]] = True
    return p2


class Racing(_Rounds):
    """Pareto racing of Auer, Chiang, Ortner & Drugan (ICML 2016; spec 000 §3.9(f)).

    Unstructured. Round ``t`` pulls every active arm once (so all active arms have ``t`` samples);
    then, with the sample means and ``β = β_ij(t, t)`` of
    :func:`bandit_envs.pareto.ape_confidence`:

    1. remove ``i`` from ``A`` if some ``j ∈ A`` has ``m̂(i, j)_+ > β`` (confidently dominated);
    2. among the remaining arms, ``P_1 = {i : ∀ j ≠ i, M̂(i, j)_+ > β}`` and ``P_2 = P_1`` if
       ``A = P_1``, else ``{i ∈ P_1 : ∀ j ∈ A − P_1, M̂(j, i)_+ > β}``; accept ``P_2`` and remove it
       from ``A``.

    Stop when ``A`` is empty and answer the accepted arms. Step 2 uses ``A`` after step 1
    (the spec is silent on the order; a removed arm is dominated on the good event, so either
    order is correct). Correctness with ``threshold="union"``: on the event of
    :func:`~bandit_envs.pareto.ape_confidence` every removed arm is dominated, and an accepted arm
    is dominated by no active arm — nor by a removed one (its dominator chain ends in an active or
    accepted arm) nor later by an accepted one (``P_2``'s condition). The ε of ε-PSI is not used:
    ``S*`` is also an ε-Pareto set.

    **Batch path**: one batch per round (decisions need every round's data).

    Args:
        threshold: ``"union"`` (default, δ-correct) or ``"heuristic"`` (the C++ code's width,
            not δ-correct), as in :func:`bandit_envs.pareto.ape_confidence`.
    """

    capabilities = AgentCapabilities(
        tasks=frozenset({"pareto_set"}),
        settings=frozenset({"fixed_confidence"}),
        structures=frozenset({"none"}),
        outcome_dims="any",
        batch=True,
    )

    def __init__(self, threshold: str = "union") -> None:
        self.threshold = threshold

    def _on_reset(self, spec: ProblemSpec) -> None:
        _check_choice(self.name, "threshold", self.threshold, APE_THRESHOLDS)
        self._sig = _sigma(spec)
        self._start()

    def _active_means(self) -> np.ndarray:
        return self.sums[self._active] / self.counts[self._active, None]

    def _classify(self) -> None:
        spec = self.spec
        t = self._round
        beta = float(ape_confidence(t, t, float(spec.delta), self._sig, threshold=self.threshold,
                                    n_arms=spec.n_arms, n_objectives=int(spec.outcome_dim)))
        big_m = dominance_margins(self._active_means())
        # m̂(i, j)_+ > β  ⇔  −M̂(i, j) > β (β ≥ 0); the diagonal M̂(i, i) = 0 never triggers
        remove = (-big_m > beta).any(axis=1)
        keep = ~remove
        sub = big_m[keep][:, keep]
        accept = _accept_sets(np.maximum(sub, 0.0), np.full(sub.shape, beta))
        self._apply(remove, accept)


class PAL(_Rounds):
    """PAL (Zuluaga et al., ICML 2013) with a linear kernel (spec 000 §3.9(e)).

    As in the GEGE authors' Python code (Zuluaga, Sergent, Krause & Püschel's PAL "simplified by
    using insights from Auer et al. 2016").

    Round ``t`` pulls every active arm once and adds them to ``V_t = Σ_s x_{a_s} x_{a_s}ᵀ`` (all
    rounds' samples); ``Θ̂_t = V_t⁻¹ Σ_s x_{a_s} y_sᵀ`` in the coordinates of
    :func:`bandit_envs.linalg.reduce_features` (``V_t`` is invertible there after round 1 — the
    code's ``10⁻⁶ I`` ridge is not needed). Widths ``β_i = √(b_t ‖x_i‖²_{V_t⁻¹})`` with

    * ``constants="practical"`` (default, the authors' code): ``b_t = log(K d π² t² / (6δ)) / 5``
      — the ``/5`` was "tuned empirically" and no σ appears. **Heuristic, not δ-correct.**
    * ``constants="theory"``: ``b_t = 2 σ² log(K d π² t² / (6δ))``, i.e. Zuluaga et al.'s
      ``β_t = 2 log(|E| π² t²/(6δ))`` (Thm 1, ``|E| = K d``) with the linear-kernel posterior
      variance ``σ² ‖x‖²_{V⁻¹}`` — the un-tuned constant. Thm 1 is a Bayesian guarantee (Θ drawn
      from the prior); there is no frequentist δ-correctness proof for this adaptive design, so
      it too is **heuristic** in the sense of this library (it is conservative in practice).

    Classification, among the active arms ``A`` with ``w_ij = β_i + β_j``: remove ``i`` if
    ``max_{j≠i} [m̂(i, j) − w_ij] ≥ 0``; among the rest, ``P_1 = {i : min_{j≠i} [M̂(i, j) − w_ij]
    > 0}``, ``P_2 = {j ∈ P_1 : ∀ i ∉ P_1, M̂(i, j) − w_ij > 0}`` (``P_1`` if all are in ``P_1``);
    accept ``P_2``. Stop when ``A`` is empty. The ε of ε-PSI is not used.

    **Batch path**: one batch per round.

    Args:
        constants: ``"practical"`` or ``"theory"`` (above).
    """

    capabilities = AgentCapabilities(
        tasks=frozenset({"pareto_set"}),
        settings=frozenset({"fixed_confidence"}),
        structures=frozenset({"linear"}),
        outcome_dims="any",
        batch=True,
    )

    def __init__(self, constants: str = "practical") -> None:
        self.constants = constants

    def _on_reset(self, spec: ProblemSpec) -> None:
        _check_choice(self.name, "constants", self.constants, PAL_CONSTANTS)
        k = spec.n_arms
        features = np.eye(k) if spec.features is None else np.asarray(spec.features, float)
        self._z, _ = reduce_features(features)
        self._sig = _sigma(spec)
        self._start()
        self._theta = np.zeros((self._z.shape[1], int(spec.outcome_dim)))

    def _active_means(self) -> np.ndarray:
        return self._z[self._active] @ self._theta

    def _classify(self) -> None:
        spec = self.spec
        t = self._round
        z = self._z
        n = self.counts.astype(np.float64)
        gram = (z.T * n) @ z
        inv = np.linalg.inv(gram)
        self._theta = inv @ (z.T @ self.sums)
        log_term = math.log(spec.n_arms * int(spec.outcome_dim) * math.pi**2 * t * t
                            / (6.0 * float(spec.delta)))
        b_t = log_term / 5.0 if self.constants == "practical" else 2.0 * self._sig**2 * log_term
        za = z[self._active]
        lev = np.maximum(np.einsum("ij,jk,ik->i", za, inv, za), 0.0)
        beta = np.sqrt(b_t * lev)
        big_m = dominance_margins(self._active_means())
        width = beta[:, None] + beta[None, :]
        diag = np.eye(beta.size, dtype=bool)
        remove = ((-big_m - width >= 0.0) & ~diag).any(axis=1)
        keep = ~remove
        sub_w = width[keep][:, keep]
        accept = _accept_sets(big_m[keep][:, keep], sub_w)
        self._apply(remove, accept)
