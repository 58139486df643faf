"""How the kernel fills a strategy's view (mexsim/game/view.py) from its private table
(mexsim/game/private_table.py): the parts fixed for a match, restored after a user's
strategy may have written over them, and the public table shown at a decision."""

from __future__ import annotations

import numpy as np
from numba import njit

from mexsim.game.private_table import HISTORY_HELD, HISTORY_SHOWN, TABLE_SHOWN
from mexsim.game.view import (
    HISTORY,
    HISTORY_LEN,
    MATCH,
    MAX_NUMBERS,
    MAX_PIP,
    MAX_TILES,
    MAX_WORDS,
    MOVE_TILE,
    NUMBER_MASK,
    PLAYERS,
    RULE_DOUBLE_BLANK_POINTS,
    RULE_DRAW_LIMIT,
    RULE_DRAW_TO_START,
    RULE_FIRST_TURN_TRAIN,
    RULE_HAND_SIZE,
    RULE_MEXICAN_TRAIN,
    RULE_SET_ASIDE,
    TILE_HI,
    TILE_LO,
    TILE_PIPS,
    TILES,
    TRAIN_END,
    TRAIN_TILES,
    WORDS,
)
from mexsim.jit.options import compiled

UHISTORY = np.uint64(HISTORY)  # uint64 + int64 is a float in numba


@njit(inline="always")
def show_public_table(view, st, n_hist):
    """The public table as it stands, into the view: the trains' tiles and the seats'
    counters copied whole (a few dozen words), the history from where the view's copy
    of this round's ends (the whole of it after a user's strategy was called: it may
    have written over it), and an earlier round's entries beyond it cleared."""
    for k in range(TRAIN_TILES, HISTORY_LEN):
        view[k] = st[k]
    for k in range(n_hist, st[HISTORY_HELD]):
        view[HISTORY + k] = 0
    for k in range(np.uint64(st[HISTORY_SHOWN]), np.uint64(n_hist)):
        view[UHISTORY + k] = st[UHISTORY + k]
    st[HISTORY_SHOWN] = n_hist
    st[HISTORY_HELD] = n_hist
    view[HISTORY_LEN] = n_hist
    st[TABLE_SHOWN] = 1


@compiled(cache=True)
def fill_static_view(view, match, rules, lo, hi, pips, number_mask):
    """The parts of the view fixed for a whole match (mexsim/game/view.py), the rule
    options among them. (The public table beyond them is start_match's to clear.)"""
    for k in range(TRAIN_TILES):
        view[k] = 0
    view[MAX_PIP] = rules.max_pip
    view[PLAYERS] = rules.players
    view[RULE_FIRST_TURN_TRAIN] = rules.first_turn_train
    view[RULE_SET_ASIDE] = rules.set_aside
    view[RULE_DRAW_TO_START] = rules.draw_to_start
    view[RULE_DOUBLE_BLANK_POINTS] = rules.double_blank_points
    view[RULE_HAND_SIZE] = rules.hand_size
    view[RULE_DRAW_LIMIT] = rules.draw_limit
    view[RULE_MEXICAN_TRAIN] = rules.mexican_train
    view[TILES] = lo.shape[0]
    view[WORDS] = number_mask.shape[1]
    view[MATCH] = match
    _write_tile_tables(view, lo, hi, pips, number_mask.ravel())


@njit(inline="always")
def _write_tile_tables(view, lo, hi, pips, number_bits):
    """The view's tile tables from the tile set's, zero beyond the set."""
    T = lo.shape[0]
    for t in range(MAX_TILES):
        view[TILE_LO + t] = lo[t] if t < T else 0
        view[TILE_HI + t] = hi[t] if t < T else 0
        view[TILE_PIPS + t] = pips[t] if t < T else 0
    used = number_bits.shape[0]  # row n at n * MAX_WORDS
    for k in range(MAX_NUMBERS * MAX_WORDS):
        view[NUMBER_MASK + k] = np.int64(number_bits[k]) if k < used else 0


@njit(inline="always")
def restore_fixed_view(view, st):
    """The view's parts fixed for the match, as fill_static_view wrote them, from the
    private table: it is laid out as the view, its scalars and tile tables included
    (those a decision shows are written afresh after this)."""
    for k in range(TRAIN_END):
        view[k] = st[k]
    for k in range(TILE_LO, MOVE_TILE):
        view[k] = st[k]
