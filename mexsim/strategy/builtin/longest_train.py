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

from functools import cache

import numpy as np
from numba import njit

from mexsim.game.signature import ready
from mexsim.jit.bits import popcount, trailing_zeros
from mexsim.jit.options import compiled
from mexsim.planner import longest_chain
from mexsim.planner.router import longest_unweighted_chain
from mexsim.planner.stack_array import stack_array
from mexsim.strategy.api import (
    carrying_word,
    hand_word,
    heavier,
    is_mine,
    low,
    max_pip,
    move_count,
    move_tile,
    move_train,
    my_seat,
    note,
    on_duty,
    other_end,
    param_index,
    round_number,
    set_note,
    strategy,
    tile_tables,
    tile_text,
    train_end,
)

NAME = "longest_train"
DESCRIPTION = "plans the longest chain for its own train; plays other tiles elsewhere first"
# (default, lowest, highest): a negative weight would chase pips it does not shed, and
# beyond ~100 the weights of long chains lose their precision (docs/interface.md)
PARAMS = {"pip_weight": (0.0, 0.0, 100.0)}
P = param_index(PARAMS)
MEMORY = 32

# its notes (note(view, k), kept between decisions)
VALID = 0  # 1 while a plan is kept
PLAN_ROUND = 1
NEXT_END = 2  # the own train's open end the next planned tile fits
PLAN_HAND = 3  # [3] the hand when planned: a new tile means re-planning
PLAN_LEN = 6
PLAN_POS = 7  # planned tiles still to lay: positions PLAN_POS .. PLAN_LEN-1
PLAN_MASK = 8  # [3] those tiles as a bitmask (kept so no decision loops over them)
PLAN_TILES = 11  # [21] the chain, 8 tiles of 8 bits per word
MAX_PLAN = 21 * 8
# a hand, then its chain: as many tiles as the hand's three words hold (a user's
# strategy that wrote over its view and handed it to this decide sets them all)
SCRATCH = 2 * 3 * 64


# Its compiled helpers, as its decide (mexsim/strategy/api.py, strategy), are compiled
# without reference counts: they make no array and return none (the dense planner,
# which makes one, has them of its own)


@njit(inline="always")
def _planned_tile(view, p):
    """The p-th tile of the plan. (The word's index is masked: a user's strategy that
    wrote over its notes and handed its view to this decide reads within the view.)"""
    return (note(view, PLAN_TILES + ((p >> 3) & 31)) >> ((p & 7) * 8)) & 255


@njit(inline="always")
def _mask_word(view, w):
    return np.uint64(note(view, PLAN_MASK + w))


@njit(inline="always")
def _drop_from_mask(view, tile):
    """The planned tile is laid (or gone): no longer one to keep."""
    w = tile >> 6
    set_note(view, PLAN_MASK + w, note(view, PLAN_MASK + w) & ~(np.int64(1) << (tile & 63)))


@njit(inline="always")
def _keep_hand(view, h0, h1, h2):
    set_note(view, PLAN_HAND, np.int64(h0))
    set_note(view, PLAN_HAND + 1, np.int64(h1))
    set_note(view, PLAN_HAND + 2, np.int64(h2))


@compiled(cache=True, refcounts=False)
def _catch_up(view, own_end, m0, m1, m2):
    """Whether the rest of the plan still stands, skipping the planned tiles laid since
    (a forced move is played without asking the strategy, so its notes miss it); m0..m2
    are the planned tiles still to lay that are gone from the hand (some are).

    The planned tiles gone from the hand must be the next ones in order, ending where
    the own train now ends, and all later ones still in hand. Then what is left of the
    plan is still a best chain: the rest of a best chain is a best chain from where it
    stands, for the tiles that were left, and the hand now holds no more than those
    (tiles drawn since are checked by the caller)."""
    p = note(view, PLAN_POS)
    end = note(view, NEXT_END)
    while p < note(view, PLAN_LEN):
        t = _planned_tile(view, p)
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
        _drop_from_mask(view, t)
        end = other_end(view, t, end)
        p += 1
    if end != own_end or (m0 | m1 | m2):
        return False
    set_note(view, PLAN_POS, p)
    set_note(view, NEXT_END, end)
    return True


@compiled(cache=True, refcounts=False)
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
            m = hand & carrying_word(view, x, w)
            while m:
                t = w * 64 + trailing_zeros(m)
                m &= m - np.uint64(1)
                y = other_end(view, t, x)
                if not (reach >> y) & 1:
                    reach |= 1 << y
                    frontier |= 1 << y
    return reach


