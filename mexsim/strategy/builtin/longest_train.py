"""longest_train: seed 000's advice — plan the longest train of one's own tiles.

At its first decision of a round, and whenever the plan breaks (a drawn tile joined to
its chain, which might lengthen it; the own train's end moved by another player or by
an off-plan tile; a planned tile played elsewhere), it finds the best chain of its
tiles from its own train's open end with the exact planner (mexsim.planner.router; doubles
are slipped in, as R12 lets them be followed; of equally good chains, whichever the
planner returns) and reserves those tiles for its own train. It then plays off-plan
tiles on the Mexican train or open trains first, heaviest first; when it has none, it
lays the next planned tile on its own train. Serving an open double (R13) it spends an
off-plan tile if it can.

It keeps a plan only while it is provably still a best one, so keeping it is the same
as planning afresh up to ties: planned tiles laid by forced moves (played without
asking it) are skipped when the own train now ends where they lead, and a drawn tile
that no tile of the hand joins to the chain's end cannot lengthen it.

Parameters: pip_weight — a planned tile is worth 1 + pip_weight * pips, so 0 plans
the longest chain and larger values prefer chains that shed more pips (0..100).
"""

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from mexsim.game.bits import popcount
from mexsim.game.view import (
    DUTY,
    HAND,
    MAX_PIP,
    MAX_WORDS,
    MOVE_TILE,
    MOVE_TRAIN,
    N_MOVES,
    NOTES,
    NUMBER_MASK,
    ROUND,
    SEAT,
    TILE_HI,
    TILE_LO,
    TILE_PIPS,
    TILES,
    TRAIN_END,
)
from mexsim.planner import longest_chain
from mexsim.strategy.api import strategy

NAME = "longest_train"
DESCRIPTION = "plans the longest chain for its own train; plays other tiles elsewhere first"
# (default, lowest, highest): a negative weight would chase pips it does not shed, and
# beyond ~100 the weights of long chains lose their precision (docs/interface.md)
PARAMS = {"pip_weight": (0.0, 0.0, 100.0)}
MEMORY = 32

# its notes (view[NOTES:NOTES + MEMORY], kept between decisions)
VALID = NOTES + 0  # 1 while a plan is kept
PLAN_ROUND = NOTES + 1
NEXT_END = NOTES + 2  # the own train's open end the next planned tile fits
PLAN_HAND = NOTES + 3  # [3] the hand when planned: a new tile means re-planning
PLAN_LEN = NOTES + 6
PLAN_POS = NOTES + 7  # planned tiles still to lay: positions PLAN_POS .. PLAN_LEN-1
PLAN_MASK = NOTES + 8  # [3] those tiles as a bitmask (kept so no decision loops over them)
PLAN_TILES = NOTES + 11  # [21] the chain, 8 tiles of 8 bits per word
MAX_PLAN = 21 * 8

@njit(cache=True)
def _catch_up(view, own_end, m0, m1, m2):
    """Whether the rest of the plan still stands, skipping the planned tiles laid since
    (a forced move is played without asking the strategy, so its notes miss it); m0..m2
    are the planned tiles still to lay that are gone from the hand (some are).

    The planned tiles gone from the hand must be the next ones in order, ending where
    the own train now ends, and all later ones still in hand. Then what is left of the
    plan is still a best chain: the rest of a best chain is a best chain from where it
    stands, for the tiles that were left, and the hand now holds no more than those
    (tiles drawn since are checked by the caller)."""
    p = view[PLAN_POS]
    end = view[NEXT_END]
    while p < view[PLAN_LEN]:
        t = (view[PLAN_TILES + (p >> 3)] >> ((p & 7) * 8)) & 255
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
        view[PLAN_MASK + w] = np.int64(np.uint64(view[PLAN_MASK + w]) & ~bit)
        end = view[TILE_HI + t] if view[TILE_LO + t] == end else view[TILE_LO + t]
        p += 1
    if end != own_end or (m0 | m1 | m2):
        return False
    view[PLAN_POS] = p
    view[NEXT_END] = end
    return True


@njit(cache=True)
def _reachable_numbers(view, start, h0, h1, h2):
    """The numbers joined to ``start`` by tiles of the hand, as a bitmask."""
    reach = 1 << start
    frontier = reach
    while frontier:
        x = 0
        while not (frontier >> x) & 1:
            x += 1
        frontier &= ~(1 << x)
        for w in range(3):
            hand = h0 if w == 0 else (h1 if w == 1 else h2)
            m = hand & np.uint64(view[NUMBER_MASK + x * MAX_WORDS + w])
            while m:
                t = w * 64 + trailing_zeros(m)
                m &= m - np.uint64(1)
                y = view[TILE_HI + t] if view[TILE_LO + t] == x else view[TILE_LO + t]
                if not (reach >> y) & 1:
                    reach |= 1 << y
                    frontier |= 1 << y
    return reach


