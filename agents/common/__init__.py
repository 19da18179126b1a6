"""What several agents share: phase tracking, design caches."""
