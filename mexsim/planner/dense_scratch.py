"""The dense planner's scratch (mexsim/planner/dense.py): one int64 array laid out in
regions, read as floats too by weighted plans, and the tile and double values it holds."""

from __future__ import annotations

from mexsim.jit.callee import callee
from mexsim.planner.limits import (
    DEPTH,
    EPS,
    WIDTH,
)

CAP = 14  # numbers the T-join bound matches exactly (odd ones, start, stand-in)
# int scratch: adjacency words; tile of (x, y); edge number of (x, y) for the table;
# per depth: number reached, its untried tiles, whether the step first reached it;
# the best trail's numbers; a completion's numbers; Hierholzer's stack and the
# numbers it pops; the words it eats; the matched numbers; BFS distances and layers
# from each; the pair prices; where the stand-in's price leads; per number the most a
# trail ending there gains in the pieces hanging off it by a bridge, and that piece's
# chain (its numbers); the bridges (near, far, far side); the numbers with a piece;
# what ending at each gains (_min_removal); the bridge search's discovery times, low
# links and subtrees (_bridges); weighted hands' tile and double values and their least
# tile value; the matching table. Weighted plans read the same memory as floats too
# (a view): the regions holding values (TAIL, BON, DIST, PAIR, DP, WT, DW, MINW) are
# floats there, and LAYER holds Dijkstra's parents instead of BFS layers.
ADJ = 0
TILE_OF = ADJ + WIDTH
EID = TILE_OF + WIDTH * WIDTH
AT = EID + WIDTH * WIDTH
CAND = AT + DEPTH
FRESH = CAND + DEPTH
BEST = FRESH + DEPTH
TRAIL = BEST + DEPTH
STACK = TRAIL + DEPTH
POP = STACK + DEPTH
REM = POP + DEPTH
ODD = REM + WIDTH
DIST = ODD + WIDTH + 2
LAYER = DIST + WIDTH * WIDTH
PAIR = LAYER + WIDTH * (WIDTH + 1)
PX = PAIR + WIDTH * WIDTH
TAIL = PX + WIDTH
TLEN = TAIL + WIDTH
TSEQ = TLEN + WIDTH
BRIDGE = TSEQ + WIDTH * DEPTH
TMASK = BRIDGE + 3 * WIDTH
BON = TMASK + 1
DFS = BON + WIDTH
WT = DFS + 3 * WIDTH
DW = WT + WIDTH * WIDTH
MINW = DW + WIDTH
DP = MINW + 1
# The search's table of states (mexsim/planner/state_table.py) in the scratch: its
# ends, then its tile sets, each in two halves of TABLE_CAP entries (a table grows from
# one half into the other). A search that outgrows a half is asked again with a larger
# table on the heap (_search_on_heap).
TABLE_CAP = 1 << 12
TABLE = DP + (1 << CAP)
# ~292 KiB, most of it DP and the table: on the heap (or the kernel's private table),
# not in the plan's frame (stack_array) as the sparse path's, which crashed threads of
# 128 KiB stacks (musl's default) where the heap's did not; a plan pays ~120 ns for
# its malloc
SCRATCH = TABLE + 4 * TABLE_CAP


# The helpers below make no array, and are compiled without numba's reference counts
# (refcounts=False): each array argument's count was taken and dropped at every call, atomic
# adds that were a fifth of the dense path's time. _search_on_heap makes its table of
# states and keeps them; it says so, since a callee that does not inherits its
# caller's setting.
@callee(refcounts=False)
def _tile(f, w, x, y):
    """The value of tile x|y: 1 unweighted (w None), else its float value."""
    if w is None:
        return 1
    return f[WT + x * WIDTH + y]


@callee(refcounts=False)
def _double(f, w, dbl, x):
    """The value of number x's double if held (dbl), else 0."""
    if w is None:
        return (dbl >> x) & 1
    return f[DW + x] if (dbl >> x) & 1 else 0.0


@callee(refcounts=False)
def _eps(w):
    """Values are counts unweighted (exact), floats compared within EPS weighted."""
    if w is None:
        return 0
    return EPS
