"""Tasks: which answer is correct for a set of true means, and how answers are graded.

A task is a small object with no randomness. It computes the true answer from the means (refusing
ill-posed instances at construction), the empirical answer an agent would give from estimated
means, grades answers, and computes the instance's complexity measures.
"""

from __future__ import annotations

import abc
import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from bandit_envs.core.problem import Answer, Grade, ProblemSpec, grade
from bandit_envs.core.validation import KeepsReadOnlyArrays, check_matrix, check_nonnegative
from bandit_envs.errors import InvalidInstanceError, InvalidParameterError
from bandit_envs.theory import lp
from bandit_envs.theory.eps_good import check_epsilon, threshold_from_best
from bandit_envs.theory.linalg import span_basis
from bandit_envs.theory.pareto import complexities, is_eps_pareto_set, pareto_mask, psi_gaps

if TYPE_CHECKING:
    from bandit_envs.core.models import RewardModel


class Task(KeepsReadOnlyArrays, abc.ABC):
    """Abstract task: maps true means (K×m) to the correct answer, and grades answers."""

    #: the name agents see in ``ProblemSpec.task``.
    name: str = ""

    def n_items(self, n_arms: int) -> int:
        """The size of the answer universe (default: the arms)."""
        return n_arms

    def validate_model(self, model: RewardModel) -> None:  # noqa: B027 - optional hook
        """Refuse a reward model this task cannot be posed on (default: accept)."""

    @abc.abstractmethod
    def true_answer(self, means: np.ndarray) -> Answer:
        """The correct answer for the true means; raises InvalidInstanceError if ill-posed."""

    @abc.abstractmethod
    def empirical_answer(self, means: np.ndarray) -> Answer:
        """The answer a plug-in rule gives for estimated means (never raises on ties)."""

    def grade(self, answer: Answer, truth: Answer, means: np.ndarray) -> Grade:
        """Grade ``answer``; exact set equality by default."""
        return grade(answer, truth)

    #: which answers an instance of the task can have, in words (messages and docs quote it).
    answer_rule: str = "any set of items"

    def impossible_answer(self, answer: Answer, problem: ProblemSpec) -> str | None:
        """Why no instance of this task posed as ``problem`` has ``answer`` as its answer.

        Returns ``None`` when some instance could have it (the answer is well formed, right or
        wrong), else a sentence naming the rule it breaks. ``answer`` is a valid set of item
        indices (:func:`~bandit_envs.theory.answers.as_answer`). Default: any set is possible.
        """
        return None

    def public_fields(self) -> dict[str, Any]:
        """Task fields made public in the ProblemSpec (e.g. ``epsilon``)."""
        return {}

    def complexity(self, model: RewardModel) -> dict[str, Any]:
        """Complexity measures of the instance (lower bound, gaps, ...); may be empty."""
        return {}


