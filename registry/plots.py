"""Plots of sweep records (optional extra ``plot``: ``pip install "bandit-envs[plot]"``).

* :func:`plot_samples` — sample complexity per agent (box plots), with the lower bound
  T*·log(1/δ) as a dashed line, one figure per fixed-confidence environment setting;
* :func:`plot_error_vs_budget` — error rate against the budget with Clopper–Pearson 95% bands,
  one figure per fixed-budget environment (all budgets of one id and keywords together);
* :func:`plot_pulls` — mean pulls per arm for each agent, one figure per environment setting.

:func:`plot_all` writes every figure of a sweep as PNG files and returns their paths.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from bandit_envs.errors import InvalidParameterError
from registry.reporting import clopper_pearson


def pyplot() -> Any:
    """``matplotlib.pyplot`` with the non-interactive Agg backend, for scripts that draw figures.

    Raises:
        InvalidParameterError: matplotlib is not installed (the message says which extra to
            install), instead of a bare ``ModuleNotFoundError``.
    """
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise InvalidParameterError(
            'plots need matplotlib; install it with `pip install "bandit-envs[plot]"`.'
        ) from None
    return plt


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("_")[:120]


def _ok(records: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    return [r for r in records if r.get("status", "ok") == "ok"]


def _by(records: Sequence[dict[str, Any]], key: str) -> dict[str, list[dict[str, Any]]]:
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in records:
        groups[str(r[key])].append(r)
    return groups


def plot_samples(records: Sequence[dict[str, Any]], folder: Path) -> list[Path]:
    """Box plots of samples per agent, with the lower-bound line; one PNG per env setting."""
    plt = pyplot()
    paths = []
    fc = [r for r in _ok(records) if r.get("delta") is not None]
    for env, group in _by(fc, "env_label").items():
        agents = _by(group, "agent_label")
        names = list(agents)
        fig, ax = plt.subplots(figsize=(max(5.0, 1.3 * len(names) + 2), 4.2))
        ax.boxplot([[r["samples"] for r in agents[a]] for a in names], showmeans=True)
        ticks = [
            f"{a}\nerror rate {np.mean([not r['correct'] for r in agents[a]]):.3f}" for a in names
        ]
        ax.set_xticks(range(1, len(names) + 1), ticks, rotation=15, ha="right", fontsize=8)
        lower = group[0].get("lower_bound")
        if lower:
            ax.axhline(lower, ls="--", color="tab:red", label="T*·log(1/δ) (lower bound)")
            ax.legend(loc="best")
        ax.set_yscale("log")
        ax.set_ylabel("samples to stop")
        ax.set_title(f"Sample complexity — {env}", fontsize=9)
        fig.tight_layout()
        path = folder / f"samples_{_slug(env)}.png"
        fig.savefig(path, dpi=110)
        plt.close(fig)
        paths.append(path)
    return paths


def plot_error_vs_budget(records: Sequence[dict[str, Any]], folder: Path) -> list[Path]:
    """Error rate vs budget with Clopper–Pearson 95% bands; one PNG per env (budgets pooled)."""
    plt = pyplot()
    paths = []
    fb = [r for r in _ok(records) if r.get("budget") is not None]
    for r in fb:  # the records are the caller's copies (plot_all copies them)
        others = {k: v for k, v in r["env_kwargs"].items() if k != "budget"}
        r["_family"] = r["env_id"] + (json.dumps(others, sort_keys=True) if others else "")
    for family, group in _by(fb, "_family").items():
        fig, ax = plt.subplots(figsize=(6, 4.2))
        for agent, rows in _by(group, "agent_label").items():
            per_budget = _by(rows, "budget")
            budgets = sorted(per_budget, key=float)
            x = np.array([float(b) for b in budgets])
            errs, lows, highs = [], [], []
            for b in budgets:
                wrong = sum(not r["correct"] for r in per_budget[b])
                n = len(per_budget[b])
                low, high = clopper_pearson(wrong, n)
                errs.append(wrong / n)
                lows.append(low)
                highs.append(high)
            line = ax.plot(x, errs, marker="o", label=agent)[0]
            ax.fill_between(x, lows, highs, color=line.get_color(), alpha=0.18)
        ax.set_xlabel("budget T")
        ax.set_ylabel("error rate (95% Clopper–Pearson band)")
        ax.set_xscale("log")
        ax.set_ylim(-0.02, 1.02)
        ax.set_title(f"Error vs budget — {family}", fontsize=9)
        ax.legend(loc="best", fontsize=8)
        fig.tight_layout()
        path = folder / f"error_vs_budget_{_slug(family)}.png"
        fig.savefig(path, dpi=110)
        plt.close(fig)
        paths.append(path)
    for r in fb:
        r.pop("_family", None)
    return paths


def plot_pulls(records: Sequence[dict[str, Any]], folder: Path) -> list[Path]:
    """Mean pulls per arm for each agent (grouped bars); one PNG per env setting."""
    plt = pyplot()
    paths = []
    for env, group in _by(_ok(records), "env_label").items():
        agents = _by(group, "agent_label")
        k = len(group[0]["pulls"])
        fig, ax = plt.subplots(figsize=(max(5.0, 0.5 * k + 3), 4.2))
        width = 0.8 / len(agents)
        top = 0.0
        for i, (agent, rows) in enumerate(agents.items()):
            mean = np.mean([r["pulls"] for r in rows], axis=0)
            top = max(top, float(mean.max()))
            ax.bar(np.arange(k) + (i - (len(agents) - 1) / 2) * width, mean, width, label=agent)
        ax.set_ylim(0, 1.25 * top if top > 0 else 1.0)  # room for the legend
        ax.set_xlabel("arm")
        ax.set_ylabel("mean pulls per episode")
        ax.set_xticks(range(k))
        ax.set_title(f"Allocation — {env}", fontsize=9)
        ax.legend(loc="best", fontsize=8)
        fig.tight_layout()
        path = folder / f"pulls_{_slug(env)}.png"
        fig.savefig(path, dpi=110)
        plt.close(fig)
        paths.append(path)
    return paths


def plot_all(records: Sequence[dict[str, Any]], folder: str | Path) -> list[Path]:
    """Write every figure for ``records`` into ``folder``; return the PNG paths."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    records = [dict(r) for r in records]
    return (
        plot_samples(records, folder)
        + plot_error_vs_budget(records, folder)
        + plot_pulls(records, folder)
    )
