"""Shared test setup: real data sets come from ../shared/data when it exists (never committed)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

_SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
if "BANDIT_ENVS_DATA" not in os.environ and _SHARED_DATA.is_dir():
    os.environ["BANDIT_ENVS_DATA"] = str(_SHARED_DATA)


@pytest.fixture
def soare():
    """The default LinearBAI-Soare-v0 environment (unwrapped)."""
    import gymnasium as gym

    import bandit_envs  # noqa: F401

    return gym.make("LinearBAI-Soare-v0").unwrapped