class BestArm(Task):
    """Best-arm identification: the answer is ``{argmax_k μ_k}`` (scalar outcomes).

    Args:
        tie_tolerance: two means closer than ``tie_tolerance · max(1, max|μ|)`` count as tied;
            an instance whose best arm is tied is refused (its complexity is infinite).

    """

    name = "best_arm"

    def __init__(self, tie_tolerance: float = 1e-12) -> None:
        self.tie_tolerance = float(tie_tolerance)

    def validate_model(self, model: RewardModel) -> None:
        """Best arm needs scalar outcomes (m = 1)."""
        if model.outcome_dim != 1:
            raise InvalidInstanceError(
                f"BestArm: the best-arm task needs scalar outcomes (outcome_dim 1); this model "
                f"has outcome_dim {model.outcome_dim}. Use the Pareto-set task for vector outcomes."
            )

    def true_answer(self, means: np.ndarray) -> Answer:
        """``{argmax μ}``; refuses instances whose best arm is not unique."""
        mu = np.asarray(means, dtype=float).reshape(-1)
        best = int(np.argmax(mu))
        tol = self.tie_tolerance * max(1.0, float(np.max(np.abs(mu))))
        tied = np.flatnonzero(mu >= mu[best] - tol)
        if tied.size > 1:
            arms = ", ".join(str(int(i)) for i in tied)
            raise InvalidInstanceError(
                f"BestArm: the best arm is not unique: arms {arms} all have mean "
                f"{float(mu[best])!r} (within {tol:g}); best-arm identification is ill-posed here."
            )
        return frozenset({best})

    def empirical_answer(self, means: np.ndarray) -> Answer:
        """``{argmax μ̂}``, lowest index on ties."""
        return frozenset({int(np.argmax(np.asarray(means).reshape(-1)))})

    answer_rule = "exactly one arm (instances with a tied best arm are refused)"

    def impossible_answer(self, answer: Answer, problem: ProblemSpec) -> str | None:
        """Not exactly one arm: a best-arm answer is ``{k}``."""
        if len(answer) == 1:
            return None
        return f"a best-arm answer is {self.answer_rule}; got {_items(answer)}"

    def complexity(self, model: RewardModel) -> dict[str, Any]:
        """Gaps; for linear Gaussian models also T*(θ) and the oracle weights.

        The complexity T*(θ) and its optimal allocation are those of Soare, Lazaric & Munos
        (2014), Section 3.
        """
        from bandit_envs.core.models import LinearGaussian
        from bandit_envs.theory.complexity import linear_best_arm_complexity

        mu = model.means.reshape(-1)
        out: dict[str, Any] = {"gaps": float(mu.max()) - mu, "best_arm": int(np.argmax(mu))}
        if isinstance(model, LinearGaussian):
            # scalar outcomes (m = 1), so the model's σ is a float
            sigma = float(model.sigma)
            out.update(linear_best_arm_complexity(model.features, model.theta, sigma))
        return out


