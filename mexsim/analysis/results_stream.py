"""A results directory read row group by row group, into sums that do not grow with it.

Either form: the single files ``matches.parquet`` and ``rounds.parquet``, or the parts
a shared location's ``manifest.json`` lists (``mexsim run --out file:///…``), read one
after another in match order.

``mexsim report`` needs the run's statistics (mexsim/analysis/accumulate.py), each
round's penalty per player (mean, spread, count) and each player's distribution of
match totals. All are sums over rows, so the Parquet files are streamed in batches
(pyarrow) and folded in: memory is bounded by the batch size and the number of
players, not by the number of matches (the old reader loaded both tables whole: 11 GB
for two million matches).

Totals are whole pips, so their distribution is kept exactly as a count per value,
from which the plots draw the histogram and the quartiles.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from mexsim.analysis.accumulate import Moments, RunAccumulator, RunStatistics
from mexsim.analysis.designer import BASE, match_facts
from mexsim.analysis.designer import ROUND_COLUMNS as FACT_COLUMNS
from mexsim.analysis.run_fold import RunFold

BATCH_ROWS = 1 << 18
MATCH_COLUMNS = ["match", "player", "strategy", "total", "deal", "luck", "variant"]
ROUND_COLUMNS = ["round", "engine", "player", *FACT_COLUMNS, "variant"]
MAX_TOTAL = 1 << 20  # a match total beyond this is not a game of dominoes


@dataclass
class ResultsDigest:
    """What the report needs of a results directory, in bounded memory."""

    players: list[str]
    strategies: list[str]
    run: RunStatistics
    round_penalty: Moments  # [round, player]: each round's penalties
    engines: np.ndarray  # [round]: the round's engine double (-1: no rows)
    total_counts: np.ndarray  # [player, total]: matches with that total

    def mean_round_penalty(self) -> np.ndarray:
        """Each player's mean penalty per round, over all its rounds."""
        n = self.round_penalty.n.sum(axis=0)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(
                n > 0, (self.round_penalty.n * self.round_penalty.mean).sum(axis=0) / n, np.nan
            )


def _names_in_order(batches: Iterable[pa.RecordBatch]) -> list[str]:
    """The values of a (dictionary) string column in order of first appearance."""
    seen: dict[str, None] = {}
    for batch in batches:
        values = batch.column(0)
        if isinstance(values, pa.DictionaryArray):
            used, first = np.unique(
                values.indices.to_numpy(zero_copy_only=False), return_index=True
            )
            names = values.dictionary.to_pylist()
            for code in used[np.argsort(first)]:
                seen.setdefault(str(names[code]), None)
        else:
            for name in values.to_pylist():
                seen.setdefault(str(name), None)
    return list(seen)


def _codes(values: pa.Array | pa.ChunkedArray, index: dict[str, int]) -> np.ndarray:
    """Positions in ``index`` of a (dictionary or plain) string column's values."""
    if isinstance(values, pa.ChunkedArray):
        return np.concatenate(
            [_codes(chunk, index) for chunk in values.chunks] or [np.empty(0, dtype=np.int64)]
        )
    if isinstance(values, pa.DictionaryArray):
        lookup = np.array([index.get(str(n), -1) for n in values.dictionary.to_pylist()])
        return lookup[values.indices.to_numpy(zero_copy_only=False)]
    return np.array([index.get(str(n), -1) for n in values.to_pylist()])


def read_results(directory: str | Path) -> ResultsDigest:
    """Stream a results directory's matches and rounds: ``matches.parquet`` and
    ``rounds.parquet``, or (the parts form) the parts its ``manifest.json`` lists, part
    after part in match order (mexsim/analysis/provenance.py finds which).

    Rows of one match must be together and matches in order (as mexsim writes them);
    ValueError says what is wrong otherwise."""
    from mexsim.analysis.provenance import results_files

    files = results_files(Path(directory)).files
    players = _names_in_order(stream_batches(files["matches"], ["player"]))
    names = pq.read_schema(files["matches"][0]).names if files["matches"] else []
    luck = "luck" in names
    variants = (
        _names_in_order(stream_batches(files["matches"], ["variant"]))
        if "variant" in names
        else [BASE]
    )
    return _digest(
        players,
        stream_batches(files["matches"], MATCH_COLUMNS),
        stream_batches(files["rounds"], ROUND_COLUMNS),
        luck,
        variants,
    )


