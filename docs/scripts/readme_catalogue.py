"""Write the README's table of families, ids and agents from the declarations.

Usage: ``python docs/scripts/readme_catalogue.py`` (rewrites the block between the
``<!-- catalogue:start -->`` and ``<!-- catalogue:end -->`` markers of README.md);
``--check`` exits 1 when the README is not current (maintainers run it before a release);
``--check-facts`` exits 1 only when the table says something wrong: an id or agent that does not
exist, or is listed under a family it does not belong to or run on. The test suite runs
``--check-facts``, so a contribution that adds an agent or an id needs no README edit, and the
table can lag behind the code but never contradict it. Families and ids come from the
factories' declarations (``EnvEntry.family``, in declaration order), agents from the catalogue
(the classes' cards), and which agents run on a family from the compatibility matrix.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"
START, END = "<!-- catalogue:start -->", "<!-- catalogue:end -->"


def rows() -> dict[str, tuple[list[str], list[str]]]:
    """``{family: (ids, agents that run on at least one of them)}``, in catalogue order."""
    from registry.catalogue import AGENTS, ENVS, compatibility_matrix

    matrix = compatibility_matrix(setting="any")  # an agent of the family: in some setting
    families: dict[str, list[str]] = {}
    for entry in ENVS:
        families.setdefault(entry.family, []).append(entry.id)
    return {
        family: (
            ids,
            [a.name for a in AGENTS if any(matrix.get((a.name, i), (False, ""))[0] for i in ids)],
        )
        for family, ids in families.items()
    }


def table() -> str:
    """The Markdown table: one row per family (ids, agents that run on them, sources)."""
    out = ["| family | ids | agents |", "|---|---|---|"]
    for family, (ids, agents) in rows().items():
        out.append(
            f"| {family} | "
            + ", ".join(f"`{i}`" for i in ids)
            + " | "
            + ", ".join(f"`{a}`" for a in agents)
            + " |"
        )
    return "\n".join(out)


def wrong_facts(text: str) -> list[str]:
    """What the README's table says that the code contradicts (empty when nothing)."""
    truth = rows()
    block = text.partition(START)[2].partition(END)[0]
    problems = []
    for line in block.strip().splitlines()[2:]:
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 3:
            problems.append(f"not a table row: {line!r}")
            continue
        family, ids, agents = cells
        if family not in truth:
            problems.append(f"no family {family!r}")
            continue
        listed_ids = [i.strip(" `") for i in ids.split(",") if i.strip()]
        listed_agents = [a.strip(" `") for a in agents.split(",") if a.strip()]
        problems += [
            f"{i} is not an id of {family}" for i in listed_ids if i not in truth[family][0]
        ]
        problems += [
            f"{a} does not run on {family}" for a in listed_agents if a not in truth[family][1]
        ]
    return problems


def render(text: str) -> str:
    """``text`` with the block between the markers replaced by the current table."""
    head, _, rest = text.partition(START)
    _, _, tail = rest.partition(END)
    return f"{head}{START}\n{table()}\n{END}{tail}"


def main() -> int:
    """Rewrite (or, with --check, verify) the README block."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 unless the table is current")
    parser.add_argument(
        "--check-facts", action="store_true", help="exit 1 if the table says something wrong"
    )
    args = parser.parse_args()
    text = README.read_text(encoding="utf-8")
    if START not in text or END not in text:
        print(f"{README}: the markers {START} / {END} are missing", file=sys.stderr)
        return 1
    if args.check_facts:
        problems = wrong_facts(text)
        for problem in problems:
            print(f"README.md's catalogue table: {problem}", file=sys.stderr)
        return 1 if problems else 0
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
