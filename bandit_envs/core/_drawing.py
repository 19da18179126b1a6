"""The matplotlib drawings of :mod:`bandit_envs.core.rendering`, one per task family.

Every function draws from an :class:`~bandit_envs.core.rendering.EpisodeView`, the snapshot of an
episode that the environment hands over; nothing here reads the environment itself. matplotlib
is imported inside the functions, so importing this module needs no matplotlib.
"""

from __future__ import annotations

import dataclasses
from typing import Any, cast

import numpy as np

from bandit_envs.core._view import EpisodeView, empirical_means
from bandit_envs.core.tasks import AllEpsilonGood, ConstrainedMixedSupport
from bandit_envs.theory import lp

# colours: truth in red, the environment's empirical answer in black, the agent's in orange.
_TRUTH = "#d62728"
_EMPIRICAL = "black"
_AGENT = "#ff7f0e"
_CMAP = "viridis"


# ---------------------------------------------------------------------------------- state


@dataclasses.dataclass(frozen=True)
class _State:
    """What a picture shows: counts, the truth, the empirical estimates and the answer."""

    pulls: np.ndarray  # (K,)
    means: np.ndarray  # (K, m), true
    truth: frozenset[int]
    estimates: np.ndarray | None  # (K, m) empirical means, NaN where unknown; None: no data
    empirical: frozenset[int] | None  # the plug-in answer of the estimates
    answer: frozenset[int] | None  # the agent's answer, once the episode has ended


def _state(view: EpisodeView) -> _State:
    est = empirical_means(view)
    empirical = None
    if est is not None:
        seen = np.flatnonzero(~np.isnan(est).any(axis=1))
        if seen.size:  # the plug-in answer among the arms with an estimate
            sub = view.task.empirical_answer(est[seen])
            # items past the sub-problem's arms are the slacks K..K+L-1 (constrained mixed)
            empirical = frozenset(
                int(seen[i]) if i < seen.size else view.n_arms + int(i) - seen.size for i in sub
            )
    return _State(
        pulls=view.pulls.copy(),
        means=np.asarray(view.model.means, dtype=float).reshape(view.n_arms, -1),
        truth=view.true_answer,
        estimates=est,
        empirical=empirical,
        answer=view.answer,
    )


# -------------------------------------------------------------------------------- drawing


def draw(view: EpisodeView, fig: Any) -> None:
    """Draw the episode ``view`` on the matplotlib figure ``fig`` (cleared first).

    Args:
        view: the episode to draw.
        fig: a ``matplotlib.figure.Figure``.
    """
    fig.clear()
    ax = fig.add_axes((0.1, 0.2, 0.75, 0.7))
    state = _state(view)
    name = view.task.name
    if name in ("best_arm", "all_eps_good"):
        _draw_scalar(view, state, fig, ax)
    elif name == "pareto_set":
        _draw_pareto(view, state, fig, ax)
    elif name == "constrained_mixed":
        _draw_constrained(view, state, fig, ax)
    else:
        _draw_counts(view, state, ax)
    ax.set_title(_title(view, state), fontsize=10, y=1.0, pad=5)  # fixed y: no auto-placing
    ax.locator_params(nbins=6)
    _layout(fig, ax, _legend(ax))


def _layout(fig: Any, ax: Any, legend_rows: int) -> None:
    """Fixed margins (in pixels) for the title, the legend rows and the colour bar.

    A fixed layout keeps frames aligned from one step to the next, and costs far less than
    matplotlib's constrained layout (which would double the time of a frame).
    """
    width, height = fig.get_size_inches() * fig.dpi
    top = 1.0 - 40.0 / height
    bottom = (48.0 + 18.0 * legend_rows + (6.0 if legend_rows else 0.0)) / height
    left = 68.0 / width
    bars = [other for other in fig.axes if other is not ax]
    right = 1.0 - (92.0 if bars else 16.0) / width
    ax.set_position((left, bottom, right - left, top - bottom))
    for bar in bars:
        bar.set_position((right + 18.0 / width, bottom, 14.0 / width, top - bottom))


