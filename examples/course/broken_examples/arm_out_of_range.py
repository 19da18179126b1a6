"""Broken on purpose: numbers the arms 1..K instead of 0..K-1 (rule: check_valid_actions)."""

from _glr_round_robin import RoundRobinGLR


class OneBasedArms(RoundRobinGLR):
    """Round robin, off by one."""

    def select(self):
        if self.stopped:
            return None
        return self.t % self.k + 1  # BUG: returns K, which is not an arm (arms are 0..K-1)

    def observe(self, arm, outcome):
        super().observe(arm - 1, outcome)
