"""The decisions dataset's rows: each decision of the recorded players, one row a legal
move (docs/interface.md, "decisions.parquet").

A block is played by the core with each match's moves kept (mexsim/game/recorded.py);
then each match is walked again on the step (the rules, written once), from the same deal,
playing the moves the core played: at each decision with two or more legal moves of a
recorded seat, the seat's view (R17: what it was shown, nothing more) gives every legal
move's features — `weights`' eight (mexsim/strategy/builtin/weights.py, its plan kept as
longest_train keeps it, from that seat's decisions) and the descriptive ones — and which
move was chosen; the round's penalty is filled in when the round ends."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pyarrow as pa

from mexsim.game import step
from mexsim.game.kernel_view import fill_static_view
from mexsim.game.play import KernelArgs, play_scheduled_moves
from mexsim.game.rng import MASK64
from mexsim.game.state import W_PENALTY, W_PUBLIC, W_TURNS, WORLD_SIZE
from mexsim.game.view import (
    HAND,
    HAND_SIZE,
    MAX_MEMORY,
    MOVE_TILE,
    MOVE_TRAIN,
    N_MOVES,
    NOTES,
    SEAT,
    SIZE,
    TILE_HI,
    TILE_LO,
    TILE_PIPS,
    TILES,
)
from mexsim.jit.bits import popcount
from mexsim.jit.options import compiled
from mexsim.strategy.api import carrying_word, lacking_numbers, move_end, unseen_word
from mexsim.strategy.builtin.longest_train import PLAN_POS
from mexsim.strategy.builtin.weights import (
    N_FEATURES,
    after_choice,
    move_features,
    plan_now,
    plan_words,
    unseen_count,
)
from mexsim.strategy.policy import Policy
from mexsim.tournament.config import Config, config_schedule

# the integer columns, in order (ri[row, k])
INT_COLUMNS = (
    "match",
    "round",
    "decision",  # the decision's number in the match (its rows share it)
    "turn",  # the seat's turn of the round, 1 for its first
    "seat",
    "player",  # the player's index in the config (its name in the table)
    "move",  # the move's index among the legal moves
    "n_moves",
    "tile",
    "train",
    "train_kind",  # 0 its own train, 1 the Mexican train, 2 another seat's
    "leaves_open",  # the number the train's end shows after it
    "unseen",  # tiles carrying that number the seat cannot see
    "next_lacks",  # 1: the next seat has shown it holds none of that number
    "hand_size",  # tiles in the seat's hand before the move
    "hand_pips",
    "chosen",
    "round_penalty",  # the seat's penalty of that round (R16)
)
# the float columns: weights' features, named as its parameters
FLOAT_COLUMNS = ("pips", "double", "own", "public", "plan", "follow", "starve", "trap")
N_INT = len(INT_COLUMNS)
assert len(FLOAT_COLUMNS) == N_FEATURES
TRAIN_KINDS = ("own", "mexican", "other")
CHUNK_ROWS = 1 << 17  # rows a table (a row group) holds at most: bounded memory

C_MATCH, C_ROUND, C_DECISION, C_TURN, C_SEAT, C_PLAYER, C_MOVE, C_N_MOVES = range(8)
C_TILE, C_TRAIN, C_KIND, C_OPEN, C_UNSEEN, C_LACKS, C_HAND_SIZE, C_HAND_PIPS = range(8, 16)
C_CHOSEN, C_PENALTY = 16, 17


@compiled(cache=True)
def _hand_pips(view):
    total = 0
    for t in range(view[TILES]):
        if (view[HAND + (t >> 6)] >> (t & 63)) & 1:
            total += view[TILE_PIPS + t]
    return total


@compiled(cache=True)
def walk_block(
    seed, match_ids, deal_ids, seating, recorded, rounds, numbers, lo, hi, pips, number_mask,
    moves, n_moves, ri, rf, k0,
):  # fmt: skip
    """The rows of matches k0, k0+1, … of a block into ri / rf from row 0; returns (the
    matches walked, the rows written). Stops before a match whose rows would not fit:
    the caller grows the arrays and walks on from there."""
    players = seating.shape[1]
    state = np.zeros(WORLD_SIZE, dtype=np.int64)
    view = np.zeros(SIZE, dtype=np.int64)
    notes = np.zeros((players, MAX_MEMORY), dtype=np.int64)
    capacity = ri.shape[0]
    row = 0
    for k in range(k0, match_ids.shape[0]):
        match_start = row
        state[:] = 0
        fill_static_view(state, match_ids[k], numbers, lo, hi, pips, number_mask)
        state[W_PUBLIC] = 1
        step.new_match(state, seed, deal_ids[k])
        notes[:] = 0
        j = 0  # the match's plays
        decision = 0
        for rnd in range(rounds):
            step.start_round(state, rnd, step.shuffle_deal(state, seed, deal_ids[k], rnd))
            round_start = row
            while not step.round_over(state):
                seat = state[SEAT]
                nm = state[N_MOVES]
                tile, train = moves[k, j, 0], moves[k, j, 1]
                j += 1
                chosen = -1
                for i in range(nm):
                    if state[MOVE_TILE + i] == tile and state[MOVE_TRAIN + i] == train:
                        chosen = i
                if chosen < 0:  # the core and the step disagree: a fault of mexsim's
                    return -1 - k, row
                player = seating[k, seat]
                if nm >= 2 and recorded[player]:
                    if row + nm > capacity:
                        return k, match_start
                    step.observe(state, seat, 0, view)
                    for m in range(MAX_MEMORY):
                        view[NOTES + m] = notes[seat, m]
                    own_end = plan_now(view)
                    p0, p1, p2, next_tile = plan_words(view)
                    pos = view[NOTES + PLAN_POS]
                    next_seat = (seat + 1) % players
                    lacks = lacking_numbers(view, next_seat)
                    unseen = unseen_count(view)
                    size = view[HAND_SIZE + seat]
                    hand_pips = _hand_pips(view)
                    for i in range(nm):
                        f = move_features(view, i, p0, p1, p2, next_tile, lacks, unseen)
                        t = view[MOVE_TILE + i]
                        tr = view[MOVE_TRAIN + i]
                        end = move_end(view, i)
                        other = view[TILE_HI + t] if view[TILE_LO + t] == end else view[TILE_LO + t]
                        carrying_unseen = 0
                        for w in range(3):
                            carrying_unseen += popcount(
                                unseen_word(view, w) & carrying_word(view, other, w)
                            )
                        ri[row, C_MATCH] = match_ids[k]
                        ri[row, C_ROUND] = rnd
                        ri[row, C_DECISION] = decision
                        ri[row, C_TURN] = state[W_TURNS + seat]
                        ri[row, C_SEAT] = seat
                        ri[row, C_PLAYER] = player
                        ri[row, C_MOVE] = i
                        ri[row, C_N_MOVES] = nm
                        ri[row, C_TILE] = t
                        ri[row, C_TRAIN] = tr
                        ri[row, C_KIND] = 0 if tr == seat else (1 if tr == players else 2)
                        ri[row, C_OPEN] = other
                        ri[row, C_UNSEEN] = carrying_unseen
                        ri[row, C_LACKS] = (lacks >> other) & 1
                        ri[row, C_HAND_SIZE] = size
                        ri[row, C_HAND_PIPS] = hand_pips
                        ri[row, C_CHOSEN] = 1 if i == chosen else 0
                        ri[row, C_PENALTY] = 0
                        for q in range(N_FEATURES):
                            rf[row, q] = f[q]
                        row += 1
                    after_choice(view, chosen, pos, next_tile, own_end)
                    for m in range(MAX_MEMORY):
                        notes[seat, m] = view[NOTES + m]
                    decision += 1
                step.apply(state, chosen)
            for r in range(round_start, row):
                ri[r, C_PENALTY] = state[W_PENALTY + ri[r, C_SEAT]]
            step.end_round(state)
    return match_ids.shape[0], row


def block_decisions(
    config: Config, players: list[Policy], first: int, n: int
) -> tuple[np.ndarray, Iterator[pa.Table]]:
    """Matches first … first+n-1 played as ``play_block`` plays them (the same results),
    and the rows of their decisions by the config's recorded players (``decisions``):
    tables of at most CHUNK_ROWS rows (a match's rows never split), walked as they are
    taken; at least one, empty when no recorded player decided."""
    schedule = config_schedule(config)
    variant, first = config.played_at(first)
    rules = config.variant_rules(variant)
    match_ids = np.arange(first, first + n, dtype=np.int64)
    deal_ids = np.ascontiguousarray(schedule.deals(first, n), dtype=np.int64)
    seating = np.ascontiguousarray(schedule.seating(first, n), dtype=np.int64)
    res, moves, n_moves = play_scheduled_moves(
        rules, players, config.seed, match_ids, deal_ids, seating
    )
    recorded = np.array([p.name in config.decisions for p in config.players], dtype=np.bool_)

    def tables() -> Iterator[pa.Table]:
        args = KernelArgs.build(rules, players)
        t = args.tiles
        capacity = CHUNK_ROWS
        ri = np.empty((capacity, N_INT), dtype=np.int64)
        rf = np.empty((capacity, N_FEATURES), dtype=np.float64)
        k, any_rows = 0, False
        while k < n:
            done, rows = walk_block(
                np.uint64(config.seed & MASK64), match_ids, deal_ids, seating, recorded,
                rules.rounds, args.numbers, t.lo, t.hi, t.pips, t.number_mask, moves, n_moves,
                ri, rf, k,
            )  # fmt: skip
            if done < 0:
                raise RuntimeError(f"match {first - 1 - done}: the step did not replay the core")
            if done == k:  # one match's rows are more than the arrays hold
                capacity *= 2
                ri = np.empty((capacity, N_INT), dtype=np.int64)
                rf = np.empty((capacity, N_FEATURES), dtype=np.float64)
                continue
            if rows or (not any_rows and done == n):
                any_rows = True
                yield _table(config, ri[:rows], rf[:rows], variant)
            k = done

    return res, tables()


_NUMPY_TYPES = {"match": np.int64, "decision": np.int32, "hand_pips": np.int32}


def _table(config: Config, ri: np.ndarray, rf: np.ndarray, variant: int) -> pa.Table:
    """The rows as decisions.parquet's columns, each in a type that holds it."""
    names = [p.name for p in config.players]
    columns: dict[str, pa.Array] = {}
    if config.variants:
        columns["variant"] = pa.DictionaryArray.from_arrays(
            np.full(len(ri), variant, dtype=np.int32), pa.array(config.variant_names)
        )
    for k, name in enumerate(INT_COLUMNS):
        col = ri[:, k]
        if name == "player":
            columns[name] = pa.DictionaryArray.from_arrays(col.astype(np.int32), pa.array(names))
        elif name == "train_kind":
            columns[name] = pa.DictionaryArray.from_arrays(
                col.astype(np.int32), pa.array(list(TRAIN_KINDS))
            )
        elif name in ("chosen", "next_lacks"):
            columns[name] = pa.array(col.astype(np.bool_))
        else:
            columns[name] = pa.array(col.astype(_NUMPY_TYPES.get(name, np.int16)))
    for k, name in enumerate(FLOAT_COLUMNS):
        columns[name] = pa.array(rf[:, k].astype(np.float32))
    return pa.table(columns)
