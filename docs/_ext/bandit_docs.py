"""Sphinx extension of the bandit-envs docs: docstring tables and the generated catalogues.

* The environment factories document their keywords with Markdown tables and ``## Heading``
  lines (Gymnasium's style, readable in ``help()``); :func:`markdown_blocks_to_rst` turns them
  into RST list tables and rubrics when autodoc renders the docstrings.
* :func:`catalogue_pages` renders ``catalogue/envs.md`` and ``catalogue/agents.md`` from the
  declarations (the factories' ids, the agents' cards). The pages are committed, so that they
  read on GitHub too; ``python docs/scripts/catalogue_pages.py`` rewrites them,
  ``tests/integration/test_catalogue_pages.py`` fails when they are stale, and so does the build
  (a warning, fatal under ``-W``) whenever the real data sets are on the machine.
* :func:`write_api_page` writes the API page (``catalogue/api.rst``, not committed) at every
  build.
"""

from __future__ import annotations

import inspect
import re
from pathlib import Path
from typing import Any

_ROW = re.compile(r"^\s*\|.*\|\s*$")
_RULE = re.compile(r"^\s*\|[\s:|-]+\|\s*$")
_HEADING = re.compile(r"^(\s*)#{2,4}\s+(.*\S)\s*$")


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def markdown_blocks_to_rst(lines: list[str]) -> list[str]:
    """Markdown tables → ``list-table`` directives, ``## Title`` → ``.. rubric:: Title``."""
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        heading = _HEADING.match(line)
        if heading:
            indent = heading.group(1)
            out += [f"{indent}.. rubric:: {heading.group(2)}", ""]
            i += 1
            continue
        if _ROW.match(line) and i + 1 < len(lines) and _RULE.match(lines[i + 1]):
            indent = line[: len(line) - len(line.lstrip())]
            rows = [_cells(line)]
            i += 2
            while i < len(lines) and _ROW.match(lines[i]):
                rows.append(_cells(lines[i]))
                i += 1
            width = len(rows[0])
            if out and out[-1].strip():
                out.append("")
            out += [f"{indent}.. list-table::", f"{indent}   :header-rows: 1", ""]
            for row in rows:
                row = (row + [""] * width)[:width]
                out.append(f"{indent}   * - {row[0] or ' '}")
                out += [f"{indent}     - {cell or ' '}" for cell in row[1:]]
            out.append("")
            continue
        out.append(_escape_bars(line))
        i += 1
    return out


def _escape_bars(line: str) -> str:
    """Escape ``|`` outside inline literals: ``|x|`` is an absolute value, not a substitution."""
    if "|" not in line:
        return line
    parts = line.split("``")
    for k in range(0, len(parts), 2):  # even parts are outside ``literals``
        parts[k] = re.sub(r"(?<!\\)\|", r"\\|", parts[k])
    return "``".join(parts)


def _process_docstring(
    app: Any, what: str, name: str, obj: Any, options: Any, lines: list[str]
) -> None:
    lines[:] = markdown_blocks_to_rst(lines)


def _escape(text: str) -> str:
    return text.replace("|", "\\|")


def _default(value: Any) -> str:
    """A keyword default as the catalogue shows it (``required`` when there is none)."""
    return "required" if value is inspect.Parameter.empty else repr(value)


def _keyword_table(header: str, keywords: dict[str, Any]) -> list[str]:
    if not keywords:
        return []
    rows = [f"| {header} | default |", "|---|---|"]
    rows += [f"| `{name}` | `{_escape(_default(value))}` |" for name, value in keywords.items()]
    return [*rows, ""]


def _agent_parameters(cls: type) -> dict[str, Any]:
    """The agent's constructor parameters and their defaults, from its signature."""
    params = list(inspect.signature(cls.__init__).parameters.values())[1:]  # not self
    return {p.name: p.default for p in params if p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)}


#: the command that rewrites the committed catalogue pages
REGENERATE = "python docs/scripts/catalogue_pages.py"


def missing_data() -> list[str]:
    """The real data sets that some id needs and that are not on this machine (never downloads).

    Without them the compatibility matrix cannot build those ids and says "not checked": the
    pages are then not the ones to commit.
    """
    from bandit_envs.data import dataset_path
    from bandit_envs.errors import DataError
    from registry.catalogue import ENVS

    missing = []
    for name in sorted({d for entry in ENVS for d in entry.datasets}):
        try:
            dataset_path(name, download=False)
        except DataError:
            missing.append(name)
    return missing


