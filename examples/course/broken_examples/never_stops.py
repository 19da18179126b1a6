"""Broken on purpose: forgets to stop (rule: check_stops_when_easy)."""

from _glr_round_robin import RoundRobinGLR


class NeverStops(RoundRobinGLR):
    """Runs the stopping test but never acts on it."""

    def select(self):
        return self.t % self.k  # BUG: should return None once self.stopped is True
