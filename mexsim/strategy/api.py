"""What a strategy file imports: the decorator, the view by name, the random stream.

A strategy is a file in ``strategies/`` (or a folder named by the config or
``--strategies``) defining::

    NAME = "my_strategy"                 # how configs name it
    DESCRIPTION = "one line"              # shown by `mexsim strategies`
    PARAMS = {"weight": 0.5,              # numbers, with defaults (at most 8) ...
              "depth": (2.0, 1.0, 9.0)}   # ... or (default, lowest, highest) allowed
    P = param_index(PARAMS)               # P.weight == 0: params[P.weight]

    @strategy
    def decide(view, params):             # view: int64[:] (mexsim.game.view), params: float64[:]
        return 0                          # the index of the chosen legal move

``decide`` reads the game through the accessors re-exported here (mexsim.strategy.access:
``move_tile(view, i)``, ``train_end(view, t)``, ``for tile in hand_tiles(view)`` …),
which compile to the same loads as raw offsets. ``params`` holds the values in PARAMS
order. ``decide`` must return an index in ``0 .. move_count(view) - 1``; anything else
stops the run with an error naming the strategy, the match and the round.
``mexsim check NAME`` tests a strategy against the contract (mexsim.testing).

A strategy outside ``mexsim/strategy/builtin/`` is compiled with numba's bounds check
(``boundscheck=True``), and so are the ``@njit`` helpers its own file defines: an index
past the view raises IndexError — one line naming the strategy, seat, match and round —
instead of writing over the memory of the game. The built-ins are trusted and compiled
without it (see benchmarks/bench_strategies.py for what the check costs).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numba.core.dispatcher import Dispatcher

from mexsim.game.rng import xoshiro_bounded
from mexsim.game.signature import DECIDE_SIGNATURE, ready
from mexsim.game.view import H_DRAW, H_ENGINE, H_MARK, H_PASS, H_PLAY, RNG
from mexsim.jit.options import check_bounds, compiled, key_cache_on, never_cache
from mexsim.strategy.access import (
    boneyard_size,
    carries,
    carrying_word,
    count_carrying,
    dealt_hand_size,
    double_blank_points,
    draw_limit,
    draws_to_start,
    engine_number,
    engine_set_aside,
    explaining,
    first_turn,
    first_turn_is_train,
    flag_param,
    hand_size,
    hand_tiles,
    hand_word,
    has_mexican_train,
    heavier,
    high,
    holds,
    int_param,
    is_double,
    is_marked,
    is_mexican,
    is_mine,
    laid_this_turn,
    low,
    max_pip,
    mexican_train,
    move_count,
    move_end,
    move_tile,
    move_train,
    my_seat,
    note,
    on_duty,
    open_double_count,
    open_double_train,
    other_end,
    param_index,
    pips,
    players,
    round_number,
    score,
    set_note,
    tile_count,
    tile_tables,
    tile_text,
    train_end,
    train_length,
    train_owner,
)
from mexsim.strategy.origin import imported_by_mexsim, is_builtin
from mexsim.strategy.public_table import (
    draws_this_round,
    first_mover,
    has_started,
    history_kind,
    history_length,
    history_seat,
    history_tile,
    history_train,
    is_played,
    is_unseen,
    lacking_numbers,
    pass_count,
    passes_this_round,
    played_word,
    train_of,
    train_tiles_word,
    unseen_carrying,
    unseen_word,
)
from mexsim.strategy.sources import helpers_digest, own_helpers, recursive_function

__all__ = [
    "DECIDE_SIGNATURE",
    "H_DRAW",
    "H_ENGINE",
    "H_MARK",
    "H_PASS",
    "H_PLAY",
    "boneyard_size",
    "carries",
    "carrying_word",
    "count_carrying",
    "dealt_hand_size",
    "double_blank_points",
    "draw_limit",
    "draws_this_round",
    "draws_to_start",
    "engine_number",
    "engine_set_aside",
    "explaining",
    "first_mover",
    "first_turn",
    "first_turn_is_train",
    "flag_param",
    "hand_size",
    "hand_tiles",
    "hand_word",
    "has_mexican_train",
    "has_started",
    "heavier",
    "high",
    "history_kind",
    "history_length",
    "history_seat",
    "history_tile",
    "history_train",
    "holds",
    "int_param",
    "is_double",
    "is_marked",
    "is_mexican",
    "is_mine",
    "is_played",
    "is_unseen",
    "lacking_numbers",
    "laid_this_turn",
    "low",
    "max_pip",
    "mexican_train",
    "move_count",
    "move_end",
    "move_tile",
    "move_train",
    "my_seat",
    "note",
    "on_duty",
    "open_double_count",
    "open_double_train",
    "other_end",
    "param_index",
    "pass_count",
    "passes_this_round",
    "pips",
    "played_word",
    "players",
    "random_below",
    "round_number",
    "score",
    "set_note",
    "strategy",
    "tile_count",
    "tile_tables",
    "tile_text",
    "train_end",
    "train_length",
    "train_of",
    "train_owner",
    "train_tiles_word",
    "unseen_carrying",
    "unseen_word",
]


def strategy(func: Callable) -> Dispatcher:
    """Compile ``decide`` once for the fixed signature, cached on disk (keyed on the
    strategy file's timestamp and the contents of the helper files it imports, so an
    edited strategy or helper is recompiled, never stale) when mexsim imports the file;
    a shipped strategy's, when first needed (mexsim.game.signature.ready).

    A user's strategy, and the not yet compiled ``@njit`` helpers of its own file, get
    numba's bounds check: a stray index must raise, never corrupt the game's memory. So
    does any built-in's code it calls (mexsim/strategy/checked_builtins.py).
    """
    checked = not is_builtin(func)
    recursive = recursive_function(func) if checked else None
    if recursive is not None:  # before numba loads a cached recursive helper: it aborts
        from mexsim.strategy.vetting import recursion_refused

        raise recursion_refused(func.__code__.co_filename, func, recursive)
    if checked:
        # a built-in it calls is called with its view, which it may have written over
        from mexsim.strategy.checked_builtins import check_builtins_in

        check_builtins_in(func.__globals__)
        for helper in _own_uncompiled_helpers(func):
            check_bounds(helper)
    cache = imported_by_mexsim(func)
    if not cache:  # a file the user imported themselves: its helpers compile afresh too
        for helper in _own_uncompiled_helpers(func):
            never_cache(helper)
    # A built-in's decide makes no array itself (code it calls that does, as the dense
    # planner, is compiled with refcounts=True), so it is compiled without numba's reference
    # counts: they took and dropped the view's count twice a decision, each an atomic
    # add (~3.5 % of a match of 4 x longest_train, docs/speed-history.md). A user's decide may
    # make arrays, and keeps them.
    decide = compiled(cache=cache, boundscheck=checked, refcounts=checked)(func)
    helpers = helpers_digest(func) if cache and checked else None
    if helpers is not None:  # numba checks decide's own file only: an edited helper
        key_cache_on(decide, helpers)  # module was played by the old code
    if not checked:
        # a shipped decide is compiled when first needed (signature.ready), not when its
        # file is imported: `mexsim strategies` lists them all (counter and search took
        # 30 s to compile for that), and a run never calls those whose rule the kernel
        # makes itself (greedy, random, early_doubles, longest_train: mexsim/game/stand_in.py)
        decide.compiled_when_called = True
        return decide
    return ready(decide)


def _own_uncompiled_helpers(func: Callable) -> list[Dispatcher]:
    """Those of own_helpers not compiled yet: decide compiles them, as it is compiled."""
    return [helper for helper in own_helpers(func) if not helper.overloads]


# as the built-ins' decide (above), whoever calls it first; bounds-checked, as it is not
# inlined into a user's decide (which has the check): the array may be any of theirs
@compiled(cache=True, refcounts=False, boundscheck=True)
def random_below(view, n):
    """A uniform number in 0..n-1 from the mover's own stream (advances it); n from 1
    to 2**32 - 1 (the draw takes 32 bits: a larger n never ended)."""
    if not 1 <= n <= 0xFFFFFFFF:
        raise ValueError("random_below(view, n) draws 0..n-1 for n from 1 to 2**32 - 1")
    value, s0, s1, s2, s3 = xoshiro_bounded(
        n,
        np.uint64(view[RNG]),
        np.uint64(view[RNG + 1]),
        np.uint64(view[RNG + 2]),
        np.uint64(view[RNG + 3]),
    )
    view[RNG] = np.int64(s0)
    view[RNG + 1] = np.int64(s1)
    view[RNG + 2] = np.int64(s2)
    view[RNG + 3] = np.int64(s3)
    return value
