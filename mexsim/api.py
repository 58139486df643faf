"""mexsim from Python: play a config, read a results folder, check a strategy, play a
game move by move. What ``import mexsim`` promises (``mexsim.run``, ``mexsim.load_results``,
``mexsim.check``, ``mexsim.Game``, ``mexsim.Results``); the command line is built on the
same modules.

    import mexsim
    results = mexsim.run("configs/default.toml", matches=2000, out="results/mine")
    results.summary              # pandas, one row per player (summary.csv)
    results.matches(["player", "total"])   # the matches table, the columns asked for
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mexsim.errors import ConfigError

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pandas as pd
    import pyarrow.dataset as ds

    from mexsim.analysis.comparison import Analysis
    from mexsim.analysis.provenance import ResultsFiles
    from mexsim.testing.suite import CheckReport

__all__ = ["Results", "check", "load_results", "run"]


@dataclass(frozen=True)
class Results:
    """A results folder, read: the comparison's tables as pandas, the run's record, and
    the Parquet tables on demand (read by the columns asked for; ``dataset`` for more
    than memory holds)."""

    folder: Path
    record: dict[str, Any]  # run.json
    analysis: Analysis
    files: ResultsFiles

    @property
    def summary(self) -> pd.DataFrame:
        """One row per player: matches, wins, mean total with intervals, rating, …
        (the columns of summary.csv, docs/interface.md)."""
        return self.analysis.summary

    @property
    def comparisons(self) -> pd.DataFrame:
        """Every pair of players: the paired difference, interval, Holm-corrected p."""
        return self.analysis.pairs

    @property
    def head_to_head(self) -> pd.DataFrame:
        """Every ordered pair: the share of shared matches the player finished ahead."""
        return self.analysis.head_to_head

    @property
    def sweeps(self) -> pd.DataFrame:
        """Each swept value against its sweep's best (empty without a sweep)."""
        return self.analysis.sweeps

    @property
    def variants(self) -> pd.DataFrame | None:
        """The designer's facts per rule variant (variants.csv)."""
        return self.analysis.variants

    def dataset(self, table: str) -> ds.Dataset:
        """``"matches"`` or ``"rounds"`` as a pyarrow dataset, in match order (either
        form of the folder: the single files or the parts)."""
        import pyarrow.dataset as ds

        return ds.dataset([str(p) for p in self._paths(table)], format="parquet")

    def matches(self, columns: Sequence[str] | None = None) -> pd.DataFrame:
        """The matches table (one row per match and seat) as pandas."""
        return self._read("matches", columns)

    def rounds(self, columns: Sequence[str] | None = None) -> pd.DataFrame:
        """The rounds table (one row per match, round and seat) as pandas."""
        return self._read("rounds", columns)

    def decisions(self, columns: Sequence[str] | None = None) -> pd.DataFrame:
        """decisions.parquet — a row for each legal move of each recorded decision
        (``decisions=True`` or ``[run] decisions``; docs/learning.md) — as pandas."""
        import pyarrow.parquet as pq

        path = self.folder / "decisions.parquet"
        if not path.is_file():
            raise ValueError(
                f"{self.folder}: no decisions.parquet: run with decisions=True "
                "(--decisions, or [run] decisions in the config) to record them"
            )
        return pq.read_table(path, columns=list(columns) if columns else None).to_pandas()

    def text(self) -> str:
        """The comparison as `mexsim run` and `mexsim report` print it."""
        return self.analysis.format()

    def _paths(self, table: str) -> list[Path]:
        if table not in self.files.files:
            raise ValueError(f"table {table!r}: allowed: {', '.join(sorted(self.files.files))}")
        return self.files.files[table]

    def _read(self, table: str, columns: Sequence[str] | None) -> pd.DataFrame:
        return self.dataset(table).to_table(columns=list(columns) if columns else None).to_pandas()


def load_results(folder: str | Path) -> Results:
    """The results folder of a run (``mexsim run``'s ``out``; a path or a ``file://``
    URL), checked to be one run's, its comparison computed as ``mexsim report`` does
    (streamed: memory does not grow with the matches). ConfigError when it is not."""
    from mexsim.analysis.comparison import analyze_directory
    from mexsim.analysis.provenance import check_results, local_folder

    where = local_folder(str(folder))
    if not where.is_dir():
        raise ConfigError(f"{where}: not a results directory (no such folder)")
    files = check_results(where)
    analysis, _ = analyze_directory(where)
    try:
        record = json.loads((where / "run.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        record = {}
    return Results(where, record, analysis, files)


def run(
    config: str | Path,
    *,
    matches: int | None = None,
    seed: int | None = None,
    out: str | Path | None = None,
    workers: int | None = None,
    force: bool = False,
    resume: bool = False,
    strategies: Sequence[str | Path] = (),
    luck: bool | None = None,
    cluster: str | None = None,
    decision_limit: float | None = None,
    decisions: bool = False,
) -> Results:
    """Play ``config`` as ``mexsim run`` does, the keyword arguments as its flags
    (``--matches``, ``--seed``, ``--out``, ``--decisions``, …), and return its results. Raises
    mexsim.errors' exceptions: ConfigError (bad input, nothing played), StrategyError
    (a strategy failed), OutputError (the system refused a write), Interrupted
    (Ctrl-C: the finished blocks are kept for ``resume=True``)."""
    import os

    from mexsim.analysis.comparison import analyze_run
    from mexsim.game.stall_watch import DECISION_LIMIT
    from mexsim.running.runner import RunHooks, RunOptions
    from mexsim.running.runner import run as run_matches
    from mexsim.running.warmup import warm_up
    from mexsim.tournament.config import check_overrides, load_config, with_overrides

    text_out = None if out is None else str(out)
    check_overrides(matches, seed, text_out)
    threads = workers or os.cpu_count() or 1
    loaded = load_config(
        config,
        strategy_dirs=strategies,
        before_strategies=lambda folders, players: warm_up(folders, workers, players),
    )
    cfg = with_overrides(
        loaded, matches=matches, seed=seed, out=text_out, luck=luck, decisions=decisions
    )
    options = RunOptions(
        workers=threads,
        force=force,
        resume=resume,
        cluster=cluster or cfg.cluster,
        decision_limit=DECISION_LIMIT if decision_limit is None else decision_limit,
    )
    hooks = RunHooks(write_tables=lambda folder, stats: analyze_run(cfg, stats).write(folder))
    result = run_matches(cfg, cfg.out, options, hooks)
    return load_results(result.directory)


def check(
    strategy: str,
    *,
    strategies: Sequence[str | Path] = (),
    examples: int = 50,
    seed: int = 0,
) -> CheckReport:
    """``mexsim check``: the strategy contract over drawn games. The report's ``passed``
    says whether it holds; ``mexsim.testing.format_report(report)`` tells why not."""
    from mexsim.testing.suite import check_strategy

    return check_strategy(strategy, strategies, examples=examples, seed=seed)
