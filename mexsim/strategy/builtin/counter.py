"""counter: longest_train's plan, played with the public table — it counts tiles and
reads the other seats.

It keeps longest_train's plan for its own train (mexsim/strategy/builtin/longest_train.py:
the same notes, planned and kept alike) and, as longest_train does, plays off-plan
tiles away from its own train before the plan's next tile. What it adds is in how it
chooses among those, from what every player at the table can see (R17):

- **traps**: a double whose number no unseen tile carries (every other tile of it is
  on the table or in its own hand) can be followed by nobody else: laid on a public
  train, every other seat must serve it (R13), cannot, draws and marks its train, until
  it serves the double itself. It lays such a double first when it holds a tile to
  serve it, and does not cover its own trap in the same turn (R12's follow-up goes
  elsewhere when it can).
- **starving the next seat**: an off-plan move is worth ``starve`` pips more, times
  the chance that the next seat holds no tile carrying the number it leaves open: 1 if
  that seat has shown it lacks the number (it drew or passed with it open to it) or no
  unseen tile carries it, else as if its hand were dealt at random from the unseen
  tiles. What the next seat cannot follow it must draw for.
- **the end game** (off by default): once another seat holds ``endgame`` tiles or
  fewer, it plays its heaviest tile, plan or not. Measured, this loses: head to head
  against longest_train it cost ~59 points a match (docs/strategies.md).

Parameters: starve — pips an off-plan move is worth for starving the next seat (0
turns it off); traps — 1 to lay and keep traps, 0 not; endgame — the hand size of
another seat at which it sheds its heaviest tiles (0: never).
"""

from functools import cache

import numpy as np
from numba import njit

from mexsim.game.signature import ready
from mexsim.jit.bits import popcount
from mexsim.jit.options import compiled
from mexsim.strategy.api import (
    carrying_word,
    hand_size,
    hand_word,
    heavier,
    is_double,
    is_mine,
    lacking_numbers,
    laid_this_turn,
    low,
    move_count,
    move_end,
    move_tile,
    move_train,
    my_seat,
    note,
    on_duty,
    open_double_count,
    open_double_train,
    param_index,
    pips,
    players,
    set_note,
    strategy,
    train_end,
    unseen_carrying,
    unseen_word,
)
from mexsim.strategy.builtin.longest_train import (
    PLAN_LEN,
    PLAN_POS,
    VALID,
    _advance_plan,
    _mask_word,
    _plan_stands,
    _planned_tile,
    _replan,
    tell_plan,
)

NAME = "counter"
DESCRIPTION = "longest_train's plan; counts tiles: starves the next seat, lays double traps"
PARAMS = {"starve": (40.0, 0.0, 1000.0), "traps": (1.0, 0.0, 1.0), "endgame": (0.0, 0.0, 20.0)}
P = param_index(PARAMS)
MEMORY = 32  # longest_train's notes


@njit(inline="always")
def _trap_number(view, tile):
    """The number of a double nobody else can ever follow, or -1."""
    if not is_double(view, tile):
        return -1
    n = low(view, tile)
    return n if unseen_carrying(view, n) == 0 else -1


@njit(inline="always")
def _holds_other_carrying(view, tile, number):
    """Whether the mover's hand holds a tile other than ``tile`` carrying ``number``."""
    for w in range(3):
        bits = hand_word(view, w) & carrying_word(view, number, w)
        if w == tile >> 6:
            bits &= ~(np.uint64(1) << np.uint64(tile & 63))
        if bits:
            return True
    return False


@njit(inline="always")
def _my_trap_train(view):
    """During the mover's own follow-up (R12), the train of the double it just laid if
    that double is a trap it can serve later, else -1."""
    if laid_this_turn(view) == 0 or on_duty(view):
        return -1
    k = open_double_count(view)
    if k == 0:
        return -1
    train = open_double_train(view, k - 1)  # the newest: laid by the mover
    number = train_end(view, train)
    if unseen_carrying(view, number) != 0:
        return -1
    return train


