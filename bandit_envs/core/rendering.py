"""Rendering an episode: the ``"ansi"`` text line, and the ``"rgb_array"`` and ``"human"`` pictures.

The environment hands the renderers an :class:`EpisodeView`, a snapshot of the episode; the
renderers never read the environment itself. :func:`render_text` gives the ``"ansi"`` line. The
picture modes draw the arms with their pull counts, for teaching; one drawing per task family,
chosen from the task's name (:mod:`bandit_envs.core._drawing`):

* ``"best_arm"`` and ``"all_eps_good"`` (linear, misspecified and generalized linear models):
  the arms in the **feature plane** (the two feature coordinates when h = 2, else a 2-D PCA
  projection), with the true parameter's direction; an unstructured problem (identity features,
  or no features) puts the arms on a line by their true mean. The true answer (best arm or
  ``G_ε``) is outlined.
* ``"pareto_set"`` (Kone, Kaufmann & Richert): the **objective plane** (the first two
  objectives), the true Pareto front and the current empirical front.
* ``"constrained_mixed"`` (Tang, Jain, Nayyar & Nuzzo 2024): the **cost–reward plane** (the
  first cost when L ≥ 2), the threshold ``c̄``, the true best mixed arm ``Σ p*_a (c_a, r_a)``
  and the current empirical one (the plug-in LP's optimal basis and weights,
  :func:`bandit_envs.theory.lp.mixing_weights`).
* any other task: a bar chart of the pull counts.

Marker size and colour show the pull counts. While the episode runs, the "current answer" is
the plug-in answer of the environment's own statistics (pull counts and per-arm sums of the
outcomes: least squares on the features for linear models, per-arm sample means otherwise);
once the agent has stopped, its answer is drawn instead (and next to the empirical front for
PSI). The truth is drawn on purpose: the pictures are for people, not an observation for agents.

matplotlib is imported only when a picture is drawn (the optional ``plot`` extra): an environment
made with a picture mode but never drawn needs no matplotlib, and without it the first drawing
raises an ``ImportError`` that names the extra. The ``"rgb_array"`` mode draws on an off-screen
Agg canvas (no display needed, the global pyplot backend untouched); ``"human"`` draws into one
pyplot window that is reused and never blocks.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from bandit_envs.core._drawing import draw
from bandit_envs.core._view import EpisodeView, empirical_means

#: picture size in pixels (width, height): ``"rgb_array"`` frames have shape (480, 640, 3).
WIDTH, HEIGHT = 640, 480
_DPI = 100


def require_matplotlib(who: str = "rendering") -> Any:
    """Import and return matplotlib, or raise an ImportError that names the ``plot`` extra.

    Args:
        who: what needs matplotlib, for the message.

    Raises:
        ImportError: matplotlib is not installed.
    """
    try:
        import matplotlib
    except ImportError:
        raise ImportError(
            f"{who} needs matplotlib to draw pictures; install the plot extra with "
            f'`pip install "bandit-envs[plot]"` (or `pip install matplotlib`).'
        ) from None
    return matplotlib


@dataclasses.dataclass
class Picture:
    """What a picture-mode environment keeps for its pictures (``env._picture``).

    Attributes:
        sums: per-arm sums of the outcomes, shape (K, m), updated by both pull paths.
        answer: the agent's answer once the episode has ended (``None`` before, or if
            truncated).
        next_draw: when the human window may be redrawn next (``time.perf_counter`` seconds).
    """

    sums: np.ndarray
    answer: frozenset[int] | None = None
    next_draw: float = 0.0
    _renderer: Renderer | None = None

    def renderer(self, mode: str) -> Renderer:
        """The renderer of this environment (made on first use).

        Args:
            mode: ``"rgb_array"`` or ``"human"``.
        """
        if self._renderer is None:
            self._renderer = Renderer(mode)
        return self._renderer

    def close(self) -> None:
        """Close the renderer's figure (and window), if any."""
        if self._renderer is not None:
            self._renderer.close()
            self._renderer = None