class ParetoSet(Task):
    """Pareto set identification (PSI), exact or ε-relaxed (Kone, Kaufmann & Richert, Section 2).

    Outcomes are vectors of ``d ≥ 1`` objectives, all maximised. The true answer is the Pareto set
    ``S*`` under the dominance of the paper's Definition 1
    (:func:`bandit_envs.theory.pareto.pareto_mask`); with ``d = 1`` it is the set of best arms.
    Grading: with ``epsilon = 0`` an answer is correct iff it equals ``S*``; with ``epsilon > 0``
    iff it is an ε-Pareto set (Section 3.3, after Auer et al. 2016: it contains ``S*`` and every
    returned arm ``i`` has ``μ_i + ε·1`` dominated by no other arm). Precision, recall and F1 are
    always measured against ``S*``.

    Args:
        epsilon: the slack ``ε ≥ 0`` of ε-PSI; public (``ProblemSpec.epsilon``).
        tie_tolerance: with ``epsilon = 0``, an instance with a PSI gap
            ``Δ_i ≤ tie_tolerance · max(1, max|μ|)`` is refused (identical mean vectors, or an arm
            dominated only weakly, make exact PSI ill-posed: the complexities of Section 2.1 are
            infinite; our rule, the paper does not discuss such instances). With ``epsilon > 0``
            such instances are well-posed and accepted (the ε-complexities stay finite).

    """

    name = "pareto_set"

    def __init__(self, epsilon: float = 0.0, tie_tolerance: float = 1e-12) -> None:
        self.epsilon = check_nonnegative(epsilon, "epsilon", "ParetoSet")
        self.tie_tolerance = check_nonnegative(tie_tolerance, "tie_tolerance", "ParetoSet")

    def validate_model(self, model: RewardModel) -> None:
        """Any number of objectives ``d ≥ 1`` is accepted (``d = 1`` is best-arm(s))."""
        if model.outcome_dim < 1:
            raise InvalidInstanceError(
                f"ParetoSet: the Pareto-set task needs outcome_dim >= 1; this model has "
                f"outcome_dim {model.outcome_dim}."
            )

    def true_answer(self, means: np.ndarray) -> Answer:
        """``S*``; with ``epsilon = 0`` refuses an instance with a zero PSI gap (ill-posed)."""
        mu = np.asarray(means, dtype=float)
        mu = mu.reshape(mu.shape[0], -1)
        result = psi_gaps(mu)
        if self.epsilon == 0.0:
            tol = self.tie_tolerance * max(1.0, float(np.max(np.abs(mu))))
            zero = np.flatnonzero(result.gaps <= tol)
            if zero.size:
                raise InvalidInstanceError(_zero_gap_message(mu, zero, result.pareto, tol))
        return frozenset(int(i) for i in np.flatnonzero(result.pareto))

    def empirical_answer(self, means: np.ndarray) -> Answer:
        """The Pareto set of the estimates (Definition-1 dominance; never raises on ties)."""
        mu = np.asarray(means, dtype=float)
        return frozenset(int(i) for i in np.flatnonzero(pareto_mask(mu.reshape(mu.shape[0], -1))))

    answer_rule = (
        "a non-empty set of arms (some arm is always undominated); with one objective and "
        "epsilon = 0, exactly one arm (ties are refused)"
    )

    def impossible_answer(self, answer: Answer, problem: ProblemSpec) -> str | None:
        """Empty (a Pareto set never is), or not one arm for ``d = 1`` exact PSI (unique best)."""
        if not answer:
            return f"a Pareto-set answer is {self.answer_rule}; got the empty set"
        if problem.outcome_dim == 1 and self.epsilon == 0.0 and len(answer) != 1:
            return (
                f"with one objective and epsilon = 0 the Pareto set is the unique best arm, so "
                f"the answer is exactly one arm; got {_items(answer)}"
            )
        return None

    def grade(self, answer: Answer, truth: Answer, means: np.ndarray) -> Grade:
        """Exact equality with ``S*`` (ε = 0) or ε-Pareto validity (ε > 0); P/R/F1 vs ``S*``."""
        if self.epsilon == 0.0:
            return grade(answer, truth)
        mu = np.asarray(means, dtype=float)
        ok = is_eps_pareto_set(answer, mu.reshape(mu.shape[0], -1), self.epsilon)
        return grade(answer, truth, correct=ok)

    def public_fields(self) -> dict[str, Any]:
        """``epsilon`` (0.0 for exact PSI)."""
        return {"epsilon": self.epsilon}

    def complexity(self, model: RewardModel) -> dict[str, Any]:
        """Gaps and complexities of the instance (Kone, Kaufmann & Richert, Section 2.1, eq. 1, 2).

        Returns a dict with ``"gaps"`` (``Δ_i``, shape ``(K,)``), ``"pareto_set"`` (sorted tuple of
        arm indices), ``"rank"`` (the ``h`` of ``H1_lin``/``H2_lin``: the numerical rank of the
        features of a linear model, else ``K``), and ``"H1"``, ``"H2"``, ``"H1_lin"``,
        ``"H2_lin"``, ``"min_gap"`` (floats, :func:`bandit_envs.theory.pareto.complexities`). With
        ``epsilon > 0`` it adds ``"H1_eps"``, ``"H2_eps"``, ``"H1_lin_eps"``, ``"H2_lin_eps"``: the
        same with ``Δ_i`` replaced by ``max(Δ_i, ε/2)`` (the paper's Appendix E.5).
        """
        mu = model.means.reshape(model.n_arms, -1)
        result = psi_gaps(mu)
        features = getattr(model, "features", None)
        if isinstance(features, np.ndarray) and features.ndim == 2:
            rank = max(1, int(span_basis(features).shape[1]))
        else:
            rank = model.n_arms
        out: dict[str, Any] = {
            "gaps": result.gaps,
            "pareto_set": tuple(int(i) for i in np.flatnonzero(result.pareto)),
            "rank": rank,
        }
        out.update(complexities(result.gaps, rank))
        if self.epsilon > 0.0:
            relaxed = complexities(np.maximum(result.gaps, self.epsilon / 2.0), rank)
            out.update({f"{key}_eps": value for key, value in relaxed.items() if key != "min_gap"})
        return out


