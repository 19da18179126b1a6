"""Write the environment and agent catalogue pages (docs/catalogue/*.md) from the declarations.

Usage: ``python docs/scripts/catalogue_pages.py`` rewrites ``docs/catalogue/envs.md`` and
``docs/catalogue/agents.md``; ``--check`` exits 1 when either is not current (the test suite
checks the same, ``tests/integration/test_catalogue_pages.py``). The pages are committed so that
they read on GitHub as well as on the documentation site; they are rendered by
``docs/_ext/bandit_docs.py`` from the factories' declarations, the agents' cards and the
compatibility matrix. That matrix builds every id, so both commands need the real data sets
(``BANDIT_ENVS_DATA``, or ``bandit-bench data fetch noc energy``) and refuse to run without them.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parents[1]
FOLDER = DOCS / "catalogue"
sys.path.insert(0, str(DOCS / "_ext"))
sys.path.insert(0, str(DOCS.parent))

from bandit_docs import REGENERATE, missing_data, stale_pages, write_catalogues  # noqa: E402


def main() -> int:
    """Rewrite (or, with --check, verify) the catalogue pages."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 unless the pages are current")
    args = parser.parse_args()
    missing = missing_data()
    if missing:
        print(
            "the catalogue pages list the agents of every id, which needs the "
            f"{', '.join(missing)} data set(s), not on this machine: set BANDIT_ENVS_DATA to a "
            "folder holding them, or "
            f"run `bandit-bench data fetch {' '.join(missing)}`",
            file=sys.stderr,
        )
        return 2
    if args.check:
        stale = stale_pages(FOLDER)
        for name in stale:
            print(f"docs/catalogue/{name} is out of date: run {REGENERATE}", file=sys.stderr)
        return 1 if stale else 0
    changed = write_catalogues(FOLDER)
    print(f"wrote {', '.join(changed)}" if changed else "the catalogue pages were current")
    return 0


if __name__ == "__main__":
    sys.exit(main())