def stream_batches(paths: Sequence[Path], columns: Sequence[str]) -> Iterator[pa.RecordBatch]:
    """The ``columns`` (those present) of Parquet files, in batches of ``BATCH_ROWS``
    rows, one file open at a time.

    ``pre_buffer=False``: pyarrow's default pre-buffering reads ahead every row group
    the reader will visit and keeps the compressed bytes it read until the reader is
    closed, so memory grew with the file (``mexsim report`` peaked at 853 MB
    for ten million matches, 379 MB for two). Without it a column chunk is read when
    decoded and freed after: memory is bounded by a row group and a batch. The batches
    are the same rows either way (and so the sums and the report, to the bit)."""
    for path in paths:
        with pq.ParquetFile(path, pre_buffer=False, page_checksum_verification=True) as file:
            wanted = [c for c in columns if c in file.schema_arrow.names]
            yield from file.iter_batches(batch_size=BATCH_ROWS, columns=wanted)


def digest_tables(matches: pd.DataFrame, rounds: pd.DataFrame | None) -> ResultsDigest:
    """The digest of in-memory tables (those of ``load_results``), folded the same way."""
    ordered = matches.sort_values("match", kind="stable")
    table = pa.Table.from_pandas(
        ordered[[c for c in MATCH_COLUMNS if c in ordered]], preserve_index=False
    )
    players = _names_in_order(
        pa.Table.from_pandas(ordered[["player"]], preserve_index=False).to_batches()
    )
    round_batches = (
        []
        if rounds is None
        else pa.Table.from_pandas(
            rounds[[c for c in ROUND_COLUMNS if c in rounds]], preserve_index=False
        ).to_batches()
    )
    variants = (
        _names_in_order(
            pa.Table.from_pandas(ordered[["variant"]], preserve_index=False).to_batches()
        )
        if "variant" in ordered
        else [BASE]
    )
    return _digest(players, table.to_batches(), round_batches, "luck" in matches.columns, variants)


def _by_variant(
    batches: Iterable[pa.RecordBatch], variants: list[str], what: str
) -> Iterator[tuple[int, pa.Table]]:
    """Each variant's whole matches, chunk by chunk: the rows of a batch split by their
    ``variant`` (all the baseline's without one), the last match of each variant held
    back until the next batch shows it is complete."""
    index = {name: i for i, name in enumerate(variants)}
    held: dict[int, pa.Table] = {}
    for batch in batches:
        table = pa.Table.from_batches([batch])
        if table.num_rows == 0:
            continue
        if "variant" in table.column_names and len(variants) > 1:
            codes = _codes(table.column("variant"), index)
            pieces = [(v, table.filter(pa.array(codes == v))) for v in np.unique(codes)]
        else:
            pieces = [(0, table)]
        for v, piece in pieces:
            v = int(v)
            if v < 0:
                raise ValueError(f"{what}: a row of an unknown variant")
            if v in held:
                piece = pa.concat_tables([held.pop(v), piece])
            match = piece.column("match").to_numpy()
            if np.any(match[1:] < match[:-1]):
                raise ValueError(f"{what}: rows are not in match order")
            cut = int(np.searchsorted(match, match[-1]))  # the last match may go on
            held[v] = piece.slice(cut)
            if cut:
                yield v, piece.slice(0, cut)
    for v in sorted(held):
        if held[v].num_rows:
            yield v, held[v]


def _digest(
    players: list[str],
    match_batches: Iterable[pa.RecordBatch],
    round_batches: Iterable[pa.RecordBatch],
    luck: bool = False,
    variants: Sequence[str] = (BASE,),
) -> ResultsDigest:
    """``luck``: the matches have a ``luck`` column (a luck-adjusted run, docs/luck.md),
    whose adjusted totals are folded beside the totals. ``variants``: the rule variants
    in order, the baseline first (the players' tables and plots are the baseline's)."""
    index = {name: i for i, name in enumerate(players)}
    fold = RunFold(len(players), luck, variants)
    strategies = [""] * len(players)
    counts = np.zeros((len(players), 1), dtype=np.int64)
    for v, table in _by_variant(match_batches, list(fold.names), "matches.parquet"):
        counts = _fold_matches(fold.runs[v], table, index, strategies, counts, v == 0)
    round_penalty, engines = _round_penalties(round_batches, index, fold)
    return ResultsDigest(players, strategies, fold.close(), round_penalty, engines, counts)