def _title(view: EpisodeView, state: _State) -> str:
    if view.setting == "fixed_confidence":
        setting = f"fixed confidence, δ = {view.delta:g}"
    else:
        setting = f"fixed budget, T = {view.budget}"
    if not view.done:
        status = "running"
    elif view.stop_reason == "max_samples":
        status = "truncated (max_samples)"
    else:
        graded = view.task.grade(state.answer or frozenset(), state.truth, view.model.means)
        status = f"ended ({view.stop_reason}): answer {'correct' if graded.correct else 'wrong'}"
    return f"{view.name}\n{setting} · {view.samples} samples · {status}"


def _sizes(pulls: np.ndarray) -> np.ndarray:
    """Marker areas (pt²) growing with the pull counts; smaller markers for many arms."""
    k = pulls.size
    top = 320.0 if k <= 30 else 140.0 if k <= 200 else 70.0
    low = 22.0 if k <= 200 else 8.0
    most = max(int(pulls.max()), 1)
    return low + (top - low) * pulls / most


def _arms(fig: Any, ax: Any, xy: np.ndarray, pulls: np.ndarray, label: bool = True) -> None:
    """Scatter the arms, area and colour by pulls, with a colour bar (and indices if few)."""
    from matplotlib.colors import Normalize
    from matplotlib.ticker import MaxNLocator

    norm = Normalize(vmin=0, vmax=max(int(pulls.max()), 1))
    order = np.argsort(pulls, kind="stable")  # most pulled drawn last, on top
    k = pulls.size
    points = ax.scatter(
        xy[order, 0],
        xy[order, 1],
        s=_sizes(pulls)[order],
        c=pulls[order],
        cmap=_CMAP,
        norm=norm,
        edgecolors="0.25",
        linewidths=0.4 if k > 60 else 0.6,
        alpha=0.9,
        zorder=2,
        label="arm: index (pulls); area, colour: pulls"
        if label and k <= 12
        else "arm (area, colour: pulls)",
    )
    bar = fig.colorbar(points, cax=fig.add_axes((0.87, 0.2, 0.02, 0.7)))
    bar.ax.set_title("pulls", fontsize=8, loc="left")
    bar.ax.tick_params(labelsize=8)
    bar.locator = MaxNLocator(5, integer=True)
    if label and k <= 30:  # arm indices (and the counts when there are few arms)
        for group in _clusters(xy):
            names = ", ".join(str(i) for i in group[:4]) + (", …" if len(group) > 4 else "")
            if k <= 12:
                counts = ", ".join(str(int(pulls[i])) for i in group[:4])
                names += f" ({counts}{', …' if len(group) > 4 else ''})"
            ax.annotate(
                names,
                tuple(xy[group[0]]),
                xytext=(6, 6),
                textcoords="offset points",
                fontsize=7,
                color="0.2",
                zorder=5,
            )


def _clusters(xy: np.ndarray, radius: float = 0.03) -> list[list[int]]:
    """Arms closer than ``radius`` (as a share of the plot's extent) share one label."""
    span = np.ptp(xy, axis=0)
    scaled = xy / np.where(span > 0, span, 1.0)
    groups: list[list[int]] = []
    for i, point in enumerate(scaled):
        for group in groups:
            if np.max(np.abs(scaled[group[0]] - point)) < radius:
                group.append(i)
                break
        else:
            groups.append([i])
    return groups


def _ring(ax: Any, xy: np.ndarray, items: Any, pulls: np.ndarray, label: str) -> None:
    idx = np.array(sorted(i for i in items if i < len(xy)), dtype=int)
    if idx.size == 0:
        return
    ax.scatter(
        xy[idx, 0],
        xy[idx, 1],
        s=_sizes(pulls)[idx] * 1.6 + 60,
        facecolors="none",
        edgecolors=_TRUTH,
        linewidths=1.8,
        zorder=3,
        label=label,
    )


