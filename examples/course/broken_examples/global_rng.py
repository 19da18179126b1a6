"""Broken on purpose: draws from numpy's global random state (rule: check_global_rng)."""

import numpy as np
from _glr_round_robin import RoundRobinGLR


class RandomOrder(RoundRobinGLR):
    """Pulls the arms of each round in a random order."""

    def select(self):
        if self.stopped:
            return None
        least = np.flatnonzero(self.counts == self.counts.min())
        return int(np.random.choice(least))  # BUG: should be self.rng.choice(least)