def catalogue_pages() -> dict[str, str]:
    """``{"envs.md": text, "agents.md": text}``: the catalogue pages (Markdown, MyST).

    Everything comes from the declarations: each id's ``EnvEntry`` (family, task, summary,
    source, data sets, ``keywords()`` read from the factory's signature, ``default_setting()``),
    each agent's card (summary, paper, heuristic stopping rules), capabilities and constructor
    signature, and the compatibility matrix.
    """
    from registry.catalogue import AGENTS, ENVS, compatibility_matrix

    matrix = compatibility_matrix(setting="any")  # an agent of the family: in some setting
    envs = [
        "# Environment catalogue",
        "",
        f"Generated from the factories' declarations (`bandit_envs.envs.env_entries()`) by "
        f"`{REGENERATE}` ({len(ENVS)} ids). Every id is registered with Gymnasium: "
        "`gym.make(id, **keywords)`. Keywords marked *required* have no default. Every id also "
        "takes `delta=` (fixed confidence) or `budget=` (fixed budget); without either, it "
        "poses its default setting.",
        "",
    ]
    for entry in ENVS:
        module, _, attr = entry.entry_point.partition(":")
        setting = ", ".join(f"{k}={v}" for k, v in entry.default_setting().items())
        agents = sorted(a for (a, e), (ok, _) in matrix.items() if e == entry.id and ok)
        envs += [
            f"## `{entry.id}`",
            "",
            f"*{entry.family}* — task `{entry.task}`. {entry.summary}. Default setting: "
            f"`{setting}`. Default agent: `{entry.default_agent}` (solves the id at both "
            f"their defaults).",
            "",
            f"**Source**: {entry.source}"
            + (f" · **data**: {', '.join(entry.datasets)}" if entry.datasets else ""),
            "",
        ]
        envs += _keyword_table("keyword", entry.keywords())
        if entry.id.endswith("-Custom-v0"):
            envs += ["**Agents**: those of the task (the instance is yours).", ""]
        elif agents:
            envs += ["**Compatible agents**: " + ", ".join(f"`{a}`" for a in agents), ""]
        else:
            reason = next((why for (a, e), (ok, why) in matrix.items() if e == entry.id), "")
            envs += [f"**Compatible agents**: {reason or 'none'}", ""]
        envs += [f"Factory: {{py:func}}`{module}.{attr}` (all keywords explained there).", ""]
    agents_md = [
        "# Agent catalogue",
        "",
        f"Generated from the agent classes' cards by `{REGENERATE}` ({len(AGENTS)} agents). "
        "Build one with `registry.make_agent(name, **params)`.",
        "",
    ]
    for entry in AGENTS:
        cls = entry.load()
        card = entry.card
        caps = cls.capabilities
        ids = sorted(e for (a, e), (ok, _) in matrix.items() if a == entry.name and ok)
        agents_md += [
            f"## `{entry.name}`",
            "",
            f"{card.summary}.",
            "",
            f"**Source**: {card.paper}",
            "",
            f"**Tasks**: {', '.join(sorted(caps.tasks))} · **settings**: "
            f"{', '.join(sorted(caps.settings))} · **structures**: "
            f"{', '.join(sorted(caps.structures))} · **batch path**: "
            f"{'yes' if caps.batch else 'no'}" + (" · **oracle**" if caps.oracle else ""),
            "",
        ]
        agents_md += _keyword_table("parameter", _agent_parameters(cls))
        if card.heuristics:
            agents_md += ["**Heuristic stopping rules** (no δ-correctness proof):", ""]
            agents_md += [f"- `{rule.param}`: {rule.note}" for rule in card.heuristics]
            agents_md.append("")
        agents_md += [
            "**Runs on**: "
            + (
                ", ".join(f"`{e}`" for e in ids)
                if ids
                else "no registered id (its task has no id yet)"
            ),
            "",
            f"Class: {{py:class}}`{entry.entry_point.replace(':', '.')}`.",
            "",
        ]
    return {"envs.md": "\n".join(envs), "agents.md": "\n".join(agents_md)}


