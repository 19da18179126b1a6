"""Write ``docs/errors.md``, the table of refused inputs, from the integration test of it.

The test is ``tests/integration/test_errors_table.py``.

The rows live in the test module (``CASES``), where each one is run and its exception and exact
message checked; this script only renders them. ``--check`` exits with status 1 when the page
is out of date instead of writing it (``tests/integration/test_errors_table.py`` checks the same).

Usage::

    python docs/scripts/errors_table.py [--check]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def main(argv: list[str] | None = None) -> int:
    """Render the page; return the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only check that the page is current")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT / "tests" / "integration"))
    sys.path.insert(0, str(ROOT))
    from test_errors_table import PAGE, render_page

    text = render_page()
    if args.check:
        current = PAGE.is_file() and PAGE.read_text(encoding="utf-8") == text
        print(f"{PAGE}: {'up to date' if current else 'OUT OF DATE'}")
        return 0 if current else 1
    PAGE.write_text(text, encoding="utf-8")
    print(f"wrote {PAGE} ({text.count(chr(10))} lines)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
