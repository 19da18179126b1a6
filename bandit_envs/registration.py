"""The environment ids of the suite, registered with Gymnasium on ``import bandit_envs``.

Ids read ``<Structure><Task>-<Instance>-v<k>`` (DESIGN §2.5). Entry points are strings, so
registering imports nothing heavy; ``gym.make("bandit_envs:<id>")`` imports this package first.
"""

from __future__ import annotations

import dataclasses

import gymnasium as gym


@dataclasses.dataclass(frozen=True)
class EnvEntry:
    """A catalogue entry: the id, its factory, and what it reproduces."""

    id: str
    entry_point: str
    family: str
    task: str
    summary: str
    source: str


ENVS: tuple[EnvEntry, ...] = (
    EnvEntry(
        id="LinearBAI-Soare-v0",
        entry_point="bandit_envs.instances.linear_bai:make_soare",
        family="linear best arm",
        task="best_arm",
        summary="e1..e_d plus an arm at angle omega from e1; theta = scale*e1 (keywords d, omega, "
        "scale, sigma; defaults d=2, omega=0.1, scale=2, sigma=1, delta=0.05)",
        source="Soare, Lazaric, Munos 2014, Sec. 6 (spec 001 §4.1)",
    ),
    EnvEntry(
        id="LinearBAI-Custom-v0",
        entry_point="bandit_envs.instances.linear_bai:make_custom",
        family="linear best arm",
        task="best_arm",
        summary="your own features (KxH), theta and sigma; delta= or budget=",
        source="-",
    ),
)


def register_envs() -> None:
    """Register every id with Gymnasium (idempotent)."""
    for entry in ENVS:
        if entry.id not in gym.registry:
            gym.register(id=entry.id, entry_point=entry.entry_point)
