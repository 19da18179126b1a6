"""GEGE's Fig. 3 on NoC from our sweep (docs/reproductions/gege.md; Kone, Kaufmann & Richert, §5).

Usage::

    python docs/reproductions/scripts/gege_figure.py results/psi_noc_fixed_budget \
        docs/reproductions/figures/gege_noc_fixed_budget.png [--table]

Reads the records of ``experiments/psi_noc_fixed_budget.toml`` with
``registry.sweeps.read_results`` and draws the misidentification rate (the answer is not
exactly the Pareto set) against the budget T for every agent, with 95% Clopper-Pearson bands.
With ``--table`` it also prints the Markdown table of the page (error rate per budget and agent).
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from _figure_cli import command_line, save

from registry.plots import pyplot
from registry.reporting import clopper_pearson
from registry.sweeps import read_results

plt = pyplot()  # matplotlib (Agg), or an error naming the extra to install: bandit-envs[plot]

ORDER = ("GEGE", "EGESH", "EGESR", "PSIUniform")
LABEL = {"GEGE": "GEGE", "EGESH": "EGE-SH", "EGESR": "EGE-SR", "PSIUniform": "uniform"}


def load(folder: Path) -> dict[tuple[str, int], list[bool]]:
    """Return ``{(agent, budget): [wrong, ...]}`` from a results folder.

    Args:
        folder: The sweep's results folder (holding ``results.jsonl``).
    """
    cells: dict[tuple[str, int], list[bool]] = defaultdict(list)
    for r in read_results(folder):
        if r.get("status", "ok") == "ok":
            cells[(r["agent"], int(r["budget"]))].append(not r["correct"])
    return cells


def table(cells: dict[tuple[str, int], list[bool]]) -> str:
    """Markdown table: error rate per budget (rows) and agent (columns).

    Args:
        cells: The output of :func:`load`.
    """
    budgets = sorted({n for _, n in cells})
    lines = [
        "| budget T | " + " | ".join(LABEL[a] for a in ORDER) + " |",
        "|---|" + "---|" * len(ORDER),
    ]
    for n in budgets:
        row = [f"{sum(w) / len(w):.3f}" if (w := cells.get((a, n))) else "—" for a in ORDER]
        lines.append(f"| {n} | " + " | ".join(row) + " |")
    return "\n".join(lines)


def figure(cells: dict[tuple[str, int], list[bool]], out: Path) -> None:
    """Error rate against the budget, one line and band per agent, saved to ``out``.

    Args:
        cells: The output of :func:`load`.
        out: The PNG file to write.
    """
    fig, ax = plt.subplots(figsize=(6.0, 3.8))
    for agent in ORDER:
        budgets = sorted(n for a, n in cells if a == agent)
        if not budgets:
            continue
        wrong = [cells[(agent, n)] for n in budgets]
        err = [sum(w) / len(w) for w in wrong]
        bands = [clopper_pearson(sum(w), len(w)) for w in wrong]
        line = ax.plot(budgets, err, marker="o", ms=4, label=LABEL[agent])[0]
        ax.fill_between(
            budgets,
            [lo for lo, _ in bands],
            [hi for _, hi in bands],
            color=line.get_color(),
            alpha=0.2,
        )
    runs = min(len(w) for w in cells.values())
    ax.set_xlabel("budget T")
    ax.set_ylabel("misidentification rate")
    ax.set_ylim(0, 1.02)
    ax.set_title(f"NoC (K = 259, h = 4, d = 2), fixed budget: {runs} runs per point", fontsize=10)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8, loc="center", bbox_to_anchor=(0.5, 0.85), ncol=4)
    save(fig, out)
    plt.close(fig)


if __name__ == "__main__":
    command_line(__doc__, load, figure, table)
