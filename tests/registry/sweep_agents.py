"""Agents used by the sweep tests (importable by worker processes as ``sweep_agents:Name``)."""

from __future__ import annotations

import numpy as np

from agents import Uniform


class FlakyUniform(Uniform):
    """Uniform that raises in ``reset`` when its first random draw is below ``FAIL_BELOW``.

    The failure is a deterministic function of the episode seed, so a test can predict exactly
    which runs of a sweep crash, whatever the backend.
    """

    FAIL_BELOW = 0.1

    def reset(self, spec, rng):
        if first_draw(rng) < self.FAIL_BELOW:
            raise RuntimeError("deliberate failure of the test agent")
        super().reset(spec, rng)


def first_draw(rng: np.random.Generator) -> float:
    """The first draw FlakyUniform makes from its episode generator."""
    return float(rng.random())


class Sleepy(Uniform):
    """Uniform that sleeps ``seconds`` at every reset: a stand-in for a long episode."""

    def __init__(
        self, seconds: float = 0.5, check_every: int = 1, threshold: str | float = "fixed_design"
    ) -> None:
        super().__init__(check_every, threshold)
        self.seconds = seconds

    def reset(self, spec, rng):
        import time

        time.sleep(self.seconds)
        super().reset(spec, rng)
