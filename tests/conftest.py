"""Shared test setup: real data sets come from ../shared/data when it exists (never committed)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

_SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
if "BANDIT_ENVS_DATA" not in os.environ and _SHARED_DATA.is_dir():
    os.environ["BANDIT_ENVS_DATA"] = str(_SHARED_DATA)


def skip_without_data(env_id: str) -> None:
    """Skip, naming what is missing, when ``env_id`` reads a data set not available locally."""
    from bandit_envs.datasets import dataset_path
    from bandit_envs.errors import DataError
    from bandit_envs.registration import ENVS

    for entry in ENVS:
        if entry.id != env_id:
            continue
        for name in entry.datasets:
            try:
                dataset_path(name, download=False)
            except DataError as exc:
                pytest.skip(f"{env_id} needs the {name} data set, not available here: {exc}")


@pytest.fixture
def soare():
    """The default LinearBAI-Soare-v0 environment (unwrapped)."""
    import gymnasium as gym

    import bandit_envs  # noqa: F401

    return gym.make("LinearBAI-Soare-v0").unwrapped