def _fold_matches(
    acc: RunAccumulator,
    table: pa.Table,
    index: dict[str, int],
    strategies: list[str],
    counts: np.ndarray,
    counted: bool = True,
) -> np.ndarray:
    """Fold whole matches into the accumulator and (``counted``) the totals' counts;
    returns the (possibly widened) counts."""
    match = table.column("match").to_numpy()
    player = _codes(table.column("player"), index)
    total = table.column("total").to_numpy().astype(np.int64)
    if total.min(initial=0) < 0 or total.max(initial=0) > MAX_TOTAL:
        raise ValueError(f"a match total outside 0..{MAX_TOTAL}")
    matches, row_match = np.unique(match, return_inverse=True)
    grid = np.full((len(matches), len(strategies)), np.nan)
    if np.bincount(row_match * len(strategies) + player, minlength=grid.size).max(initial=0) > 1:
        raise ValueError("more than one row for some (match, player) pair")
    grid[row_match, player] = total
    adjusted = None
    if acc.luck is not None:
        adjusted = grid.copy()
        adjusted[row_match, player] = total - table.column("luck").to_numpy()
    deal_column = "deal" if "deal" in table.column_names else "match"
    deals = np.empty(len(matches), dtype=np.int64)
    deals[row_match] = table.column(deal_column).to_numpy()
    acc.add(grid, deals, adjusted)
    missing = [i for i, kind in enumerate(strategies) if not kind and (player == i).any()]
    if missing and "strategy" in table.column_names:
        kinds = table.column("strategy")
        for i in missing:
            strategies[i] = str(kinds[int(np.flatnonzero(player == i)[0])].as_py())
    if not counted:
        return counts
    if total.max(initial=0) >= counts.shape[1]:
        counts = np.pad(counts, ((0, 0), (0, int(total.max()) + 1 - counts.shape[1])))
    np.add.at(counts, (player, total), 1)
    return counts


def _round_penalties(
    batches: Iterable[pa.RecordBatch], index: dict[str, int], fold: RunFold
) -> tuple[Moments, np.ndarray]:
    """Per (round, player) of the baseline: count, mean and squared deviations of the
    penalties; and each round's engine. Every variant's matches' designer facts go into
    ``fold`` on the way (when the rows have their columns: a table of another tool's
    may not)."""
    n_players = len(index)
    moments = Moments.zeros((0, n_players))
    engines = np.full(0, -1, dtype=np.int64)
    for v, table in _by_variant(batches, list(fold.names), "rounds.parquet"):
        if all(c in table.column_names for c in FACT_COLUMNS):
            columns = {c: table.column(c).to_numpy() for c in FACT_COLUMNS}
            fold.add_facts(v, match_facts(columns))
        if v:
            continue
        batch = table.combine_chunks()
        wanted = batch.schema.names
        rnd = batch.column(wanted.index("round")).to_numpy().astype(np.int64)
        player = _codes(batch.column(wanted.index("player")), index)
        penalty = batch.column(wanted.index("penalty")).to_numpy().astype(float)
        if len(rnd) == 0:
            continue
        rounds = int(rnd.max()) + 1
        if rounds > moments.n.shape[0]:
            grow = rounds - moments.n.shape[0]
            moments = Moments(
                *(np.pad(a, ((0, grow), (0, 0))) for a in (moments.n, moments.mean, moments.m2))
            )
            engines = np.pad(engines, (0, grow), constant_values=-1)
        key = rnd * n_players + player
        size = moments.n.size
        n = np.bincount(key, minlength=size).astype(float)
        with np.errstate(divide="ignore", invalid="ignore"):
            mean = np.where(n > 0, np.bincount(key, penalty, minlength=size) / n, 0.0)
        m2 = np.bincount(key, (penalty - mean[key]) ** 2, minlength=size)
        shape = moments.n.shape
        moments.merge(n.reshape(shape), mean.reshape(shape), m2.reshape(shape))
        if "engine" in wanted:
            engine = batch.column(wanted.index("engine")).to_numpy().astype(np.int64)
            first = np.unique(rnd, return_index=True)
            unset = engines[first[0]] < 0
            engines[first[0][unset]] = engine[first[1][unset]]
    return moments, engines