def _marks(
    ax: Any, xy: np.ndarray, items: Any, marker: str, color: str, label: str, size: float = 60.0
) -> None:
    idx = np.array(sorted(i for i in items if i < len(xy)), dtype=int)
    if idx.size == 0:
        return
    ax.scatter(
        xy[idx, 0],
        xy[idx, 1],
        s=size,
        marker=marker,
        c=color,
        linewidths=1.8,
        zorder=4,
        label=label,
    )


def _legend(ax: Any) -> int:
    """The legend under the plot (it never hides an arm), with same-size symbols; its rows."""
    handles, labels = ax.get_legend_handles_labels()
    if not handles:
        return 0
    legend = ax.figure.legend(
        handles,
        labels,
        loc="lower center",
        bbox_to_anchor=(0.5, 0.0),
        ncols=2,
        fontsize=8,
        frameon=False,
        handletextpad=0.4,
        columnspacing=1.5,
        borderaxespad=0.3,
    )
    for handle in getattr(legend, "legend_handles", getattr(legend, "legendHandles", [])):
        if hasattr(handle, "set_sizes"):
            handle.set_sizes([45.0])
    return (len(handles) + 1) // 2


def _is_identity(x: np.ndarray | None) -> bool:
    return x is None or (x.shape[0] == x.shape[1] and np.array_equal(x, np.eye(x.shape[0])))


def _scalar_theta(view: EpisodeView) -> tuple[np.ndarray | None, str]:
    """The true θ of a scalar model (h,), and what ``xᵀθ`` is; ``None`` if there is none."""
    model = view.model
    theta = getattr(model, "theta", None)
    what = {"linear": "true mean μ = xᵀθ", "glm": "linear predictor xᵀθ (the mean grows with it)"}
    if isinstance(theta, np.ndarray) and theta.size == theta.shape[0]:
        return theta.reshape(-1), what.get(view.problem.structure, "xᵀθ")
    fit = model.truth().get("theta_ls")
    if isinstance(fit, np.ndarray) and fit.size == fit.shape[0]:
        return fit.reshape(-1), "xᵀθ_LS (least-squares fit of the true means)"
    return None, ""


def _feature_plane(
    x: np.ndarray, theta: np.ndarray | None, what: str
) -> tuple[np.ndarray, tuple[str, str], bool]:
    """2-D coordinates of the features, their axis labels, and whether to draw a θ arrow.

    h = 2: the features themselves (θ drawn as an arrow). Otherwise, with θ known, the
    projection on the plane spanned by θ and the main direction of the features orthogonal to
    θ: the abscissa is ``xᵀθ`` (for a linear model, the true mean). Without θ, the top two PCA
    components.
    """
    h = x.shape[1]
    if h == 2:
        return x.astype(float), ("feature 1", "feature 2"), True
    if theta is not None and np.linalg.norm(theta) > 0:
        u = theta / np.linalg.norm(theta)
        along = x @ theta
        rest = x - np.outer(x @ u, u)
        rest = rest - rest.mean(axis=0)
        _, s, vt = np.linalg.svd(rest, full_matrices=False)
        across = (
            rest @ vt[0]
            if s.size and s[0] > 1e-12 * max(1.0, float(s.max()))
            else (np.zeros(x.shape[0]))
        )
        share = s[0] ** 2 / max(float(np.sum(s**2)), 1e-300) if s.size else 0.0
        return (
            np.column_stack([along, across]),
            (what, f"main feature direction ⊥ θ ({100 * share:.0f}% of the rest)"),
            False,
        )
    centred = x - x.mean(axis=0)
    _, s, vt = np.linalg.svd(centred, full_matrices=False)
    basis = vt[:2] if vt.shape[0] >= 2 else np.vstack([vt[:1], np.zeros((1, h))])
    share = np.concatenate([s**2 / max(float(np.sum(s**2)), 1e-300), [0.0, 0.0]])
    return (
        centred @ basis.T,
        (
            f"PC 1 of the features ({100 * share[0]:.0f}% var.)",
            f"PC 2 ({100 * share[1]:.0f}% var.)",
        ),
        False,
    )


