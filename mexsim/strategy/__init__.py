"""Strategies: the author's API, the registry that finds and checks strategy files, a
policy (a strategy with its parameter values), and the built-in strategies."""
