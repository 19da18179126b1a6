"""Broken on purpose: keeps data from the previous episode (rule: check_reset_clears_state)."""

import numpy as np
from _glr_round_robin import RoundRobinGLR


class DataSurvivesReset(RoundRobinGLR):
    """Allocates its counters once, on the first reset only."""

    def reset(self, spec, rng):
        counts = getattr(self, "counts", None)
        sums = getattr(self, "sums", None)
        super().reset(spec, rng)
        if counts is not None and counts.shape == (self.k,):
            # BUG: the counters of the previous episode are kept ("to save an allocation")
            self.counts, self.sums = counts, sums
            self.t = int(np.sum(counts))
