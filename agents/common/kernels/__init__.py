"""Compiled per-pull kernels of the sequential agents (numba, compiled once per machine).

Each kernel is the only implementation of its step (no NumPy twin to keep in step); the agent
class stays the protocol shell that owns the state arrays and calls the kernel from ``select``
and ``observe``. Kernels are ``numba.njit(cache=True)``: the first call in a process loads the
machine code from numba's on-disk cache (``__pycache__``), or compiles it (a few seconds, once).

Why here: ``agents.common`` is the lowest layer of :mod:`agents`, so every agent family
(``linear_bai``, ``eps_good``, …) may call these kernels; they need nothing from
:mod:`bandit_envs`.

One module per agent family's state; an agent imports its family's module
(``from agents.common.kernels import lingape as lingape_kernels``):

* :mod:`~agents.common.kernels.lingape` — LinGapE's packed column state (Xu, Honda & Sugiyama
  2018);
* :mod:`~agents.common.kernels.top_m` — m-LinGapE's decision on that state (Réda, Kaufmann &
  Delahaye-Duriez 2021);
* :mod:`~agents.common.kernels.pair_index` — LinGIFA's m-th-largest pair index per arm (same
  paper);
* :mod:`~agents.common.kernels.ape` — APE's pairwise state (Kone, Kaufmann & Richert 2023);
* :mod:`~agents.common.kernels.track_and_stop` — Track-and-Stop's least squares, C-tracking and
  GLR statistics (Garivier & Kaufmann 2016; Jedra & Proutière 2020), shared by LazyTTS;
* :mod:`~agents.common.kernels.soare` — the greedy static and adaptive allocations and their
  stopping rule (Soare, Lazaric & Munos 2014);
* :mod:`~agents.common.kernels.bayes` — the Gaussian linear posterior, BayesGap's gap index
  (Hoffman, Shahriari & de Freitas 2014) and KGCB's knowledge gradient (Frazier, Powell &
  Dayanik 2009).

The names below (the first kernels, which older code reaches as ``kernels.<name>``) are
re-exported.
"""

from __future__ import annotations

from agents.common.kernels.ape import ape_apply, ape_leader, ape_resolve_all, ape_screen
from agents.common.kernels.lingape import (
    FOLDED,
    MISSES,
    TICK,
    UPDATES,
    argmax_column,
    lingape_column,
    lingape_fold,
    lingape_ints,
    lingape_lags,
    lingape_mark_current,
    lingape_observe,
    lingape_select,
    lingape_slots,
    lingape_sync,
    ratio_arm,
)
from agents.common.kernels.pair_index import pair_index_rows

__all__ = [
    "FOLDED",
    "MISSES",
    "TICK",
    "UPDATES",
    "ape_apply",
    "ape_leader",
    "ape_resolve_all",
    "ape_screen",
    "argmax_column",
    "lingape_column",
    "lingape_fold",
    "lingape_ints",
    "lingape_lags",
    "lingape_mark_current",
    "lingape_observe",
    "lingape_select",
    "lingape_slots",
    "lingape_sync",
    "pair_index_rows",
    "ratio_arm",
]
