"""The built-in longest_train's choice, made on the kernel's private table.

mexsim/strategy/builtin/longest_train.py is the strategy as a user reads it: plan the
best chain of its tiles from its own train's end, keep the plan while it provably stays
a best one, play off-plan tiles elsewhere first (heaviest first), else the next planned
tile. Its seats are asked ~480 times a match of 4 x longest_train, and for each the
kernel filled the view (its 32 notes copied in and out among it) before the call
(docs/speed-history.md, "tenth pass"). For the shipped file at pip_weight 0
(enums.Calling.longest_train_in_kernel) the kernel instead calls
``longest_train_in_table`` on its private table, which is laid out as the view where
the rule reads it (the listed moves, the trains' ends, the mover's seat, round, move
count and duty, written there before the call); the hand is the seat's words at
HANDS, the plan is kept in the seat's block at LT_NOTES, laid out as the strategy lays
out its notes, and the planner (mexsim.planner.router's, without the checks a
strategy's arguments get: trusted_joined_unweighted_chain) plans on the tile tables at
LO_COPY/HI_COPY/PIPS_COPY (mexsim/game/private_table.py). A user's copy of the file
is called; tests/strategy/test_plugins.py plays one against the other, move for move,
on every preset.

It is a function of a decide's type in the kernels' last function slot,
funcs[LONGEST_TRAIN_SLOT], compiled (or loaded) only for a table that plays it: called
directly, it and the planner would be compiled into every kernel (a first run ~5 s
longer, longest_train at the table or not), and inlined into the turn loop, which keeps
numba's reference counts, each array handed to its helpers took and dropped a count.
"""

from __future__ import annotations

from functools import cache

import numpy as np
from numba import njit

from mexsim.game.private_table import (
    DENSE,
    DENSE_WORDS,
    HANDS,
    HI_COPY,
    LO_COPY,
    LT_NOTES,
    LT_NOTES_PER_SEAT,
    NUMBER_COPY,
    PIPS_COPY,
)
from mexsim.game.rules import MAX_STRATEGIES
from mexsim.game.view import (
    DUTY,
    MAX_PIP,
    MAX_WORDS,
    MOVE_TILE,
    MOVE_TRAIN,
    N_MOVES,
    ROUND,
    SEAT,
    TILES,
    TRAIN_END,
)
from mexsim.jit.bits import popcount, trailing_zeros
from mexsim.jit.compile_notice import compiling
from mexsim.jit.options import compiled
from mexsim.planner.router import trusted_joined_unweighted_chain
from mexsim.planner.stack_array import stack_array

LONGEST_TRAIN_SLOT = MAX_STRATEGIES  # funcs[LONGEST_TRAIN_SLOT], after the strategies'

# longest_train's notes, as its file numbers them, from the seat's block at LT_NOTES
VALID = 0  # 1 while a plan is kept
PLAN_ROUND = 1
NEXT_END = 2  # the own train's open end the next planned tile fits
PLAN_HAND = 3  # [3] the hand when planned
PLAN_LEN = 6
PLAN_POS = 7  # planned tiles still to lay: positions PLAN_POS .. PLAN_LEN-1
PLAN_MASK = 8  # [3] those tiles as a bitmask
PLAN_TILES = 11  # [21] the chain, 8 tiles of 8 bits per word
MAX_PLAN = 21 * 8
SCRATCH = 2 * 3 * 64  # a hand, then its chain

# unsigned: numba tests a signed index for a negative value at every access
UMOVE_TILE = np.uint64(MOVE_TILE)
UMOVE_TRAIN = np.uint64(MOVE_TRAIN)


@njit(inline="always")
def _other_end(st, tile, number):
    a = st[LO_COPY + tile]
    return st[HI_COPY + tile] if a == number else a


@njit(inline="always")
def _planned_tile(st, notes, p):
    return (st[notes + PLAN_TILES + (p >> 3)] >> ((p & 7) * 8)) & 255


@njit(inline="always")
def _drop_from_mask(st, notes, tile):
    k = notes + PLAN_MASK + (tile >> 6)
    st[k] = st[k] & ~(np.int64(1) << (tile & 63))


@njit(inline="always")
def _keep_hand(st, notes, h0, h1, h2):
    st[notes + PLAN_HAND] = np.int64(h0)
    st[notes + PLAN_HAND + 1] = np.int64(h1)
    st[notes + PLAN_HAND + 2] = np.int64(h2)


