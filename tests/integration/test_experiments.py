"""Every versioned sweep config in experiments/ loads and names only valid ids, agents, keywords.

Validating a setting builds its environment, so a config over a real-data id is skipped (naming
the data set and how to get it) when that data set is not on this machine: the test never
downloads.
"""

from pathlib import Path

import pytest
from conftest import skip_without_data

from registry.config import load_config, validate_settings

CONFIGS = sorted((Path(__file__).resolve().parents[2] / "experiments").glob("*.toml"))


def test_there_are_configs():
    assert any(p.name == "soare_uniform.toml" for p in CONFIGS)


@pytest.mark.parametrize("path", CONFIGS, ids=[p.name for p in CONFIGS])
def test_config_is_valid(path):
    config = load_config(path)
    for env in config.envs:
        skip_without_data(env.id)
    validate_settings(config)
    assert config.runs >= 1 and config.envs and config.agents and config.out
