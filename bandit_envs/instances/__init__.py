"""Instance factories: each registered environment id is one of these functions."""