@njit(inline="always")
def _catch_up(st, notes, own_end, m0, m1, m2):
    """Whether the rest of the plan still stands, the planned tiles m0..m2 gone from
    the hand (laid by forced moves) skipped: they must be the next ones in order,
    ending where the own train now ends (longest_train.py's _catch_up)."""
    p = st[notes + PLAN_POS]
    end = st[notes + NEXT_END]
    while p < st[notes + PLAN_LEN]:
        t = _planned_tile(st, notes, p)
        bit = np.uint64(1) << np.uint64(t & 63)
        w = t >> 6
        word = m0 if w == 0 else (m1 if w == 1 else m2)
        if not word & bit:
            break
        if w == 0:
            m0 &= ~bit
        elif w == 1:
            m1 &= ~bit
        else:
            m2 &= ~bit
        _drop_from_mask(st, notes, t)
        end = _other_end(st, t, end)
        p += 1
    if end != own_end or (m0 | m1 | m2):
        return False
    st[notes + PLAN_POS] = p
    st[notes + NEXT_END] = end
    return True


@njit(inline="always")
def _reachable_numbers(st, start, h0, h1, h2):
    """The numbers joined to ``start`` by tiles of the hand, as a bitmask."""
    reach = 1 << start
    frontier = reach
    while frontier:
        x = trailing_zeros(frontier)
        frontier &= ~(1 << x)
        for w in range(3):
            hand = h0 if w == 0 else (h1 if w == 1 else h2)
            m = hand & np.uint64(st[NUMBER_COPY + x * MAX_WORDS + w])
            while m:
                t = w * 64 + trailing_zeros(m)
                m &= m - np.uint64(1)
                y = _other_end(st, t, x)
                if not (reach >> y) & 1:
                    reach |= 1 << y
                    frontier |= 1 << y
    return reach


@njit(inline="always")
def _plan_stands(st, notes, rnd, own_end, h0, h1, h2):
    """Whether the kept plan is still a best one (longest_train.py's _plan_stands)."""
    valid = st[notes + VALID] == 1 and st[notes + PLAN_ROUND] == rnd
    if valid:
        m0 = np.uint64(st[notes + PLAN_MASK]) & ~h0
        m1 = np.uint64(st[notes + PLAN_MASK + 1]) & ~h1
        m2 = np.uint64(st[notes + PLAN_MASK + 2]) & ~h2
        gone = m0 | m1 | m2
        valid = (
            _catch_up(st, notes, own_end, m0, m1, m2) if gone else st[notes + NEXT_END] == own_end
        )
    n0 = h0 & ~np.uint64(st[notes + PLAN_HAND])  # tiles drawn since the plan was made
    n1 = h1 & ~np.uint64(st[notes + PLAN_HAND + 1])
    n2 = h2 & ~np.uint64(st[notes + PLAN_HAND + 2])
    if valid and (n0 | n1 | n2):
        # only a drawn tile joined to the chain's open end can lengthen it
        reach = _reachable_numbers(st, own_end, h0, h1, h2)
        for w in range(3):
            m = n0 if w == 0 else (n1 if w == 1 else n2)
            while m:
                t = w * 64 + trailing_zeros(m)
                m &= m - np.uint64(1)
                if (reach >> st[LO_COPY + t]) & 1:
                    valid = False
        if valid:
            _keep_hand(st, notes, h0, h1, h2)
    return valid


@njit(inline="always")
def _start_tiles(st, start, h0, h1, h2):
    """(A tile of the hand other than start's double that joins start, start's double;
    each -1 if none), from the words of the tiles on each number (NUMBER_COPY)."""
    joined = -1
    double = -1
    for w in range(3):
        hand = h0 if w == 0 else (h1 if w == 1 else h2)
        m = hand & np.uint64(st[NUMBER_COPY + start * MAX_WORDS + w])
        while m:
            t = w * 64 + trailing_zeros(m)
            m &= m - np.uint64(1)
            if st[LO_COPY + t] == st[HI_COPY + t]:
                double = t
            else:
                joined = t
    return joined, double