@njit(cache=True, inline="always")
def _hand_tiles(scratch, h0, h1, h2):
    """The hand's n tiles in scratch[:n] (room for the chain after them); n."""
    n = popcount(h0) + popcount(h1) + popcount(h2)
    i = 0
    for w in range(3):
        m = h0 if w == 0 else (h1 if w == 1 else h2)
        while m:
            scratch[i] = w * 64 + trailing_zeros(m)
            m &= m - np.uint64(1)
            i += 1
    return n


@compiled(cache=True, refcounts=False)
def _keep_plan(view, chain, length, own_end, h0, h1, h2):
    length = min(length, MAX_PLAN)
    for w in range(21):
        set_note(view, PLAN_TILES + w, 0)
    for w in range(3):
        set_note(view, PLAN_MASK + w, 0)
    for p in range(length):
        t = chain[p]
        k = PLAN_TILES + (p >> 3)
        set_note(view, k, note(view, k) | t << ((p & 7) * 8))
        k = PLAN_MASK + (t >> 6)
        set_note(view, k, note(view, k) | np.int64(1) << (t & 63))
    set_note(view, VALID, 1)
    set_note(view, PLAN_ROUND, round_number(view))
    set_note(view, NEXT_END, own_end)
    _keep_hand(view, h0, h1, h2)
    set_note(view, PLAN_LEN, length)
    set_note(view, PLAN_POS, 0)


# Two planning functions, and so two decides: pip_weight 0 (the default) plans with the
# planner's counting form alone, which spares a first run compiling its weighted form
# (numba compiles every callee, taken or not); any other weight plans with both.
@compiled(cache=True, refcounts=False)
def _replan(view, own_end, h0, h1, h2):
    scratch = stack_array(SCRATCH)  # no allocation: ~100 plans a match
    n = _hand_tiles(scratch, h0, h1, h2)
    lows, highs, values = tile_tables(view)
    # (the planner keeps to the tiles joined to own_end itself)
    length, _ = longest_unweighted_chain(
        own_end, scratch[:n], n, lows, highs, values, max_pip(view), scratch[n:]
    )
    _keep_plan(view, scratch[n:], length, own_end, h0, h1, h2)


@compiled(cache=True, refcounts=False)
def _replan_weighted(view, pip_weight, own_end, h0, h1, h2):
    scratch = stack_array(SCRATCH)  # no allocation: ~100 plans a match
    n = _hand_tiles(scratch, h0, h1, h2)
    lows, highs, values = tile_tables(view)
    length, _ = longest_chain(
        own_end, scratch[:n], n, lows, highs, values, pip_weight, max_pip(view), scratch[n:]
    )
    _keep_plan(view, scratch[n:], length, own_end, h0, h1, h2)


@njit(cache=True, inline="always")
def _plan_stands(view, own_end, h0, h1, h2):
    """Whether the kept plan is still a best one (else plan afresh)."""
    valid = note(view, VALID) == 1 and note(view, PLAN_ROUND) == round_number(view)
    if valid:
        # planned tiles gone from the hand: none, unless a forced move laid some
        m0 = _mask_word(view, 0) & ~h0
        m1 = _mask_word(view, 1) & ~h1
        m2 = _mask_word(view, 2) & ~h2
        gone = m0 | m1 | m2
        valid = _catch_up(view, own_end, m0, m1, m2) if gone else note(view, NEXT_END) == own_end
    n0 = h0 & ~np.uint64(note(view, PLAN_HAND))  # tiles drawn since the plan was made
    n1 = h1 & ~np.uint64(note(view, PLAN_HAND + 1))
    n2 = h2 & ~np.uint64(note(view, PLAN_HAND + 2))
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
                if (reach >> low(view, t)) & 1:  # a drawn tile's numbers: both or none
                    valid = False
        if valid:
            _keep_hand(view, h0, h1, h2)
    return valid


@njit(inline="always")
def _advance_plan(view, pos, next_tile, own_end):
    """The plan's next tile (at ``pos``) is being laid on the own train: the plan moves
    on past it."""
    set_note(view, PLAN_POS, pos + 1)
    _drop_from_mask(view, next_tile)
    set_note(view, NEXT_END, other_end(view, next_tile, own_end))