@njit(cache=True)
def _replan(view, pip_weight, own_end, h0, h1, h2):
    T = view[TILES]
    n = popcount(h0) + popcount(h1) + popcount(h2)
    scratch = np.empty(2 * n + 1, dtype=np.int64)  # the hand's tiles, then the chain
    hand = scratch[:n]
    i = 0
    for w in range(3):
        m = h0 if w == 0 else (h1 if w == 1 else h2)
        while m:
            hand[i] = w * 64 + trailing_zeros(m)
            m &= m - np.uint64(1)
            i += 1
    chain = scratch[n:]
    # (the planner keeps to the tiles joined to own_end itself)
    length, _ = longest_chain(own_end, hand, n, view[TILE_LO:TILE_LO + T],
                              view[TILE_HI:TILE_HI + T], view[TILE_PIPS:TILE_PIPS + T],
                              pip_weight, view[MAX_PIP], chain)
    length = min(length, MAX_PLAN)
    for w in range(21):
        view[PLAN_TILES + w] = 0
    for w in range(3):
        view[PLAN_MASK + w] = 0
    for p in range(length):
        t = chain[p]
        view[PLAN_TILES + (p >> 3)] |= t << ((p & 7) * 8)
        view[PLAN_MASK + (t >> 6)] |= np.int64(1) << (t & 63)
    view[VALID] = 1
    view[PLAN_ROUND] = view[ROUND]
    view[NEXT_END] = own_end
    view[PLAN_HAND] = np.int64(h0)
    view[PLAN_HAND + 1] = np.int64(h1)
    view[PLAN_HAND + 2] = np.int64(h2)
    view[PLAN_LEN] = length
    view[PLAN_POS] = 0


@strategy
def decide(view, params):
    seat = view[SEAT]
    own_end = view[TRAIN_END + seat]
    h0 = np.uint64(view[HAND])
    h1 = np.uint64(view[HAND + 1])
    h2 = np.uint64(view[HAND + 2])
    valid = view[VALID] == 1 and view[PLAN_ROUND] == view[ROUND]
    if valid:
        # planned tiles gone from the hand: none, unless a forced move laid some
        m0 = np.uint64(view[PLAN_MASK]) & ~h0
        m1 = np.uint64(view[PLAN_MASK + 1]) & ~h1
        m2 = np.uint64(view[PLAN_MASK + 2]) & ~h2
        gone = m0 | m1 | m2
        valid = _catch_up(view, own_end, m0, m1, m2) if gone else view[NEXT_END] == own_end
    n0 = h0 & ~np.uint64(view[PLAN_HAND])  # tiles drawn since the plan was made
    n1 = h1 & ~np.uint64(view[PLAN_HAND + 1])
    n2 = h2 & ~np.uint64(view[PLAN_HAND + 2])
    if valid and (n0 | n1 | n2):
        # The rest of an optimal chain is optimal from where it stands, and losing
        # tiles cannot improve on it: only a drawn tile joined to the chain's open
        # end by the hand's tiles can, so only then is it worth planning afresh.
        reach = _reachable_numbers(view, own_end, h0, h1, h2)
        for w in range(3):
            m = n0 if w == 0 else (n1 if w == 1 else n2)
            while m:
                t = w * 64 + trailing_zeros(m)
                m &= m - np.uint64(1)
                if (reach >> view[TILE_LO + t]) & 1:  # a drawn tile's numbers: both or none
                    valid = False
        if valid:
            view[PLAN_HAND] = np.int64(h0)
            view[PLAN_HAND + 1] = np.int64(h1)
            view[PLAN_HAND + 2] = np.int64(h2)
    if not valid:
        _replan(view, params[0], own_end, h0, h1, h2)

    # the planned tiles still to lay
    p0 = np.uint64(view[PLAN_MASK])
    p1 = np.uint64(view[PLAN_MASK + 1])
    p2 = np.uint64(view[PLAN_MASK + 2])
    pos = view[PLAN_POS]
    next_tile = ((view[PLAN_TILES + (pos >> 3)] >> ((pos & 7) * 8)) & 255
                 if pos < view[PLAN_LEN] else -1)

    best_off = -1  # heaviest off-plan tile away from the own train (or serving a double)
    best_next = -1  # the next planned tile on the own train
    best_any = 0  # heaviest move of all
    for i in range(view[N_MOVES]):
        t = view[MOVE_TILE + i]
        tr = view[MOVE_TRAIN + i]
        word = p0 if t < 64 else (p1 if t < 128 else p2)
        planned = (word >> np.uint64(t & 63)) & np.uint64(1)
        if t < view[MOVE_TILE + best_any]:
            best_any = i
        away = tr != seat or view[DUTY] == 1
        if not planned and away and (best_off < 0 or t < view[MOVE_TILE + best_off]):
            best_off = i
        if tr == seat and t == next_tile and best_next < 0:
            best_next = i
    if best_off >= 0:
        return best_off
    if best_next >= 0:  # lay the next planned tile and advance the plan
        view[PLAN_POS] += 1
        view[PLAN_MASK + (next_tile >> 6)] &= ~(np.int64(1) << (next_tile & 63))
        lo = view[TILE_LO + next_tile]
        view[NEXT_END] = view[TILE_HI + next_tile] if lo == own_end else lo
        return best_next
    # nothing off-plan and the plan cannot go on here: heaviest, and plan afresh
    view[VALID] = 0
    return best_any
