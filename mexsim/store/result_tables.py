"""Result rows of a block of matches, as Arrow tables with the docs/interface.md columns.

The core's res[k, round, seat, field] array becomes ``rounds`` rows (match × round ×
seat) and ``matches`` rows (match × seat), ordered by match, then round, then seat, so
a results file depends on (config, seed) only. Integer columns use the smallest type
that fits; ``player`` and ``strategy`` are dictionary-encoded.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyarrow as pa

from mexsim.game.enums import Field

ROUNDS_SCHEMA = pa.schema(
    [
        ("match", pa.int64()),
        ("round", pa.int8()),
        ("engine", pa.int8()),
        ("seat", pa.int8()),
        ("player", pa.dictionary(pa.int8(), pa.string())),
        ("strategy", pa.dictionary(pa.int8(), pa.string())),
        ("penalty", pa.int16()),
        ("tiles_left", pa.int16()),
        ("went_out", pa.bool_()),
        ("blocked", pa.bool_()),
        ("tiles_played", pa.int16()),
        ("draws", pa.int16()),
        ("first", pa.bool_()),  # the seat that moved first: placed the engine (R5)
        ("turns", pa.int16()),
        ("passes", pa.int16()),
        ("deal", pa.int64()),
    ]
)
MATCHES_SCHEMA = pa.schema(
    [
        ("match", pa.int64()),
        ("seat", pa.int8()),
        ("player", pa.dictionary(pa.int8(), pa.string())),
        ("strategy", pa.dictionary(pa.int8(), pa.string())),
        ("total", pa.int32()),
        ("rank", pa.int8()),
        ("win", pa.float64()),
        ("deal", pa.int64()),
    ]
)
# a run with rule variants adds this first (mexsim/tournament/variants.py)
VARIANT_COLUMN = "variant"
VARIANT_TYPE = pa.dictionary(pa.int8(), pa.string())
# [analysis] luck = true adds these (docs/luck.md): each round's luck per seat, and a
# match's sum of them; the luck-adjusted total is total - luck
LUCK_ROUNDS_FIELDS = [("deal_luck", pa.float64()), ("draw_luck", pa.float64())]
LUCK_MATCHES_FIELDS = [("luck", pa.float64())]


def match_outcomes(totals: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """R4: rank (1 = lowest total; tied players share the better rank) and win share
    (1/k for each of k players tied for the lowest total), per match and seat."""
    rank = 1 + (totals[:, None, :] < totals[:, :, None]).sum(axis=2)
    best = totals == totals.min(axis=1, keepdims=True)
    win = best / best.sum(axis=1, keepdims=True)
    return rank, win


def _array(values: np.ndarray) -> pa.Array:
    """A numpy column as an Arrow array of its own type, built from its buffer:
    ``pa.array`` looks for pandas objects first, and importing pandas (~0.2 s) was the
    first block's (the analysis imports it after play)."""
    values = np.ascontiguousarray(values)
    if values.dtype == np.bool_:
        bits = np.packbits(values, bitorder="little")
        return pa.Array.from_buffers(pa.bool_(), len(values), [None, pa.py_buffer(bits)])
    kind = pa.from_numpy_dtype(values.dtype)
    return pa.Array.from_buffers(kind, len(values), [None, pa.py_buffer(values)])


def _strings(texts: Sequence[str]) -> pa.Array:
    """Strings as an Arrow array, as ``_array`` builds numbers."""
    data = [t.encode() for t in texts]
    offsets = np.zeros(len(data) + 1, dtype=np.int32)
    offsets[1:] = np.cumsum([len(d) for d in data])
    buffers = [None, pa.py_buffer(offsets), pa.py_buffer(b"".join(data))]
    return pa.Array.from_buffers(pa.string(), len(data), buffers)


def values_of(column: pa.ChunkedArray | pa.Array) -> np.ndarray:
    """A column of numbers or booleans without nulls as a numpy array, read from its
    buffers (``to_numpy`` imports pandas: see ``_array``)."""
    array = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    if array.null_count:
        raise ValueError("a column with nulls")
    data = array.buffers()[1]
    n, offset = len(array), array.offset
    if n == 0:
        kind = np.bool_ if pa.types.is_boolean(array.type) else array.type.to_pandas_dtype()
        return np.empty(0, dtype=kind)
    if pa.types.is_boolean(array.type):
        bits = np.unpackbits(np.frombuffer(data, dtype=np.uint8), bitorder="little")
        return bits[offset : offset + n].astype(np.bool_)
    dtype = np.dtype(array.type.to_pandas_dtype())
    return np.frombuffer(data, dtype=dtype, count=n, offset=offset * dtype.itemsize)


