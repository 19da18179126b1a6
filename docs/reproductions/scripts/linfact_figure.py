"""LinFACT's samples on the nine Table-1 settings (docs/reproductions/linfact.md; Li et al., §7.1).

Usage::

    python docs/reproductions/scripts/linfact_figure.py results/eps_good_linfact \
        docs/reproductions/figures/linfact_samples.png [--table]

Reads the records of ``experiments/eps_good_linfact.toml`` with
``registry.sweeps.read_results``, pools the instance draws (``instance_seed``) of each setting
as the paper does, and draws the mean samples at stopping of every agent per setting (log axis)
next to the lower bound T* log(1/delta) averaged over the draws. With ``--table`` it also prints
the Markdown table: runs, error rate, F1, mean samples, lower bound and their ratio per setting
and agent.
"""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

import numpy as np
from _figure_cli import command_line, save

from registry.plots import pyplot
from registry.sweeps import read_results

plt = pyplot()  # matplotlib (Agg), or an error naming the extra to install: bandit-envs[plot]

LABEL = {"LinFACTG": "LinFACT-G", "LinFACTXY": "LinFACT-XY"}


def _setting(record: dict) -> str:
    kw = record["env_kwargs"]
    if "Adaptive" in record["env_id"]:
        return f"adaptive d={kw['d']}, ε={kw['epsilon']:g}"
    return f"static d={kw['d']}"


def _order(name: str) -> tuple[int, list[float]]:
    """Table 1's order: adaptive before static, then d, then ε."""
    numbers = [float(v) for v in re.findall(r"=([0-9.]+)", name)]
    return (0 if name.startswith("adaptive") else 1, numbers)


def load(folder: Path) -> dict[tuple[str, str], list[dict]]:
    """Return ``{(setting, agent): [record, ...]}``, the instance draws pooled.

    Args:
        folder: The sweep's results folder (holding ``results.jsonl``).
    """
    cells: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for r in read_results(folder):
        if r.get("status", "ok") == "ok":
            cells[(_setting(r), r["agent"])].append(r)
    return cells


def table(cells: dict[tuple[str, str], list[dict]]) -> str:
    """Markdown table: one row per setting and agent.

    Args:
        cells: The output of :func:`load`.
    """
    lines = [
        "| setting | agent | runs | error | F1 | mean samples | lower bound | ratio |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for setting, agent in sorted(cells, key=lambda k: (_order(k[0]), k[1])):
        runs = cells[(setting, agent)]
        samples = np.mean([r["samples"] for r in runs])
        bound = np.mean([r["lower_bound"] for r in runs])
        error = np.mean([not r["correct"] for r in runs])
        f1 = np.mean([r["f1"] for r in runs])
        lines.append(
            f"| {setting} | {agent} | {len(runs)} | {error:.3f} | {f1:.3f} | "
            f"{samples:,.0f} | {bound:,.0f} | {samples / bound:.1f} |"
        )
    return "\n".join(lines)


def figure(cells: dict[tuple[str, str], list[dict]], out: Path) -> None:
    """Mean samples per setting (bars, one per agent) and the lower bound, saved to ``out``.

    Args:
        cells: The output of :func:`load`.
        out: The PNG file to write.
    """
    settings = sorted({s for s, _ in cells}, key=_order)
    agents = sorted({a for _, a in cells})
    x = np.arange(len(settings))
    width = 0.8 / len(agents)
    fig, ax = plt.subplots(figsize=(8.0, 3.9))
    for i, agent in enumerate(agents):
        means = [np.mean([r["samples"] for r in cells[(s, agent)]]) for s in settings]
        ax.bar(x - 0.4 + width * (i + 0.5), means, width=width, label=LABEL.get(agent, agent))
    bound = [np.mean([r["lower_bound"] for a in agents for r in cells[(s, a)]]) for s in settings]
    ax.plot(
        x,
        bound,
        ls="none",
        marker="_",
        ms=22,
        mew=2,
        color="black",
        label="T*·log(1/δ) (mean over draws)",
    )
    runs = min(len(v) for v in cells.values())
    errors = sum(not r["correct"] for v in cells.values() for r in v)
    ax.set_yscale("log")
    ax.set_xticks(x, [s.replace(", ", "\n").replace(" d=", "\nd=") for s in settings], fontsize=8)
    ax.set_ylim(top=20 * max(np.mean([r["samples"] for r in v]) for v in cells.values()))
    ax.set_ylabel("mean samples at stopping")
    ax.set_title(
        f"Table 1 settings 1–9, δ = 0.05: {runs} episodes per setting and agent "
        f"(10 draws), {errors} wrong answers",
        fontsize=10,
    )
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(fontsize=8, loc="upper center", ncol=3)
    save(fig, out)
    plt.close(fig)


if __name__ == "__main__":
    command_line(__doc__, load, figure, table)
