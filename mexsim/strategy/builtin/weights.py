"""weights: a linear player — each legal move scored by the dot product of its features
with the weights in the player's parameters; the highest score is played.

The features of a move (all public or the mover's own, R17):

- ``pips``: the tile's pips;
- ``double``: 1 for a double;
- ``own``: 1 on its own train, unless it is the plan's next tile there or it serves an
  open double (R13);
- ``public``: 1 on the Mexican train or another seat's open train, unless it serves an
  open double;
- ``plan``: 1 for a tile of longest_train's plan for its own train (the same plan, kept
  in the same notes) laid anywhere but as the plan's next tile;
- ``follow``: its other tiles carrying the number the move leaves open;
- ``starve``: the chance that the next seat holds no tile carrying that number (1 when
  it has shown it lacks the number or none is unseen; else as if its hand were dealt
  at random from the unseen tiles: counter's measure);
- ``trap``: 1 for a double nobody else can follow, laid off its own train while it
  holds a tile to serve it (counter's trap).

Each feature's weight is the parameter of its name (at most 8: a strategy's
parameters). The defaults are the weights `mexsim tune` found best against
longest_train, head to head (docs/strategies.md, "weights"): doubles first, then
off-plan tiles away from its own train, starving the next seat, and the plan's next
tile last.
"""

import numpy as np

from mexsim.jit.bits import popcount
from mexsim.jit.options import compiled
from mexsim.strategy.api import (
    carrying_word,
    hand_word,
    is_double,
    is_mine,
    lacking_numbers,
    move_count,
    move_end,
    move_tile,
    move_train,
    my_seat,
    note,
    on_duty,
    param_index,
    pips,
    players,
    set_note,
    strategy,
    train_end,
    unseen_word,
)
from mexsim.strategy.builtin.counter import (
    _chance_lacking,
    _holds_other_carrying,
    _trap_number,
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
)

NAME = "weights"
DESCRIPTION = "scores each move by its features times weights (its params): a linear player"
W = 1000.0  # the bound of every weight
PARAMS = {  # (default, lowest, highest): the defaults as `mexsim tune` found them
    "pips": (0.7, -W, W),
    "double": (89.0, -W, W),
    "own": (-179.0, -W, W),
    "public": (10.0, -W, W),
    "plan": (-193.0, -W, W),
    "follow": (-1.6, -W, W),
    "starve": (66.0, -W, W),
    "trap": (15.0, -W, W),
}
P = param_index(PARAMS)
MEMORY = 32  # longest_train's notes


@compiled(cache=True, refcounts=False)
def _held_carrying(view, tile, number):
    """The mover's tiles other than ``tile`` that carry ``number``."""
    count = 0
    for w in range(3):
        bits = hand_word(view, w) & carrying_word(view, number, w)
        if w == tile >> 6:
            bits &= ~(np.uint64(1) << np.uint64(tile & 63))
        count += popcount(bits)
    return count


N_FEATURES = 8  # PARAMS' order: pips, double, own, public, plan, follow, starve, trap


@compiled(cache=True, refcounts=False)
def plan_words(view):
    """What the features read of the mover's plan (its notes, after plan_now): the plan's
    tiles as three bit words and its next tile (-1 when the plan is laid out)."""
    pos = note(view, PLAN_POS)
    next_tile = _planned_tile(view, pos) if pos < note(view, PLAN_LEN) else -1
    return _mask_word(view, 0), _mask_word(view, 1), _mask_word(view, 2), next_tile


@compiled(cache=True, refcounts=False)
def move_features(view, i, p0, p1, p2, next_tile, lacks, unseen):
    """Move ``i``'s features (the module docstring), in PARAMS' order."""
    duty = on_duty(view)
    me = my_seat(view)
    next_seat = (me + 1) % players(view)
    t = move_tile(view, i)
    train = move_train(view, i)
    end = move_end(view, i)
    mine = is_mine(view, train)
    word = p0 if t < 64 else (p1 if t < 128 else p2)
    planned = (word >> np.uint64(t & 63)) & np.uint64(1)
    laid_next = mine and t == next_tile
    trap = 0.0
    if not mine:
        number = _trap_number(view, t)
        if number >= 0 and _holds_other_carrying(view, t, number):
            trap = 1.0
    return (
        float(pips(view, t)),
        1.0 if is_double(view, t) else 0.0,
        1.0 if not duty and mine and not laid_next else 0.0,
        1.0 if not duty and not mine else 0.0,
        1.0 if planned and not laid_next else 0.0,
        float(_held_carrying(view, t, end)),
        _chance_lacking(view, lacks, next_seat, unseen, end),
        trap,
    )


@compiled(cache=True, refcounts=False)
def unseen_count(view):
    """Tiles the mover cannot see (other hands and the boneyard)."""
    unseen = 0
    for w in range(3):
        unseen += popcount(unseen_word(view, w))
    return unseen


@compiled(cache=True, refcounts=False)
def _choose(view, own_end, params):
    p0, p1, p2, next_tile = plan_words(view)
    pos = note(view, PLAN_POS)
    lacks = lacking_numbers(view, (my_seat(view) + 1) % players(view))
    unseen = unseen_count(view)
    best, best_score = 0, -np.inf
    for i in range(move_count(view)):
        f0, f1, f2, f3, f4, f5, f6, f7 = move_features(
            view, i, p0, p1, p2, next_tile, lacks, unseen
        )
        # the sum in the order the weights were tuned in (ties: the heavier tile)
        score = params[P.pips] * f0 - 1e-6 * move_tile(view, i)
        score += params[P.double] * f1
        score += params[P.own] * f2
        score += params[P.public] * f3
        score += params[P.plan] * f4
        score += params[P.follow] * f5
        score += params[P.starve] * f6
        score += params[P.trap] * f7
        if score > best_score:
            best, best_score = i, score
    after_choice(view, best, pos, next_tile, own_end)
    return best


@compiled(cache=True, refcounts=False)
def after_choice(view, best, pos, next_tile, own_end):
    """The plan kept as longest_train keeps it once move ``best`` is chosen."""
    t = move_tile(view, best)
    if is_mine(view, move_train(view, best)) and t == next_tile:
        _advance_plan(view, pos, next_tile, own_end)
    elif next_tile >= 0 and ((_mask_word(view, t >> 6) >> np.uint64(t & 63)) & np.uint64(1)):
        set_note(view, VALID, 0)  # a planned tile played out of the plan: plan afresh


@compiled(cache=True, refcounts=False)
def plan_now(view):
    """The mover's plan brought up to date in its notes (longest_train's: kept while it
    stands, made afresh when not)."""
    own_end = train_end(view, my_seat(view))
    h0, h1, h2 = hand_word(view, 0), hand_word(view, 1), hand_word(view, 2)
    if not _plan_stands(view, own_end, h0, h1, h2):
        _replan(view, own_end, h0, h1, h2)
    return own_end


@strategy
def decide(view, params):
    return _choose(view, plan_now(view), params)
