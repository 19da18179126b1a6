"""Write the README's table of families, ids and agents from the declarations.

Usage: ``python docs/scripts/readme_catalogue.py`` (rewrites the block between the
``<!-- catalogue:start -->`` and ``<!-- catalogue:end -->`` markers of README.md);
``--check`` exits 1 when the README is not current. ``tests/integration/test_readme.py`` runs
the check, so the table cannot drift from the code: families and ids come from the factories'
declarations (``EnvEntry.family``, in declaration order), agents from the catalogue (the
classes' cards), and which agents run on a family from the compatibility matrix.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"
START, END = "<!-- catalogue:start -->", "<!-- catalogue:end -->"


def table() -> str:
    """The Markdown table: one row per family (ids, agents that run on them, sources)."""
    from registry.catalogue import AGENTS, ENVS, compatibility_matrix

    matrix = compatibility_matrix()
    families: dict[str, list] = {}
    for entry in ENVS:
        families.setdefault(entry.family, []).append(entry)
    rows = ["| family | ids | agents |", "|---|---|---|"]
    for family, entries in families.items():
        ids = [e.id for e in entries]
        agents = [
            a.name for a in AGENTS if any(matrix.get((a.name, i), (False, ""))[0] for i in ids)
        ]
        rows.append(
            f"| {family} | "
            + ", ".join(f"`{i}`" for i in ids)
            + " | "
            + ", ".join(f"`{a}`" for a in agents)
            + " |"
        )
    return "\n".join(rows)


def render(text: str) -> str:
    """``text`` with the block between the markers replaced by the current table."""
    head, _, rest = text.partition(START)
    _, _, tail = rest.partition(END)
    return f"{head}{START}\n{table()}\n{END}{tail}"


def main() -> int:
    """Rewrite (or, with --check, verify) the README block."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    text = README.read_text(encoding="utf-8")
    if START not in text or END not in text:
        print(f"{README}: the markers {START} / {END} are missing", file=sys.stderr)
        return 1
    new = render(text)
    if args.check:
        if new != text:
            print(
                "README.md's catalogue table is out of date: run "
                "python docs/scripts/readme_catalogue.py",
                file=sys.stderr,
            )
            return 1
        return 0
    README.write_text(new, encoding="utf-8")
    print(f"wrote the catalogue table of {README}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
