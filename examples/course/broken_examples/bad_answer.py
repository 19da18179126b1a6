"""Broken on purpose: recommends an int, not a set of arms (rule: check_valid_actions)."""

from _glr_round_robin import RoundRobinGLR


class IntAnswer(RoundRobinGLR):
    """Answers with the arm index itself."""

    def recommend(self):
        return self.best_arm()  # BUG: must be frozenset({self.best_arm()})
