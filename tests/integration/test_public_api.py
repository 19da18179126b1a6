"""The public surface a user imports: every agent from ``agents``, a small ``bandit_envs``.

Names that ``bandit_envs`` exported in 0.1 and no longer does are deprecated aliases that warn
and name the module to import from; the sweep and report functions moved up to ``registry``.
"""

from __future__ import annotations

import importlib
import warnings

import pytest

import agents
import bandit_envs
import registry


def test_every_catalogue_agent_is_importable_from_agents():
    names = registry.list_agents()
    assert len(names) >= 30
    for name in names:
        assert getattr(agents, name) is registry.agent_entry(name).load()
        assert name in agents.__all__
    from agents import GEGE, SFSR, LinGapE  # noqa: F401 - the import is the test


def test_bandit_envs_exports_a_small_documented_surface():
    exported = set(bandit_envs.__all__)
    assert {
        "PureExplorationEnv",
        "ProblemSpec",
        "run_episode",
        "Agent",
        "AgentCapabilities",
        "InvalidParameterError",
        "ActionMask",
    } <= exported
    assert len(exported) < 50
    for name in exported:
        assert getattr(bandit_envs, name) is not None
        if name != "__version__":
            assert getattr(bandit_envs, name).__doc__, name


@pytest.mark.parametrize("name", sorted(bandit_envs._MOVED))
def test_names_of_version_0_1_are_deprecated_aliases(name):
    module = bandit_envs._MOVED[name]
    with pytest.warns(DeprecationWarning, match=f"import it from {module}"):
        value = getattr(bandit_envs, name)
    assert value == getattr(importlib.import_module(module), name)


@pytest.mark.parametrize("name", ["sweep", "read_results", "report", "summarize"])
def test_sweeps_and_reports_moved_up_to_the_registry(name):
    with pytest.raises(AttributeError, match=f"has moved to registry.{name}"):
        getattr(bandit_envs, name)
    assert callable(getattr(registry, name))


def test_unknown_names_are_plain_attribute_errors():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(AttributeError, match="has no attribute 'nope'"):
            bandit_envs.nope  # noqa: B018 - the access is the test
