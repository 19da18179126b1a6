"""Docstring examples run (doctest), and every public name has a docstring."""

from __future__ import annotations

import doctest
import importlib
import inspect
import pkgutil

import pytest

import agents
import bandit_envs
import registry

MODULES = sorted(
    [package.__name__ for package in (bandit_envs, agents, registry)]
    + [
        info.name
        for package in (bandit_envs, agents, registry)
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + ".")
    ]
)
#: modules whose names are public (private helper modules start with "_")
PUBLIC = [name for name in MODULES if not any(p.startswith("_") for p in name.split("."))]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{result.failed} doctest failure(s) in {name}"


def test_there_are_docstring_examples():
    finder = doctest.DocTestFinder()
    examples = sum(
        len(t.examples) for name in MODULES for t in finder.find(importlib.import_module(name))
    )
    assert examples >= 5


@pytest.mark.parametrize("name", PUBLIC)
def test_every_public_name_has_a_docstring(name):
    module = importlib.import_module(name)
    assert inspect.getdoc(module), f"{name} has no module docstring"
    missing = []
    for attr in getattr(module, "__all__", []):
        obj = getattr(module, attr)
        if (inspect.isclass(obj) or inspect.isfunction(obj)) and not inspect.getdoc(obj):
            missing.append(attr)
        if inspect.isclass(obj) and obj.__module__ == name:
            for meth, member in vars(obj).items():
                if (
                    not meth.startswith("_")
                    and inspect.isfunction(member)
                    and not inspect.getdoc(member)
                ):
                    missing.append(f"{attr}.{meth}")
    assert not missing, f"{name}: public names without a docstring: {missing}"