def _draw_scalar(view: EpisodeView, state: _State, fig: Any, ax: Any) -> None:
    """Best arm / all ε-good: feature plane (or arms on a line by mean when unstructured)."""
    name = view.task.name
    truth_label = "true best arm" if name == "best_arm" else "true ε-good set G_ε"
    emp_label = "empirical best" if name == "best_arm" else "empirical ε-good set"
    mu = state.means[:, 0]
    features = view.problem.features
    eps_task = view.task if isinstance(view.task, AllEpsilonGood) else None
    threshold = ""
    if eps_task is not None:
        threshold = f"threshold max μ − ε (ε = {eps_task.epsilon:g})"
        if eps_task.multiplicative:
            threshold = f"threshold (1 − ε) max μ (ε = {eps_task.epsilon:g})"
    if _is_identity(features):
        xy = np.column_stack([np.arange(mu.size, dtype=float), mu])
        _arms(fig, ax, xy, state.pulls, label=False)
        if eps_task is not None:
            ax.axhline(
                eps_task.threshold(mu),
                color=_TRUTH,
                linestyle="--",
                linewidth=1,
                zorder=1,
                label=threshold,
            )
        if state.estimates is not None:
            seen = ~np.isnan(state.estimates[:, 0])
            ax.scatter(
                xy[seen, 0],
                state.estimates[seen, 0],
                marker="_",
                s=220,
                c="0.15",
                linewidths=1.6,
                zorder=4,
                label="empirical mean",
            )
        ax.set_xlabel("arm (no features: arms by index)", fontsize=9)
        ax.set_ylabel("true mean μ", fontsize=9)
        if mu.size <= 30:
            ax.set_xticks(np.arange(mu.size))
    else:
        theta, what = _scalar_theta(view)
        xy, labels, arrow = _feature_plane(np.asarray(features, dtype=float), theta, what)
        _arms(fig, ax, xy, state.pulls)
        if arrow and theta is not None:
            _theta_arrow(ax, xy, theta)
        if eps_task is not None and not arrow and view.problem.structure == "linear":
            ax.axvline(
                eps_task.threshold(mu),
                color=_TRUTH,
                linestyle="--",
                linewidth=1,
                zorder=1,
                label=threshold,
            )
        ax.set_xlabel(labels[0], fontsize=9)
        ax.set_ylabel(labels[1], fontsize=9)
    _ring(ax, xy, state.truth, state.pulls, truth_label)
    if state.answer is not None:
        _marks(ax, xy, state.answer, "P", _AGENT, "agent's answer")
    elif state.empirical is not None:
        how = "least squares" if view.problem.structure == "linear" else "sample means"
        _marks(ax, xy, state.empirical, "x", _EMPIRICAL, f"{emp_label} ({how})")
    ax.tick_params(labelsize=8)
    ax.margins(0.12)


def _theta_arrow(ax: Any, xy: np.ndarray, theta: np.ndarray) -> None:
    """An arrow along θ from the origin of the feature plane: the direction in which means grow."""
    norm = float(np.linalg.norm(theta))
    if norm == 0.0:
        return
    extent = float(np.max(np.ptp(np.vstack([xy, np.zeros((1, 2))]), axis=0))) or 1.0
    end = 0.35 * extent * theta / norm
    ax.annotate(
        "",
        xy=end,
        xytext=(0.0, 0.0),
        zorder=1,
        arrowprops={"arrowstyle": "-|>", "color": "0.45", "lw": 1.4},
    )
    ax.plot([], [], color="0.45", lw=1.4, label="θ direction (means grow)")


def _front_line(ax: Any, points: np.ndarray, **style: Any) -> None:
    """The staircase of a 2-objective Pareto front (both maximised)."""
    if points.shape[0] == 0:
        return
    pts = points[np.argsort(points[:, 0])]
    ax.step(pts[:, 0], pts[:, 1], where="pre", **style)


