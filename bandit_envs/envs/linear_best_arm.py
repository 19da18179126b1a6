"""Linear best-arm identification instances (Soare, Lazaric & Munos 2014; Zaki, Mohan & Gopalan).

Each function builds a :class:`~bandit_envs.PureExplorationEnv` and is the entry point of a
registered id. Setting keywords: ``delta=`` (fixed confidence) or ``budget=`` (fixed budget);
with neither, the id's default δ is used.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np

from bandit_envs.core.env import PureExplorationEnv
from bandit_envs.core.models import LinearGaussian
from bandit_envs.core.tasks import BestArm
from bandit_envs.core.validation import (
    array_ndim,
    check_finite,
    check_nonnegative,
    check_positive_int,
)
from bandit_envs.envs.registration import env_factory, probe_problem
from bandit_envs.errors import InvalidParameterError

#: the decorator of this family's ids.
declare = functools.partial(env_factory, family="linear best arm", task="best_arm")


def soare_features(d: int, omega: float) -> np.ndarray:
    """Arms e₁..e_d and (cos ω, sin ω, 0, …, 0): the instance of Soare et al. 2014, Section 6."""
    features = np.vstack([np.eye(d), np.zeros((1, d))])
    features[d, 0], features[d, 1] = math.cos(omega), math.sin(omega)
    return features


@declare(
    "LinearBAI-Soare-v0",
    default_agent="XYAdaptive",
    summary="e1..e_d plus an arm at angle omega from e1; theta = scale*e1",
    source="Soare, Lazaric & Munos 2014, Section 6",
    default_delta=0.05,
    quick={"omega": 0.5},
)
def make_soare(
    d: int = 2,
    omega: float = 0.1,
    scale: float = 2.0,
    sigma: float = 1.0,
    *,
    delta: float | None = None,
    budget: int | None = None,
    **env_kwargs: Any,
) -> PureExplorationEnv:
    """``LinearBAI-Soare-v0``: the hard instance of Soare et al. (2014, Section 6 and App. E).

    Arms e₁, …, e_d and x_{d+1} = (cos ω, sin ω, 0, …, 0); θ = scale·e₁; Gaussian noise σ. The
    best arm is e₁, and x_{d+1} trails it by Δ_min = scale·(1 − cos ω). Learning it needs pulls
    of e₂, the arm most aligned with e₁ − x_{d+1}.

    Defaults: d = 2, ω = 0.1, scale = 2, σ = 1, δ = 0.05 (T* ≈ 222). The paper's own preset is
    ``d=5, omega=0.01`` (T* ≈ 2·10⁴); the variant of Zaki, Mohan & Gopalan (Section 6, setting
    3) is ``scale=1``.
    """
    who = "LinearBAI-Soare-v0"
    d = check_positive_int(d, "d", who, minimum=2)
    omega = check_finite(omega, "omega", who)
    if not 0.0 < omega < math.pi / 2:
        raise InvalidParameterError(
            f"{who}: omega must be an angle in radians in (0, pi/2); got {omega!r}."
        )
    scale = check_finite(scale, "scale", who)
    if scale <= 0:
        raise InvalidParameterError(f"{who}: scale must be > 0 (θ = scale·e₁); got {scale!r}.")
    sigma = check_nonnegative(sigma, "sigma", who)
    theta = np.zeros(d)
    theta[0] = scale
    model = LinearGaussian(soare_features(d, omega), theta, sigma)
    info = {"d": d, "omega": omega, "scale": scale, "sigma": sigma}
    return PureExplorationEnv(
        model,
        BestArm(),
        name=who,
        instance_info=info,
        delta=delta,
        budget=budget,
        **env_kwargs,
    )


@declare(
    "LinearBAI-Basis-v0",
    default_agent="PELEG",
    summary="arms e1..e_d, theta = (gap, 0, ...)",
    source="Zaki, Mohan & Gopalan 2020 (PELEG), Section 6, setting 1",
    default_delta=0.1,
    quick={"gap": 0.5, "d": 3},
)
def make_basis(
    d: int = 5,
    gap: float = 0.2,
    sigma: float = 1.0,
    *,
    delta: float | None = None,
    budget: int | None = None,
    **env_kwargs: Any,
) -> PureExplorationEnv:
    """``LinearBAI-Basis-v0``: the standard bandit of Zaki, Mohan & Gopalan, Section 6, setting 1.

    Arms e₁, …, e_d and θ = (gap, 0, …, 0): the best arm is e₁ and every other arm trails it by
    ``gap``. The characteristic quantity is D = gap²/(1 + √(d−1))², so
    T* = 2σ²(1 + √(d−1))²/gap². Defaults d = 5, gap = 0.2, σ = 1, δ = 0.1 (the paper's δ).
    """
    who = "LinearBAI-Basis-v0"
    d = check_positive_int(d, "d", who, minimum=2)
    gap = check_finite(gap, "gap", who)
    if gap <= 0:
        raise InvalidParameterError(f"{who}: gap must be > 0; got {gap!r}.")
    sigma = check_nonnegative(sigma, "sigma", who)
    theta = np.zeros(d)
    theta[0] = gap
    model = LinearGaussian(np.eye(d), theta, sigma)
    info = {"d": d, "gap": gap, "sigma": sigma}
    return PureExplorationEnv(
        model,
        BestArm(),
        name=who,
        instance_info=info,
        delta=delta,
        budget=budget,
        **env_kwargs,
    )


def sphere_instance(
    n_arms: int, d: int, gamma: float, instance_seed: int
) -> tuple[np.ndarray, np.ndarray]:
    """Arms uniform on the unit sphere of R^d and θ = u + γ(v − u) for the two closest arms u, v.

    The construction of Tao, Blanco & Zhou (2018) used by Zaki, Mohan & Gopalan (Section 6,
    setting 2):
    ``u`` is the best arm and ``v`` trails it by (1 − uᵀv)(1 − 2γ).
    """
    rng = np.random.default_rng(instance_seed)
    arms = rng.standard_normal((n_arms, d))
    arms /= np.linalg.norm(arms, axis=1, keepdims=True)
    inner = arms @ arms.T
    np.fill_diagonal(inner, -np.inf)
    u, v = np.unravel_index(int(np.argmax(inner)), inner.shape)
    theta = arms[u] + gamma * (arms[v] - arms[u])
    return arms, theta


@declare(
    "LinearBAI-Sphere-v0",
    default_agent="PELEG",
    summary="n_arms arms uniform on the sphere of R^d, theta = u + gamma (v - u) for the two "
    "closest arms",
    source="Tao, Blanco & Zhou 2018, via Zaki, Mohan & Gopalan 2020 (PELEG), Section 6, setting 2",
    default_delta=0.1,
    quick={"n_arms": 8, "d": 3},
)
def make_sphere(
    n_arms: int = 100,
    d: int = 10,
    gamma: float = 0.01,
    sigma: float = 1.0,
    instance_seed: int = 0,
    *,
    delta: float | None = None,
    budget: int | None = None,
    **env_kwargs: Any,
) -> PureExplorationEnv:
    """``LinearBAI-Sphere-v0``: K arms uniform on the sphere (Zaki et al., Section 6, setting 2).

    The arms are drawn from ``instance_seed`` (the episode seed only changes the noise); θ =
    u + γ(v − u) for the two closest arms u, v, so u is the best arm and v its closest competitor.
    Defaults K = 100, d = 10, γ = 0.01, σ = 1, δ = 0.1 (the paper's, with d ∈ {10, …, 50}).
    The keyword for K is ``n_arms``.
    """
    who = "LinearBAI-Sphere-v0"
    n_arms = check_positive_int(n_arms, "n_arms", who, minimum=2)
    d = check_positive_int(d, "d", who, minimum=2)
    gamma = check_finite(gamma, "gamma", who)
    if not 0.0 <= gamma < 0.5:
        raise InvalidParameterError(
            f"{who}: gamma must be in [0, 0.5) so that u stays the best arm; got {gamma!r}."
        )
    instance_seed = check_positive_int(instance_seed, "instance_seed", who, minimum=0)
    sigma = check_nonnegative(sigma, "sigma", who)
    arms, theta = sphere_instance(n_arms, d, gamma, instance_seed)
    model = LinearGaussian(arms, theta, sigma)
    info = {
        "n_arms": n_arms,
        "d": d,
        "gamma": gamma,
        "sigma": sigma,
        "instance_seed": instance_seed,
    }
    return PureExplorationEnv(
        model,
        BestArm(),
        name=who,
        instance_info=info,
        delta=delta,
        budget=budget,
        **env_kwargs,
    )


@declare(
    "LinearBAI-Custom-v0",
    default_agent="RAGE",
    summary="your own features (K x h), theta and sigma (no arrays: a 3-arm example, features "
    "e_1, e_2, e_3 and theta (1, 0.5, 0.2))",
    default_delta=0.05,
)
def make_custom(
    features: Any = None,
    theta: Any = None,
    sigma: float = 1.0,
    *,
    delta: float | None = None,
    budget: int | None = None,
    **env_kwargs: Any,
) -> PureExplorationEnv:
    """``LinearBAI-Custom-v0``: best-arm identification on your own linear instance.

    Give ``features`` and ``theta`` together. With neither, a three-arm example (as the other
    Custom ids have one): features ``e_1, e_2, e_3`` and ``θ = (1, 0.5, 0.2)``, best arm 0.

    Args:
        features: K×h arm features (identity for an unstructured Gaussian bandit).
        theta: the parameter θ, shape (h,).
        sigma: noise standard deviation (0 gives a noiseless instance).
        delta: confidence δ (fixed confidence; the default, 0.05, when no budget is given).
        budget: number of pulls T (fixed budget).
        **env_kwargs: further :class:`~bandit_envs.PureExplorationEnv` keywords
            (``max_samples``, ``sample_cost``, ``correct_reward``, ``wrong_reward``,
            ``render_mode``).
    """
    who = "LinearBAI-Custom-v0"
    if features is None and theta is None:
        features, theta = np.eye(3), [1.0, 0.5, 0.2]
    if features is None or theta is None:
        raise InvalidParameterError(
            f"{who}: features= (K×h array) and theta= (length-h array) are required, e.g. "
            f"gym.make('{who}', features=np.eye(3), theta=[1.0, 0.5, 0.2])."
        )
    if array_ndim(theta, "theta", who) != 1:
        raise InvalidParameterError(
            f"{who}: theta must be a 1-D array (one parameter per feature); got shape "
            f"{np.shape(theta)}. Multi-output models belong to the Pareto-set ids."
        )
    sigma = check_nonnegative(sigma, "sigma", who)
    model = LinearGaussian(features, theta, sigma)
    if model.n_arms < 2:
        raise InvalidParameterError(f"{who}: features must have at least 2 rows (arms); got 1.")
    return PureExplorationEnv(model, BestArm(), name=who, delta=delta, budget=budget, **env_kwargs)


# --------------------------------------------------------------------------- probe problems


def _probe(
    features: Any, theta: Any, sigma: float, name: str, **setting: Any
) -> PureExplorationEnv:
    return PureExplorationEnv(
        LinearGaussian(features, theta, sigma), BestArm(), name=name, **setting
    )


_PLANE = np.array([[1.0, 0.0], [0.0, 1.0], [np.cos(0.5), np.sin(0.5)]])
_RANK2 = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1.0, 1.0, 0.0], [0.5, 0.2, 0.0]])


@probe_problem("best_arm", "3 arms in the plane")
def _probe_plane(**setting: Any) -> PureExplorationEnv:
    return _probe(_PLANE, [1.0, 0.0], 0.5, "probe-plane", **setting)


@probe_problem("best_arm", "easy: 3 arms, gap 1, sigma 0.2", easy=True)
def _probe_easy(**setting: Any) -> PureExplorationEnv:
    return _probe(np.eye(3), [1.0, 0.0, -0.5], 0.2, "probe-easy", **setting)


@probe_problem("best_arm", "K=2, h=1")
def _probe_two_arms(**setting: Any) -> PureExplorationEnv:
    return _probe([[1.0], [0.5]], [1.0], 0.3, "probe-k2-h1", **setting)


@probe_problem("best_arm", "rank-deficient features (K=4, h=3, rank 2)")
def _probe_rank2(**setting: Any) -> PureExplorationEnv:
    return _probe(_RANK2, [1.0, 0.3, 5.0], 0.3, "probe-rank2", **setting)


@probe_problem("best_arm", "noiseless (sigma=0)")
def _probe_noiseless(**setting: Any) -> PureExplorationEnv:
    return _probe(_PLANE, [1.0, 0.0], 0.0, "probe-noiseless", **setting)
