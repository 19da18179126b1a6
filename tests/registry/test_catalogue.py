"""The catalogue: ids registered on import, make_agent, compatibility, friendly errors."""

import re
import subprocess
import sys

import gymnasium as gym
import pytest

import registry
from bandit_envs import IncompatibleAgentError, InvalidParameterError, UnknownNameError


def test_gym_make_with_module_prefix_in_a_fresh_interpreter():
    code = (
        "import gymnasium as gym; env = gym.make('bandit_envs:LinearBAI-Soare-v0'); "
        "print(env.unwrapped.problem.n_arms)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "3"


def test_catalogue_lists():
    assert {"LinearBAI-Soare-v0", "LinearBAI-Custom-v0"} <= set(registry.list_envs())
    assert "Uniform" in registry.list_agents()
    for env_id in registry.list_envs():
        assert env_id in gym.registry


def test_make_agent_and_errors():
    agent = registry.make_agent("Uniform", check_every=2)
    assert agent.check_every == 2
    assert repr(agent) == "Uniform(check_every=2, threshold='fixed_design')"
    with pytest.raises(
        UnknownNameError,
        match=re.escape(
            "Unknown agent 'Unifrom'. Did you mean 'Uniform' or 'PSIUniform'? Known agents: "
            "BayesGap, KGCB, "
        ),
    ):
        registry.make_agent("Unifrom")
    with pytest.raises(
        InvalidParameterError,
        match=re.escape(
            "make_agent: Uniform has no parameter(s) ['delta']; valid parameters are "
            "['check_every', 'threshold']."
        ),
    ):
        registry.make_agent("Uniform", delta=0.1)
    with pytest.raises(UnknownNameError, match="Did you mean 'LinearBAI-Soare-v0'"):
        registry.make_env("LinearBAI-Soar-v0")


@pytest.mark.parametrize(
    ("kind", "name", "meant"),
    [
        ("agent", "Rage", "'RAGE'?"),  # difflib alone suggests 'Racing'
        ("agent", "gege", "'GEGE'?"),
        ("agent", "linfactg", "'LinFACTG'?"),
        ("environment", "linearbai-soare-v0", "'LinearBAI-Soare-v0'?"),
    ],
)
def test_a_name_in_the_wrong_case_suggests_that_name_alone(kind, name, meant):
    make = registry.make_agent if kind == "agent" else registry.make_env
    with pytest.raises(UnknownNameError, match=re.escape(f"Did you mean {meant} Known {kind}s")):
        make(name)


def test_misspelt_names_are_matched_without_case():
    assert registry.catalogue.suggestions("rgae", ["RAGE", "Racing", "Uniform"])[0] == "RAGE"
    assert registry.catalogue.suggestions("zzzz", ["RAGE"]) == []


def test_compatibility():
    ok, why = registry.is_compatible("Uniform", "LinearBAI-Soare-v0")
    assert ok and why == "compatible"
    matrix = registry.compatibility_matrix()
    assert matrix[("Uniform", "LinearBAI-Soare-v0")][0]


@pytest.mark.parametrize("agent", ["ODLinBAI", "BayesGap", "KGCB"])
def test_compatibility_includes_the_setting(agent):
    """Fixed-budget agents are not compatible with an id whose default is fixed confidence."""
    ok, why = registry.compatibility_matrix()[(agent, "LinearBAI-Soare-v0")]
    assert not ok
    assert why == (
        f"{agent} runs in ['fixed_budget'], but the problem is 'fixed_confidence'. It runs on "
        "this id in fixed budget (gym.make(id, budget=...); bandit-bench run --env-kw budget=N)."
    )
    assert registry.compatibility_matrix("fixed_budget")[(agent, "LinearBAI-Soare-v0")][0]
    assert registry.compatibility_matrix("any")[(agent, "LinearBAI-Soare-v0")][0]
    assert not registry.compatibility_matrix("fixed_budget")[("RAGE", "LinearBAI-Soare-v0")][0]
    with pytest.raises(InvalidParameterError, match="setting must be 'default', 'any' or one"):
        registry.compatibility_matrix("budget")


def test_the_matrix_says_what_the_runner_does_on_every_default_id():
    """Each cell (default setting) is the runner's verdict on gym.make(id) with that agent."""
    matrix = registry.compatibility_matrix()
    checked = {env_id for _, env_id in matrix}
    for env_id in checked:
        if matrix[("Uniform", env_id)][1].startswith("not checked"):
            continue
        env = registry.make_env(env_id)
        for entry in registry.AGENTS:
            ok, why = registry.is_compatible(entry.load()(), env)
            assert matrix[(entry.name, env_id)][0] == ok, (entry.name, env_id, why)


def test_bad_agent_parameter_is_reported_at_reset():
    from bandit_envs import run_episode

    env = gym.make("LinearBAI-Soare-v0")
    with pytest.raises(
        InvalidParameterError,
        match=re.escape("Uniform: check_every must be an integer >= 1; got 0."),
    ):
        run_episode(env, registry.make_agent("Uniform", check_every=0), 0)
    with pytest.raises(
        InvalidParameterError, match="threshold must be 'fixed_design' or a finite float > 0"
    ):
        run_episode(env, registry.make_agent("Uniform", threshold="x"), 0)
    assert issubclass(IncompatibleAgentError, ValueError)
