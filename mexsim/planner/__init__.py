"""The exact longest-chain planner, a library used by the longest_train strategy.

``longest_chain`` (router.py) routes a hand to the sparse path (sparse.py) or the dense
path on bitmask words (dense.py); limits.py holds the budgets and tolerances they share.
The tests' references, the adjacency-list path and the brute force, are in tests/planner/.
"""

from mexsim.planner.router import longest_chain

__all__ = ["longest_chain"]
