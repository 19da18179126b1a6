"""Reports on episode records: per (env, agent) statistics, confidence intervals, tables.

Records are :class:`~bandit_envs.EpisodeResult` objects or the dicts of a sweep's results file.
"""

from __future__ import annotations

import json
import textwrap
from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from bandit_envs.core.runner import EpisodeResult

#: columns of the standard report, in order.
REPORT_COLUMNS = (
    "env",
    "agent",
    "runs",
    "crashed",
    "error_rate",
    "ci_low",
    "ci_high",
    "delta",
    "violation",
    "samples_mean",
    "samples_median",
    "samples_q10",
    "samples_q90",
    "lower_bound",
    "ratio",
    "seconds_per_episode",
)
#: the F1 column, shown when the task reports one (set-valued answers: Pareto, all ε-good).
F1_COLUMN = "f1_mean"
#: columns of the default (compact) fixed-confidence table; ``wide=True`` gives REPORT_COLUMNS.
COMPACT_COLUMNS = (
    "env",
    "agent",
    "runs",
    "crashed",
    "error_rate",
    "ci95",
    "delta",
    "samples_mean",
    "ratio",
    "s/episode",
)
#: columns of the fixed-budget table (compact, then wide).
BUDGET_COLUMNS = ("env", "agent", "budget", "runs", "crashed", "error_rate", "ci95", "s/episode")
BUDGET_COLUMNS_WIDE = (
    "env",
    "agent",
    "budget",
    "runs",
    "crashed",
    "error_rate",
    "ci_low",
    "ci_high",
    "seconds_per_episode",
)
#: the width the default plain-text report fits in (terminal columns).
REPORT_WIDTH = 120


def clopper_pearson(failures: int, trials: int, level: float = 0.95) -> tuple[float, float]:
    """The exact (Clopper–Pearson) two-sided confidence interval of a binomial proportion."""
    from scipy import stats  # deferred: scipy.stats is slow to import

    if trials == 0:
        return 0.0, 1.0
    alpha = 1.0 - level
    low = 0.0
    if failures > 0:
        low = float(stats.beta.ppf(alpha / 2, failures, trials - failures + 1))
    high = (
        1.0
        if failures == trials
        else float(stats.beta.ppf(1 - alpha / 2, failures + 1, trials - failures))
    )
    return low, high


def _as_dict(record: EpisodeResult | dict[str, Any]) -> dict[str, Any]:
    if isinstance(record, EpisodeResult):
        out = record.to_dict()
        out.setdefault("status", "ok")
        return out
    return record


def _env_label(record: dict[str, Any], pool: Sequence[str]) -> str:
    """The record's env label, with the pooled keywords left out (``id(key=value, ...)``)."""
    label = str(record.get("env_label", record.get("env_id")))
    if not pool or "env_kwargs" not in record:
        return label
    kwargs = {k: v for k, v in record["env_kwargs"].items() if k not in pool}
    if not kwargs:
        return str(record["env_id"])
    inner = ", ".join(f"{k}={json.dumps(v)}" for k, v in sorted(kwargs.items()))
    return f"{record['env_id']}({inner})"


