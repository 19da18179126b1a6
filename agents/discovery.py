"""Find the catalogue agents: every class in a family folder of this package that sets a card.

A family folder is a subpackage such as ``agents/linear_bai/``; every public module in it is
imported, and every class defined there that sets :attr:`agents.base.BaseAgent.card` itself
(not by inheritance) is an agent of the catalogue, named by its class name. Adding a module
with such a class is therefore all it takes for an agent to appear in ``from agents import``,
the registry, ``bandit-bench list``, the documentation's catalogue and the test matrix.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
from types import ModuleType

__all__ = ["FAMILY_PACKAGES", "find_agents"]

#: subpackages that hold no agents.
_NOT_FAMILIES = frozenset({"common"})
#: the order in which the catalogue lists the families; a new family folder follows them.
_FAMILY_ORDER = ("linear_bai", "pareto", "eps_good", "constrained")


def _family_packages() -> list[str]:
    import agents

    names = [
        name
        for _, name, is_package in pkgutil.iter_modules(agents.__path__)
        if is_package and name not in _NOT_FAMILIES and not name.startswith("_")
    ]
    rank = {name: i for i, name in enumerate(_FAMILY_ORDER)}
    return sorted(names, key=lambda name: (rank.get(name, len(rank)), name))


#: the family subpackages, in catalogue order.
FAMILY_PACKAGES: tuple[str, ...] = tuple(_family_packages())


def _modules(package: str) -> list[ModuleType]:
    pkg = importlib.import_module(f"agents.{package}")
    return [
        importlib.import_module(f"{pkg.__name__}.{name}")
        for _, name, _ in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda m: m[1])
        if not name.startswith("_")
    ]


@functools.cache
def find_agents() -> dict[str, type]:
    """``{name: class}`` of every catalogue agent, by family, module name and definition order.

    Raises:
        TypeError: two catalogue agents share a class name.
    """
    found: dict[str, type] = {}
    for package in FAMILY_PACKAGES:
        for module in _modules(package):
            for obj in vars(module).values():
                if (
                    isinstance(obj, type)
                    and obj.__module__ == module.__name__
                    and vars(obj).get("card") is not None
                ):
                    if obj.__name__ in found and found[obj.__name__] is not obj:
                        other = found[obj.__name__]
                        raise TypeError(
                            f"two agents are named {obj.__name__}: {other.__module__} and "
                            f"{obj.__module__}; agent names must be unique."
                        )
                    found[obj.__name__] = obj
    return found