def _draw_pareto(view: EpisodeView, state: _State, fig: Any, ax: Any) -> None:
    """PSI: objective plane, the true Pareto front and the current empirical one."""
    d = state.means.shape[1]
    xy = (
        state.means[:, :2]
        if d >= 2
        else np.column_stack([np.arange(view.n_arms, dtype=float), state.means[:, 0]])
    )
    _arms(fig, ax, xy, state.pulls)
    truth = np.array(sorted(state.truth), dtype=int)
    if d == 2:
        _front_line(ax, xy[truth], color=_TRUTH, lw=1.2, alpha=0.8, zorder=1)
    _ring(ax, xy, state.truth, state.pulls, f"true Pareto set ({truth.size} arms)")
    if state.empirical is not None and state.estimates is not None:
        emp = np.array(sorted(state.empirical), dtype=int)
        est = (
            state.estimates[emp][:, :2]
            if d >= 2
            else np.column_stack([emp.astype(float), state.estimates[emp, 0]])
        )
        if d == 2:
            _front_line(ax, est, color=_EMPIRICAL, lw=1.0, linestyle="--", zorder=3)
        gap = np.full(emp.size, np.nan)  # one thin line from each true point to its estimate
        ax.plot(
            np.column_stack([xy[emp, 0], est[:, 0], gap]).ravel(),
            np.column_stack([xy[emp, 1], est[:, 1], gap]).ravel(),
            color="0.5",
            lw=0.6,
            zorder=1,
        )
        ax.scatter(
            est[:, 0],
            est[:, 1],
            marker="x",
            s=40,
            c=_EMPIRICAL,
            linewidths=1.4,
            zorder=4,
            label=f"empirical front ({emp.size} arms, estimated means)",
        )
    if state.answer is not None:
        _marks(ax, xy, state.answer, "P", _AGENT, "agent's answer")
    if d >= 2:
        more = f" (first 2 of {d})" if d > 2 else ""
        ax.set_xlabel(f"objective 1 (mean){more}", fontsize=9)
        ax.set_ylabel("objective 2 (mean)", fontsize=9)
    else:
        ax.set_xlabel("arm", fontsize=9)
        ax.set_ylabel("mean", fontsize=9)
    ax.tick_params(labelsize=8)
    ax.margins(0.08)


def _draw_constrained(view: EpisodeView, state: _State, fig: Any, ax: Any) -> None:
    """Constrained best mixed arm: cost–reward plane, threshold, true and empirical mixed arm."""
    k = view.n_arms
    task = cast(ConstrainedMixedSupport, view.task)  # draw() dispatches on the task's name
    thresholds = np.asarray(task.thresholds, dtype=np.float64)
    n_constraints = thresholds.size
    xy = np.column_stack([state.means[:, 1], state.means[:, 0]])  # (cost 1, reward)
    _arms(fig, ax, xy, state.pulls)
    ax.axvline(
        thresholds[0],
        color=_TRUTH,
        linestyle="--",
        linewidth=1.1,
        zorder=1,
        label=f"threshold c̄₁ = {thresholds[0]:g}",
    )
    ax.axvspan(
        thresholds[0],
        max(thresholds[0], float(xy[:, 0].max())) + 1e9,
        color=_TRUTH,
        alpha=0.06,
        zorder=0,
        label="c₁ > c̄₁ (infeasible alone)",
    )
    if n_constraints > 1:
        rest = ", ".join(f"cost {j + 1} ≤ {t:g}" for j, t in enumerate(thresholds) if j)
        ax.text(
            0.01,
            0.99,
            f"L = {n_constraints}: only cost 1 is drawn; a mix must also keep {rest}",
            transform=ax.transAxes,
            ha="left",
            va="top",
            fontsize=7.5,
            color="0.3",
            zorder=9,
            bbox={"facecolor": "white", "edgecolor": "none", "alpha": 0.85, "pad": 1.5},
        )
    support = sorted(i for i in state.truth if i < k)
    if support:
        _ring(ax, xy, support, state.pulls, "support of the best mixed arm p*")
        _mixed(
            ax,
            state.means,
            state.truth,
            thresholds,
            k,
            color=_TRUTH,
            filled=True,
            label="best mixed arm Σ p*ₐ (cₐ, rₐ)",
        )
    else:
        ax.plot([], [], " ", label="infeasible: no mixed arm meets c̄")
    if state.empirical and state.estimates is not None:
        est = np.column_stack([state.estimates[:, 1], state.estimates[:, 0]])
        emp = [i for i in sorted(state.empirical) if i < k]
        ax.scatter(
            est[emp, 0],
            est[emp, 1],
            marker="x",
            s=40,
            c=_EMPIRICAL,
            linewidths=1.4,
            zorder=4,
            label="empirical support (estimated means)",
        )
        _mixed(
            ax,
            state.estimates,
            state.empirical,
            thresholds,
            k,
            color=_EMPIRICAL,
            filled=False,
            label="empirical mixed arm (plug-in LP)",
        )
    if state.answer is not None:
        _marks(
            ax, xy, [i for i in state.answer if i < k], "P", _AGENT, "agent's answer (support arms)"
        )
    more = f" (constraint 1 of L = {n_constraints})" if n_constraints > 1 else ""
    ax.set_xlabel(f"cost 1 (mean){more}", fontsize=9)
    ax.set_ylabel("reward (mean)", fontsize=9)
    low, high = float(xy[:, 0].min()), float(max(xy[:, 0].max(), thresholds[0]))
    pad = 0.08 * (high - low or 1.0)
    ax.set_xlim(low - pad, high + pad)
    ax.tick_params(labelsize=8)
    ax.margins(y=0.1)