def summarize(
    records: Iterable[EpisodeResult | dict[str, Any]], *, pool: Sequence[str] = ()
) -> list[dict[str, Any]]:
    """One row per (env setting, agent setting), in order of first appearance.

    Columns: ``runs`` (finished episodes), ``crashed`` (episodes that raised: no answer, not
    counted in ``runs``), ``error_rate`` (wrong answers among ``runs``) with its
    Clopper–Pearson 95% interval (``ci_low``, ``ci_high``), ``delta`` and ``violation`` (the
    interval's lower end exceeds δ), sample statistics, the lower bound T*·log(1/δ) and the
    ``ratio`` of mean samples to it, the mean wall time per episode, and ``f1_mean`` when the
    task grades answers with an F1 score.

    Args:
        records: episode records.
        pool: env keywords to pool over, e.g. ``("instance_seed",)`` to report a random instance
            family (several draws of one setting) as one row, as papers do. A pooled row's
            ``lower_bound`` is the mean of its episodes' lower bounds (``None`` if one is
            missing).
    """
    pool = tuple(pool)
    groups: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for raw in records:
        record = _as_dict(raw)
        env = _env_label(record, pool)
        agent = record.get("agent_label", record.get("agent"))
        groups[(str(env), str(agent))].append(record)
    rows = []
    for (env, agent), group in groups.items():
        ok = [r for r in group if r.get("status") == "ok"]
        crashed = len(group) - len(ok)
        row: dict[str, Any] = {"env": env, "agent": agent, "runs": len(ok), "crashed": crashed}
        if not ok:
            rows.append(row)
            continue
        if ok[0].get("oracle"):
            row["agent"] = agent + " (oracle)"
        samples = np.array([r["samples"] for r in ok], dtype=float)
        wrong = sum(not r["correct"] for r in ok)
        low, high = clopper_pearson(wrong, len(ok))
        delta = ok[0].get("delta")
        lower = ok[0].get("lower_bound")
        if pool:
            bounds = [r["lower_bound"] for r in ok if r.get("lower_bound") is not None]
            lower = float(np.mean(bounds)) if len(bounds) == len(ok) else None
        row.update(
            error_rate=wrong / len(ok),
            ci_low=low,
            ci_high=high,
            delta=delta,
            violation=None if delta is None else bool(low > delta),
            samples_mean=float(samples.mean()),
            samples_median=float(np.median(samples)),
            samples_q10=float(np.quantile(samples, 0.1)),
            samples_q90=float(np.quantile(samples, 0.9)),
            lower_bound=lower,
            ratio=None if not lower else float(samples.mean()) / lower,
            seconds_per_episode=float(np.mean([r["wall_time"] for r in ok])),
            budget=ok[0].get("budget"),
        )
        f1 = [r["f1"] for r in ok if r.get("f1") is not None]
        if f1:
            row[F1_COLUMN] = float(np.mean(f1))
        rows.append(row)
    return rows


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "YES" if value else "no"
    if isinstance(value, float):
        if value == 0:
            return "0"
        if 1e-3 <= abs(value) < 1e6:
            return f"{value:,.4g}" if abs(value) < 1000 else f"{value:,.0f}"
        return f"{value:.3g}"
    return str(value)


def format_table(
    rows: Sequence[dict[str, Any]], columns: Sequence[str] | None = None, *, markdown: bool = False
) -> str:
    """A plain-text (or Markdown) table of ``rows`` (dicts), columns in the given order."""
    if not rows:
        return "(no results)"
    columns = list(columns or rows[0].keys())
    cells = [[_cell(row.get(c)) for c in columns] for row in rows]
    if markdown:
        head = "| " + " | ".join(columns) + " |"
        rule = "|" + "|".join("---" for _ in columns) + "|"
        body = ["| " + " | ".join(r) + " |" for r in cells]
        return "\n".join([head, rule, *body])
    widths = [max(len(c), *(len(r[i]) for r in cells)) for i, c in enumerate(columns)]
    line = "  ".join(c.ljust(w) for c, w in zip(columns, widths, strict=True))
    rule = "  ".join("-" * w for w in widths)
    body = [
        "  ".join(
            v.rjust(w) if i > 1 else v.ljust(w)
            for i, (v, w) in enumerate(zip(r, widths, strict=True))
        )
        for r in cells
    ]
    return "\n".join([line, rule, *body])


def _display(row: dict[str, Any]) -> dict[str, Any]:
    """``row`` with the compact table's derived cells: the interval as one cell, a short header."""
    out = dict(row)
    if row.get("ci_low") is not None:
        out["ci95"] = f"[{_cell(row['ci_low'])}, {_cell(row['ci_high'])}]"
    out["s/episode"] = row.get("seconds_per_episode")
    return out