@njit(inline="always")
def _chance_lacking(view, lacks, seat, unseen, number):
    """The chance that ``seat`` holds no tile carrying ``number``: 1 when it has shown
    so (lacking_numbers) or no unseen tile carries it, else as if its hand were dealt
    at random from the unseen tiles."""
    if (lacks >> number) & 1:
        return 1.0
    carrying = unseen_carrying(view, number)
    chance = 1.0
    for k in range(hand_size(view, seat)):
        if unseen - k <= 0:
            break
        chance *= max(unseen - carrying - k, 0) / (unseen - k)
    return chance


@njit(inline="always")
def _endgame(view, threshold):
    """Whether another seat holds ``threshold`` tiles or fewer."""
    me = my_seat(view)
    fewest = 1 << 30
    for s in range(players(view)):
        if s != me:
            fewest = min(fewest, hand_size(view, s))
    return fewest <= threshold


@compiled(cache=True, refcounts=False)
def _choose(view, own_end, params):
    p0, p1, p2 = _mask_word(view, 0), _mask_word(view, 1), _mask_word(view, 2)
    pos = note(view, PLAN_POS)
    next_tile = _planned_tile(view, pos) if pos < note(view, PLAN_LEN) else -1
    duty = on_duty(view)
    n = move_count(view)
    me = my_seat(view)

    threshold = np.int64(np.floor(params[P.endgame] + 0.5))
    if threshold > 0 and _endgame(view, threshold):
        best = 0
        for i in range(1, n):
            if heavier(move_tile(view, i), move_tile(view, best)):
                best = i
        set_note(view, VALID, 0)  # the plan is set aside: plan afresh if the round goes on
        return best

    traps = params[P.traps] >= 0.5
    starve = params[P.starve]
    next_seat = (me + 1) % players(view)
    lacks = lacking_numbers(view, next_seat) if starve > 0.0 else 0
    unseen = 0
    for w in range(3):
        unseen += popcount(unseen_word(view, w))
    keep_open = _my_trap_train(view) if traps else -1

    best_off = -1
    best_score = -1e18
    best_next = -1
    best_any = 0
    any_tile = move_tile(view, 0)
    for i in range(n):
        t = move_tile(view, i)
        train = move_train(view, i)
        mine = is_mine(view, train)
        word = p0 if t < 64 else (p1 if t < 128 else p2)
        planned = (word >> np.uint64(t & 63)) & np.uint64(1)
        if heavier(t, any_tile):
            best_any = i
            any_tile = t
        if mine and t == next_tile and best_next < 0 and train != keep_open:
            best_next = i
        if planned or (mine and not duty):
            continue
        score = np.float64(pips(view, t)) - 1e-3 * t  # ties: the heavier tile (lower number)
        if train == keep_open:
            score -= 1e9  # covering its own trap: only when nothing else is off-plan
        if traps and not mine:
            number = _trap_number(view, t)
            if number >= 0 and _holds_other_carrying(view, t, number):
                score += 1e6
        if starve > 0.0:
            score += starve * _chance_lacking(view, lacks, next_seat, unseen, move_end(view, i))
        if score > best_score:
            best_score = score
            best_off = i
    if best_off >= 0 and best_score > -1e8:
        return best_off
    if best_next >= 0:  # lay the next planned tile and advance the plan
        _advance_plan(view, pos, next_tile, own_end)
        return best_next
    if best_off >= 0:
        return best_off
    set_note(view, VALID, 0)
    return best_any


@strategy
def decide(view, params):
    own_end = train_end(view, my_seat(view))
    h0, h1, h2 = hand_word(view, 0), hand_word(view, 1), hand_word(view, 2)
    if not _plan_stands(view, own_end, h0, h1, h2):
        _replan(view, own_end, h0, h1, h2)
    return _choose(view, own_end, params)


def _decide_explained(view, params):
    own_end = train_end(view, my_seat(view))
    h0, h1, h2 = hand_word(view, 0), hand_word(view, 1), hand_word(view, 2)
    kept = _plan_stands(view, own_end, h0, h1, h2)
    if not kept:
        _replan(view, own_end, h0, h1, h2)
    tell_plan(view, kept)
    return _choose(view, own_end, params)


@cache
def _explained():
    return ready(
        strategy(_decide_explained), "strategy counter, explaining its moves"
    )  # asked for now: compiled now


def explained_for(params):
    """The decide that plays as ``decide`` does and prints its plan."""
    return _explained()