class Renderer:
    """Draws one environment's pictures; owns one figure, reused from frame to frame.

    Args:
        mode: ``"rgb_array"`` (off-screen Agg canvas; :meth:`render` returns the pixels) or
            ``"human"`` (one pyplot window, reused and redrawn without blocking;
            :meth:`render` returns ``None``). With a non-interactive backend (e.g.
            ``MPLBACKEND=Agg``) there is no window: :meth:`render` builds the figure without
            showing it, and the automatic redraws (:meth:`refresh`) do nothing.
    """

    def __init__(self, mode: str) -> None:
        if mode not in ("rgb_array", "human"):
            from bandit_envs.errors import InvalidParameterError

            raise InvalidParameterError(
                f"Renderer: mode must be 'rgb_array' or 'human'; got {mode!r}."
            )
        self.mode = mode
        self._fig: Any = None
        self._shown = False

    def render(self, view: EpisodeView) -> np.ndarray | None:
        """Draw the episode ``view``; the (480, 640, 3) uint8 pixels, or ``None`` (human).

        Args:
            view: the episode to draw.
        """
        require_matplotlib(f"{view.name}: render_mode={self.mode!r}")
        if self.mode == "rgb_array":
            return self._render_rgb(view)
        self._render_human(view)
        return None

    def refresh(self, view: EpisodeView) -> None:
        """The human mode's automatic redraw (reset, steps, end): skipped without a window.

        With a non-interactive backend (e.g. ``MPLBACKEND=Agg``) there is nothing to show, so
        the automatic redraws cost nothing; an explicit :meth:`render` still draws.

        Args:
            view: the episode to draw.
        """
        if self.mode == "human":
            require_matplotlib(f"{view.name}: render_mode={self.mode!r}")
            if _interactive_backend():
                self._render_human(view)

    def close(self) -> None:
        """Release the figure (closes the human window)."""
        if self._fig is not None and self.mode == "human":
            import matplotlib.pyplot as plt

            plt.close(self._fig)
        self._fig = None
        self._shown = False

    # a figure cannot be pickled with its window; an env copied for a worker redraws afresh
    def __getstate__(self) -> dict[str, Any]:  # noqa: D105
        return {"mode": self.mode, "_fig": None, "_shown": False}

    def _render_rgb(self, view: EpisodeView) -> np.ndarray:
        if self._fig is None:
            from matplotlib.backends.backend_agg import FigureCanvasAgg
            from matplotlib.figure import Figure

            self._fig = Figure(figsize=(WIDTH / _DPI, HEIGHT / _DPI), dpi=_DPI)
            FigureCanvasAgg(self._fig)
        draw(view, self._fig)
        self._fig.canvas.draw()
        pixels = np.asarray(self._fig.canvas.buffer_rgba())
        return np.ascontiguousarray(pixels[..., :3], dtype=np.uint8)

    def _render_human(self, view: EpisodeView) -> None:
        import matplotlib.pyplot as plt

        if self._fig is None or not plt.fignum_exists(self._fig.number):
            self._fig = plt.figure(figsize=(WIDTH / _DPI, HEIGHT / _DPI), dpi=_DPI)
            self._shown = False
            manager = getattr(self._fig.canvas, "manager", None)
            if manager is not None:
                manager.set_window_title(view.name)
        draw(view, self._fig)
        if not _interactive_backend():  # off screen (e.g. MPLBACKEND=Agg): nothing to show
            return
        if not self._shown:  # open the window once (pause lets the GUI map it)
            self._shown = True
            plt.figure(self._fig.number)  # make it the active figure, which pause shows
            plt.pause(0.001)
            return
        self._fig.canvas.draw_idle()
        self._fig.canvas.flush_events()


def _interactive_backend() -> bool:
    """Whether pyplot's backend opens windows (Qt, Tk, GTK, macOS, ...)."""
    import matplotlib

    backend = str(matplotlib.get_backend()).lower()
    try:
        from matplotlib.backends import BackendFilter, backend_registry

        interactive = backend_registry.list_builtin(BackendFilter.INTERACTIVE)
    except ImportError:  # matplotlib < 3.9
        from matplotlib import rcsetup

        interactive = rcsetup.interactive_bk  # type: ignore[attr-defined]  # gone in 3.9
    return backend in {name.lower() for name in interactive}


def render_text(view: EpisodeView) -> str:
    """The ``"ansi"`` rendering: one line with the setting, the samples and the pull counts.

    Args:
        view: the episode to describe.
    """
    if view.delta is not None:
        setting = f"delta={view.delta:g}"
    else:
        setting = f"budget={view.budget}"
    state = "ended: " + str(view.stop_reason) if view.done else "running"
    pulls = np.array2string(view.pulls, threshold=12, edgeitems=4)
    last = np.array2string(view.last, precision=3, threshold=6)
    return (
        f"{view.name} [{view.task.name}, {setting}] {state} | samples {view.samples} | "
        f"pulls {pulls} | last outcome {last}"
    )


__all__ = [
    "HEIGHT",
    "WIDTH",
    "EpisodeView",
    "Picture",
    "Renderer",
    "draw",
    "empirical_means",
    "render_text",
    "require_matplotlib",
]