def _shorten(text: str, width: int) -> str:
    """``text`` cut to ``width`` characters, its middle replaced by "...", when it is longer."""
    if len(text) <= width:
        return text
    keep = max(width - 3, 2)
    return text[: (keep + 1) // 2] + "..." + text[len(text) - keep // 2 :]


def _fitted(rows: Sequence[dict[str, Any]], columns: Sequence[str], width: int) -> str:
    """A plain-text table of ``rows`` no wider than ``width`` characters.

    The one table when it fits; otherwise one table per environment under a line naming it
    (the env column goes); if that is still too wide, the labels are shortened in the middle.
    """
    table = format_table(rows, columns)
    if max(map(len, table.splitlines())) <= width:
        return table
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        groups[str(row["env"])].append(row)
    rest = [c for c in columns if c != "env"]
    parts = []
    for env, group in groups.items():
        sub = format_table(group, rest)
        excess = max(map(len, sub.splitlines())) + 2 - width
        if excess > 0:
            longest = max(len(str(r["agent"])) for r in group)
            limit = max(longest - excess, 12)
            group = [{**r, "agent": _shorten(str(r["agent"]), limit)} for r in group]
            sub = format_table(group, rest)
        body = "\n".join("  " + line for line in sub.splitlines())
        parts.append(f"{_shorten(env, width)}:\n{body}")
    return "\n".join(parts)


def _crash_lines(crashes: Sequence[dict[str, Any]], wide: bool) -> str:
    """The crashed episodes, one entry per (env, agent, error), wrapped to the report's width.

    Each entry names the setting, the runs (and the seed of a single run) and the error; the
    first 20 entries are shown.
    """
    groups: dict[tuple[str, str, str, str], list[dict[str, Any]]] = defaultdict(list)
    for r in crashes:
        env = str(r.get("env_label", r.get("env_id")))
        agent = str(r.get("agent_label", r.get("agent_name")))
        groups[(env, agent, str(r.get("error_type")), str(r.get("error_message")))].append(r)
    lines = []
    for (env, agent, kind, message), group in list(groups.items())[:20]:
        runs = sorted(int(r["run"]) for r in group if "run" in r)
        if len(group) == 1:
            which = f"run {runs[0]} (seed {group[0]['seed']})" if runs else "one episode"
        else:
            shown = ", ".join(map(str, runs[:10])) + (", ..." if len(runs) > 10 else "")
            which = f"{len(group)} episodes (runs {shown})"
        text = f"{env} | {agent} | {which}: {kind}: {message}"
        if wide:
            lines.append("  " + text)
        else:
            lines.append(
                textwrap.fill(
                    text,
                    REPORT_WIDTH,
                    initial_indent="  ",
                    subsequent_indent="    ",
                    break_on_hyphens=False,
                )
            )
    if len(groups) > 20:
        lines.append(f"  ... and {len(groups) - 20} more (see the results file).")
    return "\n".join(lines)


def report(
    records: Iterable[EpisodeResult | dict[str, Any]],
    *,
    markdown: bool = False,
    pool: Sequence[str] = (),
    wide: bool = False,
) -> str:
    """The standard report: a fixed-confidence table, a fixed-budget table, and the crashes.

    By default the tables have the columns a reader compares (:data:`COMPACT_COLUMNS`: the
    Clopper–Pearson interval in one ``ci95`` cell) and the plain-text report fits in
    :data:`REPORT_WIDTH` columns (one table per environment when the labels are long);
    ``wide=True`` gives every column (:data:`REPORT_COLUMNS`: quantiles of the samples, the
    lower bound, the interval's ends) in one table. ``pool`` names env keywords to pool over
    (see :func:`summarize`). An ``f1_mean`` column is added when the task reports F1 (in the
    compact table, when it differs from 1 − error rate, i.e. for set-valued answers).
    ``crashed`` counts episodes that raised (no answer); wrong answers are ``error_rate``.
    """
    dicts = [_as_dict(r) for r in records]
    rows = [_display(r) for r in summarize(dicts, pool=pool)]
    if wide or markdown:
        with_f1 = any(F1_COLUMN in r for r in rows)
    else:  # only when it says more than the error rate (set-valued answers)
        with_f1 = any(
            abs(r[F1_COLUMN] + r["error_rate"] - 1) > 1e-9 for r in rows if F1_COLUMN in r
        )
    fc = [r for r in rows if r.get("delta") is not None]
    fb = [r for r in rows if r.get("budget") is not None]

    def table(rows: list[dict[str, Any]], columns: Sequence[str]) -> str:
        columns = list(columns)
        if with_f1:
            columns.insert(columns.index("error_rate") + 1, F1_COLUMN)
        if markdown or wide:
            return format_table(rows, columns, markdown=markdown)
        return _fitted(rows, columns, REPORT_WIDTH)

    parts = []
    if fc:
        parts.append(
            "Fixed confidence (error rate with a Clopper-Pearson 95% interval; "
            "ratio = mean samples / (T* log(1/delta))):"
        )
        parts.append(table(fc, REPORT_COLUMNS if wide else COMPACT_COLUMNS))
        flagged = [r for r in fc if r.get("violation")]
        for r in flagged:
            parts.append(
                f"DELTA VIOLATION: {r['agent']} on {r['env']}: error rate "
                f"{r['error_rate']:.3g}, interval [{r['ci_low']:.3g}, {r['ci_high']:.3g}] "
                f"lies above delta = {r['delta']:g}."
            )
    if fb:
        parts.append("Fixed budget (error rate after the budget):")
        parts.append(table(fb, BUDGET_COLUMNS_WIDE if wide else BUDGET_COLUMNS))
    crashes = [r for r in dicts if r.get("status") == "error"]
    if crashes:
        parts.append(f"{len(crashes)} episode(s) crashed:\n" + _crash_lines(crashes, wide))
    crashed_only = [r for r in rows if r["runs"] == 0]
    for r in crashed_only:
        parts.append(f"{r['agent']} on {r['env']}: every episode crashed.")
    return "\n\n".join(parts) if parts else "(no results)"
