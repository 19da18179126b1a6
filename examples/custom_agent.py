"""Write your own agent (four methods, no base class), check it, and run it."""

import gymnasium as gym
import numpy as np

from agents import check_agent
from bandit_envs import run_episode


class ExploreThenCommit:
    """Pull every arm `m` times (or spread the budget), then answer the best empirical mean."""

    def __init__(self, m=50):
        self.m = m

    def reset(self, spec, rng):
        self.k, self.t = spec.n_arms, 0
        self.sums, self.counts = np.zeros(self.k), np.zeros(self.k)
        self.limit = spec.budget if spec.fixed_budget else self.m * self.k

    def select(self):
        return None if self.t >= self.limit else self.t % self.k  # None means "I stop"

    def observe(self, arm, outcome):
        self.t += 1
        self.counts[arm] += 1
        self.sums[arm] += outcome[0]

    def recommend(self):
        return frozenset({int(np.argmax(self.sums / np.maximum(self.counts, 1)))})


results = check_agent(ExploreThenCommit())  # raises if a protocol rule is broken
print("check_agent:", ", ".join(f"{r.check}={r.status}" for r in results))

env = gym.make("LinearBAI-Soare-v0", omega=0.5)
records = [run_episode(env, ExploreThenCommit(m=100), seed=s) for s in range(20)]
print(
    f"error rate {np.mean([not r.correct for r in records]):.2f}, "
    f"samples {records[0].samples} per episode"
)
