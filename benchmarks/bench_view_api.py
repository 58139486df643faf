"""The named view API at zero cost? One decide function in three forms, timed per call.

greedy and mexican_first are written three ways — raw offsets into the int64 view
(``view[MOVE_TILE + i]``), the inlined accessors of mexsim.strategy.access
(``move_tile(view, i)``), and a numba record (a structured dtype with named fields,
passed by reference) — and each is called through a first-class function type, as the
core calls strategies, on the same 2,000 decision states (random legal-move lists of
2-12 moves, 4 players), each written into one view (or one record) before the call,
as the core does. Reports nanoseconds a decision, writing included, best of 7
(process time).
This is the measurement behind the choice of accessors over a record view
(issue 10): a record would change the signature, both engines and every strategy.
"""

from __future__ import annotations

import time

import numpy as np
from numba import njit, typeof, types

from mexsim.game import view as V
from mexsim.game.tiles import tile_set
from mexsim.strategy.access import heavier, is_mexican, is_mine, move_count, move_tile, move_train

STATES = 2_000
REPEATS = 7
PASSES = 200  # over all the states, per timing

RECORD = np.dtype(
    [
        ("n_moves", np.int64),
        ("seat", np.int64),
        ("players", np.int64),
        ("move_tile", np.int64, V.MAX_MOVES),
        ("move_train", np.int64, V.MAX_MOVES),
        ("tile_pips", np.int64, V.MAX_TILES),
    ],
    align=True,
)


def states() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(move counts, tiles, trains) of the states."""
    rng = np.random.default_rng(10)
    ts = tile_set(12)
    ns = rng.integers(2, 13, STATES)
    tiles = np.array([rng.choice(ts.count, 12, replace=False) for _ in range(STATES)])
    return ns, tiles, rng.integers(0, 5, (STATES, 12))


SIG = types.int64(types.int64[::1], types.float64[::1])


@njit(SIG)
def greedy_raw(view, params):
    best = 0
    for i in range(1, view[V.N_MOVES]):
        if view[V.MOVE_TILE + i] < view[V.MOVE_TILE + best]:
            best = i
    return best


@njit(SIG)
def greedy_named(view, params):
    best = 0
    for i in range(1, move_count(view)):
        if heavier(move_tile(view, i), move_tile(view, best)):
            best = i
    return best


@njit
def greedy_record(rec, params):
    best = 0
    for i in range(1, rec.n_moves):
        if rec.move_tile[i] < rec.move_tile[best]:
            best = i
    return best


@njit(SIG)
def mexican_raw(view, params):
    seat, mexican = view[V.SEAT], view[V.PLAYERS]
    best, best_rank = 0, 3
    for i in range(view[V.N_MOVES]):
        tr = view[V.MOVE_TRAIN + i]
        rank = 0 if tr == mexican else (2 if tr == seat else 1)
        if rank < best_rank or (
            rank == best_rank and view[V.MOVE_TILE + i] < view[V.MOVE_TILE + best]
        ):
            best, best_rank = i, rank
    return best


@njit(SIG)
def mexican_named(view, params):
    best, best_rank = 0, 3
    for i in range(move_count(view)):
        train = move_train(view, i)
        rank = 0 if is_mexican(view, train) else (2 if is_mine(view, train) else 1)
        if rank < best_rank or (
            rank == best_rank and heavier(move_tile(view, i), move_tile(view, best))
        ):
            best, best_rank = i, rank
    return best


@njit
def mexican_record(rec, params):
    best, best_rank = 0, 3
    for i in range(rec.n_moves):
        tr = rec.move_train[i]
        rank = 0 if tr == rec.players else (2 if tr == rec.seat else 1)
        if rank < best_rank or (rank == best_rank and rec.move_tile[i] < rec.move_tile[best]):
            best, best_rank = i, rank
    return best


@njit
def drive_view(funcs, view, ns, tiles, trains, params, passes):
    """Each state written into the one view (as the core writes its one view before a
    decision), then decide called on it."""
    total = 0
    for _ in range(passes):
        for k in range(ns.shape[0]):
            n = ns[k]
            view[V.N_MOVES] = n
            for i in range(n):
                view[V.MOVE_TILE + i] = tiles[k, i]
                view[V.MOVE_TRAIN + i] = trains[k, i]
            total += funcs[0](view, params)
    return total


@njit
def drive_record(funcs, records, ns, tiles, trains, params, passes):
    """The same with the one record (records[0], passed by reference)."""
    total = 0
    rec = records[0]
    for _ in range(passes):
        for k in range(ns.shape[0]):
            n = ns[k]
            rec.n_moves = n
            for i in range(n):
                rec.move_tile[i] = tiles[k, i]
                rec.move_train[i] = trains[k, i]
            total += funcs[0](rec, params)
    return total


def per_call(drive, func, target, compact, params) -> tuple[float, int]:
    funcs = (func,)
    check = drive(funcs, target, *compact, params, 1)
    best = float("inf")
    for _ in range(REPEATS):
        start = time.process_time()
        drive(funcs, target, *compact, params, PASSES)
        best = min(best, time.process_time() - start)
    return best / (PASSES * len(compact[0])) * 1e9, check


def main() -> None:
    compact = states()
    view = np.zeros(V.SIZE, dtype=np.int64)
    view[V.SEAT], view[V.PLAYERS] = 1, 4
    records = np.zeros(1, dtype=RECORD)
    records[0]["seat"], records[0]["players"] = 1, 4
    params = np.zeros(V.MAX_PARAMS)
    rec_sig = types.int64(typeof(records[0]), types.float64[::1])
    print("decide per call (ns), first-class function call, best of 7, process time")
    for label, raw, named, record in (
        ("greedy", greedy_raw, greedy_named, greedy_record),
        ("mexican_first", mexican_raw, mexican_named, mexican_record),
    ):
        record_fc = njit(rec_sig)(record.py_func)
        a, ca = per_call(drive_view, raw, view, compact, params)
        b, cb = per_call(drive_view, named, view, compact, params)
        c, cc = per_call(drive_record, record_fc, records, compact, params)
        assert ca == cb == cc, (ca, cb, cc)
        print(
            f"  {label:<14} raw offsets {a:6.2f}   accessors {b:6.2f} ({b / a - 1:+.1%})"
            f"   record view {c:6.2f} ({c / a - 1:+.1%})"
        )


if __name__ == "__main__":
    main()
