"""Soare et al.'s App. E allocation table against ours (docs/reproductions/soare.md; their Fig. 5).

Usage::

    python docs/reproductions/scripts/soare_figure.py results/soare_allocation_d5_beta2 \
        docs/reproductions/figures/soare_allocation_d5.png [--table]

Reads the records of ``experiments/soare_allocation_d5_beta2.toml`` (the constant threshold
beta = 2 that the paper's budgets imply; not delta-correct) with
``registry.sweeps.read_results`` and draws, for the oracle (Eq. 4 stop), XY-adaptive, the XY and
the G allocations, the mean pulls per arm next to the paper's App. E table (d = 5, omega = 0.01,
theta = 2 e1). With ``--table`` it also prints the Markdown table of the page: mean pulls per arm,
mean budget, runs / errors and T(e1)/T(e2) (the ratio of the mean pulls) per agent.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import numpy as np
from _figure_cli import command_line, save

from registry.plots import pyplot
from registry.sweeps import read_results

plt = pyplot()  # matplotlib (Agg), or an error naming the extra to install: bandit-envs[plot]

ARMS = ("x1 = e1", "x2 = e2", "x3 = e3", "x4 = e4", "x5 = e5", "x6 = (cos ω, sin ω, 0, 0, 0)")
#: Soare, Lazaric & Munos (2014), App. E, Fig. 5: mean pulls per arm over 100 runs
PAPER = {
    "XY-oracle": (207, 41440, 2, 2, 1, 0),
    "XY-adaptive": (263, 52713, 3, 5, 2, 2),
    "XY": (29523, 29524, 29524, 29524, 29524, 1),
    "G": (28014, 28015, 28015, 28015, 28015, 1),
}
#: our agent label (as in the records) for each of the paper's strategies
OURS = {
    "XY-oracle": 'XYOracle(stop="oracle", threshold=2.0)',
    "XY-adaptive": "XYAdaptive(threshold=2.0)",
    "XY": "XYAllocation(threshold=2.0)",
    "G": "GAllocation(threshold=2.0)",
}


def load(folder: Path) -> dict[str, list[dict]]:
    """Return ``{agent label: [record, ...]}`` from a results folder.

    Args:
        folder: The sweep's results folder (holding ``results.jsonl``).
    """
    runs: dict[str, list[dict]] = defaultdict(list)
    for r in read_results(folder):
        if r.get("status", "ok") == "ok":
            runs[r["agent_label"]].append(r)
    return runs


def table(runs: dict[str, list[dict]]) -> str:
    """Markdown table: mean pulls per arm (rows) and agent (columns), then budget and errors.

    Args:
        runs: The output of :func:`load`.
    """
    agents = sorted(runs)
    pulls = {a: np.mean([r["pulls"] for r in runs[a]], axis=0) for a in agents}
    lines = ["| arm | " + " | ".join(agents) + " |", "|---|" + "---|" * len(agents)]
    for i, arm in enumerate(ARMS):
        lines.append(f"| {arm} | " + " | ".join(f"{pulls[a][i]:,.0f}" for a in agents) + " |")
    lines.append(
        "| **budget (mean)** | "
        + " | ".join(f"**{np.mean([r['samples'] for r in runs[a]]):,.0f}**" for a in agents)
        + " |"
    )
    lines.append(
        "| runs / errors | "
        + " | ".join(f"{len(runs[a])} / {sum(not r['correct'] for r in runs[a])}" for a in agents)
        + " |"
    )
    lines.append(
        "| T(e1)/T(e2) | " + " | ".join(f"{pulls[a][0] / pulls[a][1]:.4f}" for a in agents) + " |"
    )
    return "\n".join(lines)


def figure(runs: dict[str, list[dict]], out: Path) -> None:
    """One panel per strategy: the paper's and our mean pulls per arm, saved to ``out``.

    Args:
        runs: The output of :func:`load`.
        out: The PNG file to write.
    """
    fig, axes = plt.subplots(1, len(PAPER), figsize=(11.0, 3.4), sharey=True)
    x = np.arange(len(ARMS))
    for ax, (name, paper) in zip(axes, PAPER.items(), strict=True):
        records = runs.get(OURS[name], [])
        ax.bar(x - 0.2, paper, width=0.4, label="paper (App. E)", color="tab:grey")
        stop = " (Eq. 4 stop)" if name == "XY-oracle" else ""
        title = f"{name}{stop}\nmean budget: paper {sum(paper):,}"
        if records:
            ours = np.mean([r["pulls"] for r in records], axis=0)
            wrong = sum(not r["correct"] for r in records)
            ax.bar(x + 0.2, ours, width=0.4, label="ours, β ≡ 2", color="tab:blue")
            title += f"\nours {np.mean([r['samples'] for r in records]):,.0f}"
            title += f" ({len(records)} runs, {wrong} wrong)"
        ax.set_title(title, fontsize=9)
        ax.set_yscale("symlog", linthresh=1)
        ax.set_xticks(x, ["e1", "e2", "e3", "e4", "e5", "x6"])
        ax.grid(True, axis="y", alpha=0.3)
    axes[0].set_ylabel("mean pulls per arm")
    axes[0].legend(fontsize=8, loc="upper right")
    save(fig, out)
    plt.close(fig)


if __name__ == "__main__":
    command_line(__doc__, load, figure, table)