@njit(cache=True, inline="always")
def _choose(view, own_end):
    # the planned tiles still to lay
    p0, p1, p2 = _mask_word(view, 0), _mask_word(view, 1), _mask_word(view, 2)
    pos = note(view, PLAN_POS)
    next_tile = _planned_tile(view, pos) if pos < note(view, PLAN_LEN) else -1

    best_off = -1  # heaviest off-plan tile away from the own train (or serving a double)
    best_next = -1  # the next planned tile on the own train
    best_any = 0  # heaviest move of all
    # the best moves' tiles, kept (not read back from the view at every move)
    any_tile = move_tile(view, 0)
    off_tile = 1 << 30  # lighter than any tile
    duty = on_duty(view)
    for i in range(move_count(view)):
        t = move_tile(view, i)
        mine = is_mine(view, move_train(view, i))
        word = p0 if t < 64 else (p1 if t < 128 else p2)
        planned = (word >> np.uint64(t & 63)) & np.uint64(1)
        if heavier(t, any_tile):
            best_any = i
            any_tile = t
        if not planned and (not mine or duty) and heavier(t, off_tile):
            best_off = i
            off_tile = t
        if mine and t == next_tile and best_next < 0:
            best_next = i
    if best_off >= 0:
        return best_off
    if best_next >= 0:  # lay the next planned tile and advance the plan
        _advance_plan(view, pos, next_tile, own_end)
        return best_next
    # nothing off-plan and the plan cannot go on here: heaviest, and plan afresh
    set_note(view, VALID, 0)
    return best_any


@strategy
def decide(view, params):
    """pip_weight 0: every planned tile worth 1 (see decide_for)."""
    if params[P.pip_weight] != 0.0:  # never silently plan without the weight asked
        raise ValueError(
            "longest_train's decide plans at pip_weight 0: play another "
            "weight with decide_for(params)"
        )
    own_end = train_end(view, my_seat(view))
    h0, h1, h2 = hand_word(view, 0), hand_word(view, 1), hand_word(view, 2)
    if not _plan_stands(view, own_end, h0, h1, h2):
        _replan(view, own_end, h0, h1, h2)
    return _choose(view, own_end)


def _decide_weighted(view, params):
    own_end = train_end(view, my_seat(view))
    h0, h1, h2 = hand_word(view, 0), hand_word(view, 1), hand_word(view, 2)
    if not _plan_stands(view, own_end, h0, h1, h2):
        _replan_weighted(view, params[P.pip_weight], own_end, h0, h1, h2)
    return _choose(view, own_end)


@cache
def _weighted():
    return ready(
        strategy(_decide_weighted), "strategy longest_train (pip_weight > 0)"
    )  # asked for now: compiled now


@compiled(cache=True, refcounts=True)  # it builds text
def tell_plan(view, kept):
    """Print the plan for the own train (what is left of it), for `replay --moves`."""
    pos, length = note(view, PLAN_POS), note(view, PLAN_LEN)
    how = "kept" if kept else "new"
    if pos >= length:
        print("plan (" + how + "): none, no tile of its hand follows its own train")
        return
    chain = ""
    for p in range(pos, length):
        chain += " " + tile_text(view, _planned_tile(view, p))
    print("plan for its own train (" + how + "):" + chain + "; other tiles go elsewhere first")


def _decide_explained(view, params):
    own_end = train_end(view, my_seat(view))
    h0, h1, h2 = hand_word(view, 0), hand_word(view, 1), hand_word(view, 2)
    kept = _plan_stands(view, own_end, h0, h1, h2)
    if not kept:
        if params[P.pip_weight] == 0.0:  # as decide_for's two forms plan
            _replan(view, own_end, h0, h1, h2)
        else:
            _replan_weighted(view, params[P.pip_weight], own_end, h0, h1, h2)
    tell_plan(view, kept)
    return _choose(view, own_end)


@cache
def _explained():
    return ready(
        strategy(_decide_explained), "strategy longest_train, explaining its moves"
    )  # asked for now: compiled now


def explained_for(params):
    """The decide that plays as ``decide_for(params)`` does and prints its plan."""
    return _explained()


def decide_for(params):
    """The decide that plays with these parameter values: ``decide`` for pip_weight 0,
    else one that plans with weights too, compiled when a run first asks for it. Both
    choose alike at pip_weight 0 (longest_chain counts then). Values not given are 0,
    as the kernels pad them."""
    weight = params[P.pip_weight] if len(params) > P.pip_weight else 0.0
    return decide if weight == 0.0 else _weighted()
