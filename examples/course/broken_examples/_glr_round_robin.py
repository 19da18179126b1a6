"""A correct, simple student agent that the broken examples each break in one way.

Round robin over the arms, a GLR stopping test after every complete round (valid because round
robin does not depend on the observations), and the least-squares best arm as the answer.
"""

from __future__ import annotations

import numpy as np

from bandit_envs.core.protocols import AgentCapabilities
from bandit_envs.theory.linalg import reduce_features
from bandit_envs.theory.thresholds import fixed_design_threshold, glr_best_arm


class RoundRobinGLR:
    """Pull 0, 1, …, K−1, 0, …; stop once the GLR statistic passes β(test number, δ)."""

    capabilities = AgentCapabilities(
        tasks=frozenset({"best_arm"}),
        settings=frozenset({"fixed_confidence"}),
        structures=frozenset({"linear"}),
    )

    def reset(self, spec, rng):
        self.rng = rng
        self.k = spec.n_arms
        features = np.eye(self.k) if spec.features is None else spec.features
        self.z, _ = reduce_features(features)
        self.round_inv = np.linalg.inv(self.z.T @ self.z)  # A⁻¹ of one round of pulls
        self.sigma = float(np.max(spec.noise_std))
        self.delta = spec.delta
        self.t = 0
        self.tests = 0
        self.stopped = False
        self.counts = np.zeros(self.k, dtype=np.int64)
        self.sums = np.zeros(self.k)

    def select(self):
        return None if self.stopped else self.t % self.k

    def observe(self, arm, outcome):
        self.t += 1
        self.counts[arm] += 1
        self.sums[arm] += outcome[0]
        if self.t % self.k == 0:  # a round is complete: run the GLR test
            rounds = self.t // self.k
            self.tests += 1
            _, stat = glr_best_arm(self.z, self.theta(), self.round_inv / rounds, self.sigma)
            self.stopped = stat >= fixed_design_threshold(self.tests, self.delta, self.k)

    def theta(self):
        rounds = max(int(self.counts.min()), 1)
        return self.round_inv @ (self.z.T @ (self.sums / rounds))

    def best_arm(self):
        return int(np.argmax(self.z @ self.theta()))

    def recommend(self):
        return frozenset({self.best_arm()})