def _dictionary(indices: np.ndarray, names: Sequence[str]) -> pa.DictionaryArray:
    return pa.DictionaryArray.from_arrays(_array(indices.astype(np.int8)), _strings(names))


def block_tables(
    res: np.ndarray,
    first_match: int,
    max_pip: int,
    player_of_seat: np.ndarray,
    player_names: Sequence[str],
    player_strategies: Sequence[str],
    deals: np.ndarray | None = None,
    luck: tuple[np.ndarray, np.ndarray] | None = None,
    variant: tuple[int, Sequence[str]] | None = None,
) -> tuple[pa.Table, pa.Table]:
    """The rounds and matches tables of matches first_match … (res[k, round, seat, F]);
    ``deals[k]`` is the deal match k played (default: its own index); ``luck``: the
    (deal, draw) luck [k, round, seat] of a luck-adjusted run, in columns of their own;
    ``variant``: (this block's variant, every variant's name) of a run with rule
    variants, the ``variant`` column first in both tables."""
    n, rounds, players, _ = res.shape
    strategies = sorted(set(player_strategies))
    strategy_of_player = np.array([strategies.index(s) for s in player_strategies])
    match_ids = np.arange(first_match, first_match + n, dtype=np.int64)
    deal_ids = match_ids if deals is None else np.asarray(deals, dtype=np.int64)

    # rounds: match-major, then round, then seat
    shape = (n, rounds, players)
    who = np.broadcast_to(player_of_seat[:, None, :], shape).ravel()
    rounds_table = pa.Table.from_arrays(
        [
            _array(np.broadcast_to(match_ids[:, None, None], shape).ravel()),
            _array(np.broadcast_to(np.arange(rounds, dtype=np.int8)[None, :, None], shape).ravel()),
            _array(
                np.broadcast_to(
                    (max_pip - np.arange(rounds)).astype(np.int8)[None, :, None], shape
                ).ravel()
            ),
            _array(
                np.broadcast_to(np.arange(players, dtype=np.int8)[None, None, :], shape).ravel()
            ),
            _dictionary(who, player_names),
            _dictionary(strategy_of_player[who], strategies),
            _array(res[..., Field.penalty].ravel().astype(np.int16)),
            _array(res[..., Field.tiles_left].ravel().astype(np.int16)),
            _array(res[..., Field.went_out].ravel().astype(bool)),
            _array(res[..., Field.blocked].ravel().astype(bool)),
            _array(res[..., Field.tiles_played].ravel().astype(np.int16)),
            _array(res[..., Field.draws].ravel().astype(np.int16)),
            _array(res[..., Field.first].ravel().astype(bool)),
            _array(res[..., Field.turns].ravel().astype(np.int16)),
            _array(res[..., Field.passes].ravel().astype(np.int16)),
            _array(np.broadcast_to(deal_ids[:, None, None], shape).ravel()),
        ],
        schema=ROUNDS_SCHEMA,
    )
    if luck is not None:
        for (name, kind), values in zip(LUCK_ROUNDS_FIELDS, luck, strict=True):
            rounds_table = rounds_table.append_column(pa.field(name, kind), _array(values.ravel()))

    totals = res[..., Field.penalty].sum(axis=1)  # [match, seat]
    rank, win = match_outcomes(totals)
    who = player_of_seat.ravel()
    matches_table = pa.Table.from_arrays(
        [
            _array(np.repeat(match_ids, players)),
            _array(np.tile(np.arange(players, dtype=np.int8), n)),
            _dictionary(who, player_names),
            _dictionary(strategy_of_player[who], strategies),
            _array(totals.ravel().astype(np.int32)),
            _array(rank.ravel().astype(np.int8)),
            _array(win.ravel().astype(np.float64)),
            _array(np.repeat(deal_ids, players)),
        ],
        schema=MATCHES_SCHEMA,
    )
    if luck is not None:
        name, kind = LUCK_MATCHES_FIELDS[0]
        match_luck = (luck[0] + luck[1]).sum(axis=1)  # [match, seat]
        matches_table = matches_table.append_column(
            pa.field(name, kind), _array(match_luck.ravel())
        )
    if variant is not None:
        code, variants = variant
        rounds_table, matches_table = (
            table.add_column(
                0,
                pa.field(VARIANT_COLUMN, VARIANT_TYPE),
                _dictionary(np.full(table.num_rows, code), variants),
            )
            for table in (rounds_table, matches_table)
        )
    return rounds_table, matches_table
