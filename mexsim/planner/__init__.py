"""The exact longest-chain planner, a library used by the longest_train strategy.

``longest_chain`` (router.py) routes a hand to the sparse path (sparse.py), the dense
path on bitmask words (dense.py) or the adjacency-list path (general.py, also the
tests' reference); limits.py holds the budgets and tolerances they share.
"""

from mexsim.planner.router import longest_chain

__all__ = ["longest_chain"]
