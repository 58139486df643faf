"""The planner's shared limits: one home for the widths, tolerances and search budgets.

The paths differ in how much a search node costs, so their budgets differ on purpose;
each is named for the path it limits.
"""

WIDTH = 16  # numbers per bitmask word (double-15 has 16); the bitmask paths' limit
DEPTH = WIDTH * (WIDTH - 1) // 2 + 2  # the longest trail's numbers, and spare
EPS = 1e-9  # tolerance when weighted chain values (floats) are compared
WALKS = 256  # quick random chains that set the fallback search's floor

# the sparse path (mexsim/planner/sparse.py)
SPARSE_CYCLES = 5  # at most this many independent cycles: try every trail
SPARSE_NODE_BUDGET = 50_000  # a safety net only: hands this sparse have far fewer trails
# Unweighted hands whose trails are not settled in this many steps go to the dense
# path, whose T-join certificate settles most at once: on the plans of real
# 4 x longest_train matches that beat both paths alone by ~10 %.
SWITCH_STEPS = 96

# the dense path on words (mexsim/planner/dense.py): its nodes are ~4x cheaper
DENSE_NODE_BUDGET = 200_000  # nodes for the exact search
DENSE_FALLBACK_BUDGET = 200_000  # then a search from the best of WALKS random chains
DENSE_TJOIN_FROM = 12  # reachable tiles above which a node also gets the T-join bound
DENSE_TJOIN_WEIGHTED = 12  # the same weighted, in cheapest tiles' worth
