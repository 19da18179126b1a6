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
        id="LinearBAI-Basis-v0",
        entry_point="bandit_envs.instances.linear_bai:make_basis",
        family="linear best arm",
        task="best_arm",
        summary="arms e1..e_d, theta = (gap, 0, ...) (keywords d, gap, sigma; defaults d=5, "
        "gap=0.2, sigma=1, delta=0.1)",
        source="Zaki, Mohan, Gopalan (PELEG), setting 1 (spec 003 §5.2)",
    ),
    EnvEntry(
        id="LinearBAI-Sphere-v0",
        entry_point="bandit_envs.instances.linear_bai:make_sphere",
        family="linear best arm",
        task="best_arm",
        summary="n_arms arms uniform on the sphere of R^d, theta = u + gamma (v - u) for the two "
        "closest arms (keywords n_arms, d, gamma, sigma, instance_seed; defaults 100, 10, 0.01, "
        "1, 0; delta=0.1)",
        source="Tao, Blanco, Zhou 2018 via PELEG setting 2 (spec 003 §5.3)",
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