class AllEpsilonGood(Task):
    """All ε-good arms (Li, Ma, Hua & Zhu 2025, Section 2, eq. 2): return exactly ``G_ε``.

    Additive (default): ``G_ε = {i : μ_i ≥ max_j μ_j − ε}``; multiplicative:
    ``G_ε = {i : μ_i ≥ (1 − ε)·max_j μ_j}`` (mentioned by the paper, not studied; it needs a
    positive best mean). An arm on the threshold is good (``≥``), but an instance with an arm within
    ``tie_tolerance · max(1, max|μ|)`` of the threshold is refused: its gap ``α_ε`` or ``β_ε`` is 0
    and no number of samples certifies it (infinite complexity, the paper's Section 3). Grading is
    exact set equality; precision, recall and F1 against ``G_ε`` are reported too.

    Public fields: ``ProblemSpec.epsilon`` and ``ProblemSpec.extras["multiplicative"]``, plus
    any ``hints`` in ``ProblemSpec.extras``.

    Args:
        epsilon: the slack ``ε > 0`` (multiplicative: ``0 < ε ≤ 1``).
        multiplicative: use the multiplicative definition.
        tie_tolerance: how close to the threshold an arm may be before the instance is refused.
        hints: public side information an instance family gives every agent, e.g. the paper's
            fairness protocol (Section 7): ``"m_hint"``, the *expected* number of good arms
            (what top-m baselines get), and ``"threshold_hint"``, the *expected* threshold
            (what thresholding baselines get). Never the instance's own values.

    """

    name = "all_eps_good"

    def __init__(
        self,
        epsilon: float,
        multiplicative: bool = False,
        tie_tolerance: float = 1e-9,
        hints: Mapping[str, float] | None = None,
    ) -> None:
        self.epsilon = check_epsilon(epsilon, multiplicative)
        self.multiplicative = bool(multiplicative)
        self.tie_tolerance = check_nonnegative(tie_tolerance, "tie_tolerance", "AllEpsilonGood")
        self.hints = dict(hints or {})
        if "multiplicative" in self.hints or not all(isinstance(k, str) for k in self.hints):
            raise InvalidParameterError(
                f"AllEpsilonGood: hints must map names (str, not 'multiplicative') to values; "
                f"got {sorted(map(repr, self.hints))}."
            )

    def validate_model(self, model: RewardModel) -> None:
        """All ε-good needs scalar outcomes (m = 1)."""
        if model.outcome_dim != 1:
            raise InvalidInstanceError(
                f"AllEpsilonGood: the all-epsilon-good task needs scalar outcomes (outcome_dim 1); "
                f"this model has outcome_dim {model.outcome_dim}."
            )

    def threshold(self, means: np.ndarray) -> float:
        """The threshold ``max μ − ε`` (or ``(1 − ε)·max μ``) of the given means."""
        top = float(np.max(np.asarray(means, dtype=float)))
        return threshold_from_best(top, self.epsilon, self.multiplicative)

    def true_answer(self, means: np.ndarray) -> Answer:
        """``G_ε``; refuses instances with an arm on the threshold (infinite complexity)."""
        mu = np.asarray(means, dtype=float).reshape(-1)
        top = float(np.max(mu))
        if self.multiplicative and top <= 0.0:
            raise InvalidInstanceError(
                f"AllEpsilonGood: the multiplicative definition needs a positive best mean; the "
                f"best mean here is {top!r}. Shift the means or use the additive definition."
            )
        thr = self.threshold(mu)
        tol = self.tie_tolerance * max(1.0, float(np.max(np.abs(mu))))
        close = np.flatnonzero(np.abs(mu - thr) <= tol)
        if close.size:
            arms = ", ".join(str(int(i)) for i in close[:10]) + (", ..." if close.size > 10 else "")
            raise InvalidInstanceError(
                f"AllEpsilonGood: arms {arms} have means within {tol:g} of the threshold "
                f"{thr!r} (epsilon {self.epsilon!r}); whether they are epsilon-good cannot be "
                f"certified (infinite complexity). Change epsilon or the means."
            )
        return frozenset(int(i) for i in np.flatnonzero(mu >= thr))

    def empirical_answer(self, means: np.ndarray) -> Answer:
        """``{i : μ̂_i ≥ threshold(μ̂)}`` (never raises)."""
        mu = np.asarray(means, dtype=float).reshape(-1)
        return frozenset(int(i) for i in np.flatnonzero(mu >= self.threshold(mu)))

    answer_rule = "a non-empty set of arms (the best arm is always epsilon-good)"

    def impossible_answer(self, answer: Answer, problem: ProblemSpec) -> str | None:
        """Empty: the best arm is always in ``G_ε``."""
        if answer:
            return None
        return f"an all-epsilon-good answer is {self.answer_rule}; got the empty set"

    def public_fields(self) -> dict[str, Any]:
        """``epsilon``, ``extras["multiplicative"]`` and the hints (in ``extras``)."""
        return {
            "epsilon": self.epsilon,
            "extras": {"multiplicative": self.multiplicative, **self.hints},
        }

    def complexity(self, model: RewardModel) -> dict[str, Any]:
        """Gaps and, for Gaussian models, the lower bound of Li, Ma, Hua & Zhu (2025), Theorem 3.2.

        Returns a dict with ``"gaps"`` (``Δ_i = max μ − μ_i``, shape ``(K,)``), ``"best_arm"``,
        ``"good_set"`` (sorted tuple), ``"threshold"``, ``"alpha_eps"``, ``"beta_eps"`` (``inf``
        when every arm is good), ``"xi"`` and ``"R_upper"``
        (:func:`bandit_envs.theory.eps_good.eps_good_gaps`). For Gaussian models it adds
        ``"T_star"`` (``σ²·T*(μ)``, :func:`bandit_envs.theory.eps_good.eps_good_lower_bound`: every
        δ-PAC algorithm has ``E[τ_δ] ≥ T*·log(1/(2.4δ))``), ``"oracle_weights"`` (the optimal
        allocation ``p*``), ``"lower_bound"`` (``T*`` again, the key the runner and reports read;
        they print ``T*·log(1/δ)``), ``"lower_bound_gap"`` (the certified duality gap: the
        optimum lies in ``[T* − gap, T*]``) and ``"converged"``. Linear models
        (:class:`~bandit_envs.core.models.LinearGaussian`) use their features; models without a
        linear structure to exploit (:class:`~bandit_envs.core.models.MisspecifiedLinearGaussian`,
        whose deviation from linearity is not bounded for the agent) use identity features,
        the unstructured bound (Remark 3.3). A misspecified model whose bound ``L_m`` is told
        (``model.bound``) adds :func:`bandit_envs.theory.misspecification.misspecified_complexity`
        (``"T_star_linear"``, ``"L_mu_bound"``, ``"minimax_deviation"``, ``"misspecification"``)
        and takes ``"lower_bound"`` from it (the paper's Section 5, Proposition 5.3).
        """
        from bandit_envs.core.models import LinearGaussian, MisspecifiedLinearGaussian
        from bandit_envs.theory.eps_good import eps_good_gaps, eps_good_lower_bound

        mu = model.means.reshape(-1)
        g = eps_good_gaps(mu, self.epsilon, multiplicative=self.multiplicative)
        out: dict[str, Any] = {
            "gaps": g.gaps,
            "best_arm": g.best,
            "good_set": g.good_set,
            "threshold": g.threshold,
            "alpha_eps": g.alpha,
            "beta_eps": g.beta,
            "xi": g.xi,
            "R_upper": g.r_upper,
        }
        if isinstance(model, LinearGaussian):
            features, theta = model.features, model.theta.reshape(-1)
        elif isinstance(model, MisspecifiedLinearGaussian):
            features, theta = np.eye(mu.size), mu
        else:
            return out
        sigma = float(np.max(model.sigma))
        lb = eps_good_lower_bound(
            features, theta, self.epsilon, sigma=sigma, multiplicative=self.multiplicative
        )
        out.update(
            {
                "T_star": lb.t_star,
                "lower_bound": lb.t_star,
                "oracle_weights": lb.weights,
                "lower_bound_gap": max(lb.t_star - lb.certified, 0.0),
                "converged": lb.converged,
            }
        )
        if isinstance(model, MisspecifiedLinearGaussian) and model.bound is not None:
            from bandit_envs.theory.misspecification import misspecified_complexity

            out.update(
                misspecified_complexity(
                    model.features,
                    mu,
                    self.epsilon,
                    model.bound,
                    t_unstructured=lb.t_star,
                    sigma=sigma,
                    multiplicative=self.multiplicative,
                )
            )
        return out