def stale_pages(folder: Path) -> list[str]:
    """The pages of ``folder`` that differ from :func:`catalogue_pages` (or are absent)."""
    return [
        name
        for name, text in catalogue_pages().items()
        if not (folder / name).is_file() or (folder / name).read_text(encoding="utf-8") != text
    ]


def write_catalogues(folder: Path) -> list[str]:
    """Write the catalogue pages into ``folder``; return the names of those that changed."""
    folder.mkdir(parents=True, exist_ok=True)
    changed = []
    for name, text in catalogue_pages().items():
        path = folder / name
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
            changed.append(name)
    return changed


#: the sections of the API page: (title, package, what it is).
API_SECTIONS = (
    ("Problems: the core", "bandit_envs.core", "the environment, problems, tasks, models, runner"),
    ("Shared math", "bandit_envs.theory", "designs, least squares, thresholds, gaps, LP bases"),
    ("Environment families", "bandit_envs.envs", "the factories behind the ids"),
    ("Data sets", "bandit_envs.data", "download, verification, cache, loaders"),
    ("Reinforcement learning", "bandit_envs.rl", "wrappers and Stable-Baselines3 adapters"),
    ("Errors", "bandit_envs.errors", "every exception the library raises"),
    ("Agents", "agents", "the zoo, its base class, check_agent"),
    ("Registry and command line", "registry", "catalogue, sweeps, reports, audit, CLI"),
)


def _is_private(dotted: str) -> bool:
    return any(part.startswith("_") for part in dotted.split("."))


def _public_modules(package: str) -> list[str]:
    """``package`` and its public modules, depth first.

    A private module's content is shown through the package that re-exports it.
    """
    import importlib
    import pkgutil

    root = importlib.import_module(package)
    names = [package]
    if hasattr(root, "__path__"):
        for info in pkgutil.walk_packages(root.__path__, prefix=f"{package}."):
            if not _is_private(info.name):
                names.append(info.name)
    return names


def _api_directive(name: str) -> list[str]:
    """``automodule`` for one module.

    A module shows its own members; a package the names its ``__all__`` re-exports from private
    modules (documented nowhere else).
    """
    import importlib

    module = importlib.import_module(name)
    exported = getattr(module, "__all__", None)
    is_package = hasattr(module, "__path__")
    if not is_package:
        return [f".. automodule:: {name}", ""]
    borrowed = [
        attr
        for attr in exported or ()
        if _is_private(getattr(getattr(module, attr, None), "__module__", "") or "")
    ]
    members = f"   :members: {', '.join(borrowed)}" if borrowed else "   :no-members:"
    return [f".. automodule:: {name}", members, ""]


def write_api_page(folder: Path) -> None:
    """Write ``api.rst`` from the packages themselves: every public module, grouped by layer."""
    lines = [
        "API reference",
        "=============",
        "",
        "Generated from the packages at every build of these docs: every public module, by layer",
        "(private modules, whose names start with an underscore, are shown through the package",
        "that re-exports them). The public names of each package are those of its ``__all__``.",
        "",
    ]
    for title, package, what in API_SECTIONS:
        lines += [title, "-" * len(title), "", f"{what[0].upper()}{what[1:]}.", ""]
        for name in _public_modules(package):
            lines += _api_directive(name)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "api.rst").write_text("\n".join(lines), encoding="utf-8")


def _builder_inited(app: Any) -> None:
    from sphinx.util import logging

    logger = logging.getLogger(__name__)
    folder = Path(app.srcdir) / "catalogue"
    write_api_page(folder)
    missing = missing_data()
    if missing:
        logger.info(
            "catalogue pages not checked: the %s data set(s) are not on this machine (set "
            "BANDIT_ENVS_DATA, or run `bandit-bench data fetch %s`)",
            ", ".join(missing),
            " ".join(missing),
        )
        return
    for name in stale_pages(folder):
        logger.warning("docs/catalogue/%s is out of date: run %s", name, REGENERATE)


def setup(app: Any) -> dict[str, Any]:
    """Register the docstring transform and the catalogue and API page generators."""
    app.connect("autodoc-process-docstring", _process_docstring)
    app.connect("builder-inited", _builder_inited)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
