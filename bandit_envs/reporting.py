"""Summaries of episode records: per (env, agent) statistics and plain-text tables."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from bandit_envs.runner import EpisodeResult


def summarize(records: Iterable[EpisodeResult]) -> list[dict[str, Any]]:
    """One row per (env, agent): runs, error rate, sample statistics and the lower-bound ratio.

    The ``ratio`` column is mean samples / (T*·log(1/δ)) when the env knows T*.
    """
    groups: dict[tuple[str, str], list[EpisodeResult]] = defaultdict(list)
    for record in records:
        groups[(record.env_id, record.agent)].append(record)
    rows = []
    for (env_id, agent), group in groups.items():
        samples = np.array([r.samples for r in group], dtype=float)
        errors = sum(not r.correct for r in group)
        lower = group[0].lower_bound
        rows.append(
            {
                "env": env_id,
                "agent": agent + (" (oracle)" if group[0].oracle else ""),
                "runs": len(group),
                "error_rate": errors / len(group),
                "samples_mean": float(samples.mean()),
                "samples_median": float(np.median(samples)),
                "lower_bound": lower,
                "ratio": None if not lower else float(samples.mean()) / lower,
                "seconds_per_episode": float(np.mean([r.wall_time for r in group])),
            }
        )
    return rows


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        if value == 0 or 1e-3 <= abs(value) < 1e6:
            return f"{value:,.4g}" if abs(value) < 1000 else f"{value:,.0f}"
        return f"{value:.3g}"
    return str(value)


def format_table(rows: Sequence[dict[str, Any]], columns: Sequence[str] | None = None) -> str:
    """A plain-text table of ``rows`` (dicts), columns in the given order."""
    if not rows:
        return "(no results)"
    columns = list(columns or rows[0].keys())
    cells = [[_cell(row.get(c)) for c in columns] for row in rows]
    widths = [max(len(c), *(len(r[i]) for r in cells)) for i, c in enumerate(columns)]
    line = "  ".join(c.ljust(w) for c, w in zip(columns, widths, strict=True))
    rule = "  ".join("-" * w for w in widths)
    body = [
        "  ".join(
            v.rjust(w) if i else v.ljust(w) for i, (v, w) in enumerate(zip(r, widths, strict=True))
        )
        for r in cells
    ]
    return "\n".join([line, rule, *body])