class ConstrainedMixedSupport(Task):
    """Constrained best *mixed* arm identification: the optimal LP basis.

    Tang, Jain, Nayyar & Nuzzo (2024, arXiv 2405.15090), Sections 2–3. Outcomes are
    ``(reward, cost_1..cost_L)`` (:class:`~bandit_envs.core.models.ConstrainedGaussian`); the
    best mixed arm ``p*`` maximises ``rᵀp`` over distributions ``p`` on the arms subject to
    ``c p ≤ c̄``. The answer is the optimal basis ``I*`` of the standard-form LP over ``K + L``
    items: the support of ``p*`` plus the slack item ``K + l`` of every **non-binding**
    constraint ``l`` (Section 4.1; :func:`bandit_envs.theory.lp.split_answer` splits it).
    Grading is exact set equality, slacks included (Section 2, "strict criteria"); precision,
    recall and F1 against ``I*`` are reported too. An infeasible instance (no ``p`` satisfies
    the constraints) has the empty answer (Section 4.3).

    The ground truth is HiGHS's optimum (:func:`bandit_envs.theory.lp.optimal_basis`); an instance
    that violates Assumption 1 (a unique optimum with exactly ``L + 1`` non-zero coordinates) is
    refused with :class:`~bandit_envs.errors.InvalidInstanceError` saying why: no budget
    identifies its support. Public: ``ProblemSpec.cost_thresholds = c̄``; ``n_items = K + L``.

    Args:
        thresholds: the cost thresholds ``c̄`` (L,), L ≥ 1 (a float for L = 1).
        tol: a coordinate of the optimum counts as non-zero when ``> tol``, and a non-basic
            reduced cost must be ``< −tol·scale`` (uniqueness).

    """

    name = "constrained_mixed"

    def __init__(self, thresholds: Any, tol: float = 1e-9) -> None:
        who = "ConstrainedMixedSupport"
        cbar = check_matrix(
            np.atleast_1d(np.asarray(thresholds, dtype=float)), "thresholds", who, ndim=1
        )
        cbar.setflags(write=False)
        self.thresholds = cbar
        self.tol = check_nonnegative(tol, "tol", who)

    @property
    def n_constraints(self) -> int:
        """L, the number of cost constraints."""
        return int(self.thresholds.size)

    def n_items(self, n_arms: int) -> int:
        """``K + L``: the arms, then one slack item per constraint."""
        return n_arms + self.n_constraints

    def validate_model(self, model: RewardModel) -> None:
        """Outcomes must be ``(reward, cost_1..cost_L)``: ``outcome_dim = L + 1``."""
        if model.outcome_dim != self.n_constraints + 1:
            raise InvalidInstanceError(
                f"ConstrainedMixedSupport: outcomes must be (reward, cost_1..cost_L) with L = "
                f"{self.n_constraints} thresholds, i.e. outcome_dim {self.n_constraints + 1}; "
                f"this model has outcome_dim {model.outcome_dim}."
            )

    def _split(self, means: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        mu = np.asarray(means, dtype=float)
        mu = mu.reshape(mu.shape[0], -1)
        return mu[:, 0], mu[:, 1:].T

    def true_answer(self, means: np.ndarray) -> Answer:
        """``I*`` (HiGHS), empty if infeasible; refuses instances violating Assumption 1."""
        rewards, costs = self._split(means)
        return lp.optimal_basis(
            rewards, costs, self.thresholds, tol=self.tol, who="ConstrainedMixedSupport"
        ).basis

    def empirical_answer(self, means: np.ndarray) -> Answer:
        """The optimal basis of the plug-in LP (USLP's rule, Section 4.3); empty if infeasible.

        By enumeration of every basis (lowest basis among exact ties) when there are at most
        200 000 of them, else HiGHS's support. Never raises.
        """
        rewards, costs = self._split(means)
        mu, a, b = lp.standard_form(rewards, costs, self.thresholds)
        if math.comb(a.shape[1], a.shape[0]) <= 200_000:
            return lp.scan_bases(mu, a, b).best_basis()
        return lp.solve_lp(mu, a, b).support

    answer_rule = (
        "the empty set (an infeasible instance) or an optimal basis: exactly L + 1 items "
        "(L = the number of cost constraints), at least one of them an arm"
    )

    def impossible_answer(self, answer: Answer, problem: ProblemSpec) -> str | None:
        """Neither empty nor ``L + 1`` items with an arm among them (Assumption 1's basis)."""
        if not answer:
            return None
        size = self.n_constraints + 1
        if len(answer) != size:
            return (
                f"a constrained-mixed answer is {self.answer_rule}; with L = "
                f"{self.n_constraints} that is {size} items, got {_items(answer)}"
            )
        if min(answer) >= problem.n_arms:
            return (
                f"a constrained-mixed answer is {self.answer_rule}; got only slack items "
                f"{_items(answer)} (arms are 0..{problem.n_arms - 1}): the mixed arm has no support"
            )
        return None

    def public_fields(self) -> dict[str, Any]:
        """``cost_thresholds`` (c̄)."""
        return {"cost_thresholds": self.thresholds}

    def split_answer(self, answer: Answer, n_arms: int) -> tuple[frozenset[int], frozenset[int]]:
        """(support arms, non-binding constraints) of an answer over ``n_arms + L`` items."""
        return lp.split_answer(answer, n_arms)

    def mixing_weights(self, answer: Answer, means: np.ndarray) -> np.ndarray:
        """``x_X = A_X⁻¹ b`` for the basis ``answer`` under ``means`` (K, L + 1) (Remark 2).

        Returns the (K + L,) vector: the weights ``p`` of the mixed arm (``x[:K]``, summing to 1)
        and the slacks (``x[K:]``). With estimated means this is the paper's ``x̂``.
        """
        rewards, costs = self._split(means)
        return lp.mixing_weights(answer, rewards, costs, self.thresholds)

    def complexity(self, model: RewardModel) -> dict[str, Any]:
        """The optimal basis and the hardness of Tang et al. (2024), Section 4 (cached by the env).

        Returns a dict with ``"feasible"``; for a feasible instance also ``"optimal_basis"``,
        ``"support_arms"``, ``"nonbinding_constraints"`` (sorted tuples), ``"weights"`` (``x*``,
        (K + L,)), ``"value"`` (``rᵀp*``), ``"margin"`` (``v(I*)`` minus the best other feasible
        basis, our diagnostic; ``None`` beyond 200 000 bases), and, for
        :class:`~bandit_envs.core.models.ConstrainedGaussian` models
        (:func:`bandit_envs.theory.lp.hardness`):
        ``"Delta0_sq"`` (``Δ0²``, eq. 11), ``"arm_gaps_sq"`` (``Δ_a²`` of every item, eq. 10),
        ``"Delta_L2_sq"`` (``Δ_(L+2)²``), ``"lower_bound_rate"`` (``½ min(Δ0², Δ_(L+2)²)``,
        Theorem 2), ``"uslp_rate"`` (USLP's exponent is at most this), ``"sfsr_rate"`` (eq. 15's
        guaranteed SFSR exponent) and ``"approximate"`` (``True`` when a value came from the
        numerical search over mixing weights: an upper estimate of a non-convex infimum). The
        gaps are weighted by ``σ_r⁻²`` and ``σ_c⁻²`` and move only unknown arms.
        """
        from bandit_envs.core.models import ConstrainedGaussian

        rewards, costs = self._split(model.means)
        opt = lp.optimal_basis(
            rewards, costs, self.thresholds, tol=self.tol, who="ConstrainedMixedSupport"
        )
        if not opt.basis:
            return {"feasible": False, "optimal_basis": ()}
        k = rewards.size
        mu, a, b = lp.standard_form(rewards, costs, self.thresholds)
        margin = None
        if math.comb(a.shape[1], a.shape[0]) <= 200_000:
            margin = opt.value - lp.second_best_value(mu, a, b, opt.basis)
        out: dict[str, Any] = {
            "feasible": True,
            "optimal_basis": tuple(sorted(opt.basis)),
            "support_arms": tuple(sorted(i for i in opt.basis if i < k)),
            "nonbinding_constraints": tuple(sorted(i - k for i in opt.basis if i >= k)),
            "weights": opt.x,
            "value": opt.value,
            "margin": margin,
        }
        if not isinstance(model, ConstrainedGaussian):
            return out
        unknown = model.unknown_mask
        h = lp.hardness(
            rewards,
            costs,
            self.thresholds,
            opt.basis,
            sigma_r=model.sigma_r,
            sigma_c=model.sigma_c,
            unknown=unknown,
        )
        out.update(
            {
                "Delta0_sq": h.delta0_sq,
                "arm_gaps_sq": h.arm_gaps_sq,
                "Delta_L2_sq": h.delta_next_sq,
                "approximate": h.approximate,
                **h.rates(k, self.n_constraints, int(unknown.sum())),
            }
        )
        return out


def _items(answer: Answer) -> str:
    """An answer in messages: ``2 items {0, 3}``, ``the empty set``."""
    if not answer:
        return "the empty set"
    shown = sorted(answer)
    text = ", ".join(str(i) for i in shown[:10]) + (", ..." if len(shown) > 10 else "")
    return f"{len(shown)} item{'s' if len(shown) != 1 else ''} {{{text}}}"


def _zero_gap_message(mu: np.ndarray, zero: np.ndarray, pareto: np.ndarray, tol: float) -> str:
    arms = ", ".join(str(int(i)) for i in zero[:10]) + (", ..." if zero.size > 10 else "")
    first = int(zero[0])
    same = np.flatnonzero((mu == mu[first]).all(axis=1))
    if same.size > 1:
        why = (
            f"arms {', '.join(str(int(i)) for i in same[:10])} have the identical mean vector "
            f"{mu[first].tolist()!r}"
        )
    elif pareto[first]:
        why = (
            f"Pareto-optimal arm {first} ({mu[first].tolist()!r}) has an arm on the boundary of "
            f"its dominance region, so no number of samples certifies it is not dominated"
        )
    else:
        why = (
            f"arm {first} ({mu[first].tolist()!r}) is dominated, but each arm dominating it equals "
            f"it on some objective (up to {tol:g})"
        )
    return (
        f"ParetoSet: the PSI gap of arms {arms} is 0 (at most {tol:g}): {why}. Exact Pareto set "
        f"identification is ill-posed on this instance (infinite complexity); "
        f"perturb the means or use ParetoSet(epsilon > 0)."
    )
