"""Real data sets: download from their public source, sha256 check, cache, BANDIT_ENVS_DATA."""
