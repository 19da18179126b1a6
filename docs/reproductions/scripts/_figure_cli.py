"""What the reproduction reports' figure scripts share: saving a figure, and their command line.

Every script reads a sweep's results folder, draws one figure and can print the report's table
from the same records: ``python docs/reproductions/scripts/<name>.py RESULTS OUT.png [--table]``.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any


def save(fig: Any, out: Path, dpi: int = 110) -> None:
    """Lay out ``fig`` and write it to ``out``, creating its folder (the caller closes it)."""
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=dpi)


def command_line(
    doc: str,
    load: Callable[[Path], Any],
    figure: Callable[[Any, Path], None],
    table: Callable[[Any], str],
) -> None:
    """Parse ``RESULTS OUT [--table]``, then draw ``figure(load(RESULTS), OUT)``.

    Args:
        doc: The script's docstring (its first line is the command's description).
        load: Reads the results folder into what ``figure`` and ``table`` take.
        figure: Draws and saves the figure.
        table: The report's Markdown table, printed with ``--table``.
    """
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("folder", type=Path, help="the sweep's results folder")
    parser.add_argument("out", type=Path, help="the PNG to write")
    parser.add_argument("--table", action="store_true", help="print the markdown table")
    args = parser.parse_args()
    data = load(args.folder)
    figure(data, args.out)
    if args.table:
        print(table(data))
