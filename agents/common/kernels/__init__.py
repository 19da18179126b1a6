"""Compiled per-pull kernels of the sequential agents (numba, compiled once per machine).

Each kernel is the only implementation of its step (no NumPy twin to keep in step); the agent
class stays the protocol shell that owns the state arrays and calls the kernel from ``select``
and ``observe``. Kernels are ``numba.njit(cache=True)``: the first call in a process loads the
machine code from numba's on-disk cache (``__pycache__``), or compiles it (a few seconds, once).

Why here: ``agents.common`` is the lowest layer of :mod:`agents`, so every agent family
(``linear_bai``, ``eps_good``, …) may call these kernels; they need nothing from
:mod:`bandit_envs`.

One module per agent family's state:

* :mod:`~agents.common.kernels.lingape` — LinGapE's column state (Xu, Honda & Sugiyama 2018);
* :mod:`~agents.common.kernels.ape` — APE's pairwise state (Kone, Kaufmann & Richert 2023);
* :mod:`~agents.common.kernels.pair_index` — the m-th-largest pair index of LinGIFA (Réda,
  Tirinzoni & Degenne 2021).

The names below are re-exported, so ``from agents.common import kernels`` reaches every kernel.
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
    lingape_step,
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
    "lingape_step",
    "lingape_sync",
    "pair_index_rows",
    "ratio_arm",
]