@njit(inline="always")
def _replan(st, notes, rnd, own_end, h0, h1, h2):
    """Plan afresh and keep the plan (longest_train.py's _replan and _keep_plan)."""
    scratch = stack_array(SCRATCH)
    n = popcount(h0) + popcount(h1) + popcount(h2)
    # The planner's shortcuts, on the words: when no tile but own_end's double joins
    # own_end (~18 % of the plans), or the hand is one tile, the chain is that tile or
    # nothing (the router's _route finds the same on the tile list, after it is made)
    joined, double = _start_tiles(st, own_end, h0, h1, h2)
    if n <= 1 or joined < 0:
        tile = joined if joined >= 0 else double  # (one tile in hand, or none joined)
        length = 0
        if tile >= 0:
            scratch[n] = tile
            length = 1
    else:
        # the hand's tiles, then room for the chain: the tables sliced, as the
        # strategy's own _replan does, so that the planner's paths are called with the
        # same argument types (compiled once for both); the arguments are the kernel's
        # own, so unchecked (router.trusted_joined_unweighted_chain)
        i = 0
        for w in range(3):
            m = h0 if w == 0 else (h1 if w == 1 else h2)
            while m:
                scratch[i] = w * 64 + trailing_zeros(m)
                m &= m - np.uint64(1)
                i += 1
        t = st[TILES]
        length, _ = trusted_joined_unweighted_chain(
            own_end,
            scratch[:n],
            n,
            st[LO_COPY : LO_COPY + t],
            st[HI_COPY : HI_COPY + t],
            st[PIPS_COPY : PIPS_COPY + t],
            st[MAX_PIP],
            scratch[n:],
            st[DENSE : DENSE + DENSE_WORDS],
        )
    length = min(length, MAX_PLAN)
    for k in range(PLAN_TILES, PLAN_TILES + 21):
        st[notes + k] = 0
    for k in range(PLAN_MASK, PLAN_MASK + 3):
        st[notes + k] = 0
    for p in range(length):
        tile = scratch[n + p]
        k = notes + PLAN_TILES + (p >> 3)
        st[k] = st[k] | tile << ((p & 7) * 8)
        k = notes + PLAN_MASK + (tile >> 6)
        st[k] = st[k] | np.int64(1) << (tile & 63)
    st[notes + VALID] = 1
    st[notes + PLAN_ROUND] = rnd
    st[notes + NEXT_END] = own_end
    _keep_hand(st, notes, h0, h1, h2)
    st[notes + PLAN_LEN] = length
    st[notes + PLAN_POS] = 0


def longest_train_in_table(st, pbuf):
    """The move longest_train chooses for the mover st[SEAT] among the st[N_MOVES]
    listed in ``st``, the kernel's private table (see the module docstring). ``pbuf``:
    a decide's second argument, unused (pip_weight is 0)."""
    seat = st[SEAT]
    notes = LT_NOTES + LT_NOTES_PER_SEAT * seat
    rnd = st[ROUND]
    own_end = st[TRAIN_END + seat]
    hand = HANDS + 4 * seat
    h0 = np.uint64(st[hand])
    h1 = np.uint64(st[hand + 1])
    h2 = np.uint64(st[hand + 2])
    if not _plan_stands(st, notes, rnd, own_end, h0, h1, h2):
        _replan(st, notes, rnd, own_end, h0, h1, h2)

    # the planned tiles still to lay (longest_train.py's _choose)
    p0 = np.uint64(st[notes + PLAN_MASK])
    p1 = np.uint64(st[notes + PLAN_MASK + 1])
    p2 = np.uint64(st[notes + PLAN_MASK + 2])
    pos = st[notes + PLAN_POS]
    next_tile = _planned_tile(st, notes, pos) if pos < st[notes + PLAN_LEN] else -1
    duty = st[DUTY] == 1
    best_off = -1  # heaviest off-plan tile away from the own train (or serving a double)
    best_next = -1  # the next planned tile on the own train
    best_any = 0  # heaviest move of all
    any_tile = st[UMOVE_TILE]
    off_tile = 1 << 30  # lighter than any tile
    for i in range(st[N_MOVES]):
        t = st[UMOVE_TILE + np.uint64(i)]
        mine = st[UMOVE_TRAIN + np.uint64(i)] == seat
        word = p0 if t < 64 else (p1 if t < 128 else p2)
        planned = (word >> np.uint64(t & 63)) & np.uint64(1)
        if t < any_tile:  # tiles are numbered heaviest first
            best_any = i
            any_tile = t
        if not planned and (not mine or duty) and t < off_tile:
            best_off = i
            off_tile = t
        if mine and t == next_tile and best_next < 0:
            best_next = i
    if best_off >= 0:
        return best_off
    if best_next >= 0:  # lay the next planned tile and advance the plan
        st[notes + PLAN_POS] = pos + 1
        _drop_from_mask(st, notes, next_tile)
        st[notes + NEXT_END] = _other_end(st, next_tile, own_end)
        return best_next
    # nothing off-plan and the plan cannot go on here: heaviest, and plan afresh
    st[notes + VALID] = 0
    return best_any


@cache
def in_table_decide():
    """longest_train_in_table compiled as a built-in's decide is (mexsim/strategy/api.py:
    no bounds checks, no reference counts), for the kernels' last function slot."""
    from mexsim.game.signature import DECIDE_SIGNATURE

    with compiling("longest_train for the engine"):
        return compiled(DECIDE_SIGNATURE, cache=True, boundscheck=False, refcounts=False)(
            longest_train_in_table
        )
