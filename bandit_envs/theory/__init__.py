"""Math shared by environments and agents, written once: designs, least squares, thresholds, gaps."""