def _mixed(
    ax: Any,
    means: np.ndarray,
    basis: frozenset[int],
    thresholds: np.ndarray,
    k: int,
    color: str,
    filled: bool,
    label: str,
) -> None:
    """The mixed arm of ``basis`` under ``means``: its support polygon and its point."""
    means = np.nan_to_num(means)  # arms never pulled are not in an empirical basis
    try:
        x = lp.mixing_weights(basis, means[:, 0], means[:, 1:].T, thresholds)
    except ValueError:  # singular or malformed basis: nothing to draw
        return
    p = x[:k]
    point = p @ means[:, [1, 0]]
    support = np.flatnonzero(p > 1e-12)
    if support.size >= 2:
        corners = means[support][:, [1, 0]]
        if support.size > 2:  # a closed polygon around the support (convex hull order)
            centre = corners.mean(axis=0)
            corners = corners[np.argsort(np.arctan2(*(corners - centre).T[::-1]))]
            corners = np.vstack([corners, corners[:1]])
        ax.plot(corners[:, 0], corners[:, 1], color=color, lw=0.9, linestyle=":", zorder=1)
    if filled:  # the true mixed arm, on top of the empirical one
        ax.scatter(
            [point[0]],
            [point[1]],
            marker="*",
            s=300,
            zorder=8,
            linewidths=0.8,
            c=color,
            edgecolors="white",
        )
        ax.plot([], [], marker="*", linestyle="none", markersize=13, color=color, label=label)
    else:
        ax.scatter(
            [point[0]],
            [point[1]],
            marker="D",
            s=120,
            zorder=7,
            linewidths=1.5,
            facecolors="white",
            edgecolors=color,
            label=label,
        )


def _draw_counts(view: EpisodeView, state: _State, ax: Any) -> None:
    """Any other task: pull counts per arm, the true answer's arms in red."""
    arms = np.arange(view.n_arms)
    true = np.isin(arms, sorted(state.truth))
    ax.bar(arms[~true], state.pulls[~true], color="0.55", label="arm")
    ax.bar(arms[true], state.pulls[true], color=_TRUTH, label="arm in the true answer")
    ax.set_xlabel("arm", fontsize=9)
    ax.set_ylabel("pulls", fontsize=9)
    ax.tick_params(labelsize=8)
