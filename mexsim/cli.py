"""The ``mexsim`` command line (docs/interface.md, "Commands"): parse, delegate, print.

Heavy modules (numba, numpy, pandas, pyarrow, the engine) are imported inside the
command that needs them, so ``mexsim --help`` stays instant. Every failure is one line
``mexsim: error: …`` on stderr and a documented exit status (below), never a traceback.
"""

from __future__ import annotations

import contextlib
import json
import sys
from contextlib import AbstractContextManager
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer
from typer.core import TyperCommand, TyperGroup

from mexsim.errors import (
    ConfigError,
    OutputError,
    Terminated,
)
from mexsim.game.engine_cache import engine_is_cold
from mexsim.game.render import render_text
from mexsim.jit import interrupts
from mexsim.jit.ast_guard import serialise_ast_parse
from mexsim.jit.compile_notice import compile_notice as announce_compiles
from mexsim.process.command_process import (
    begin,
    fail,
    ignore_stop_signals,
    run_command,
)
from mexsim.process.exit_status import (
    RUN_ERROR,
    SIGNALLED,
)
from mexsim.tournament.config import (
    MAX_MATCHES,
    MAX_SEED,
    check_overrides,
    load_config,
    with_overrides,
)

# click's base of every usage error, reached through typer's public BadParameter: typer
# vendors click in a private module of its own (typer._click), or depends on click
ClickException: Any = next(k for k in typer.BadParameter.__mro__ if k.__name__ == "ClickException")


def compile_notice(quiet: bool = False) -> AbstractContextManager:
    """The compile notice of a command that may compile the engine (cold: the first run
    of this version)."""
    return announce_compiles(quiet, is_cold=engine_is_cold)


def _bare_flag(option: Any) -> Any:
    """--help, a flag, without a value type in the help (typer writes "<bool>" for it, as
    if it took one)."""
    if option is not None:
        option.metavar = ""
    return option


class _Command(TyperCommand):
    def get_help_option(self, ctx: Any) -> Any:
        return _bare_flag(super().get_help_option(ctx))


class _Group(TyperGroup):
    """Turns ConfigError and click usage errors into one line on stderr and exit status 2."""

    def get_help_option(self, ctx: Any) -> Any:
        return _bare_flag(super().get_help_option(ctx))

    def main(  # type: ignore[override]
        self,
        args: Any = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        begin(args is None)  # the command line's, not a caller's (a test's)
        try:
            return self._command(args, prog_name, complete_var, **extra)
        finally:  # however it ends: what it noted of signals was its own
            interrupts.forget()

    def _command(
        self, args: Any, prog_name: str | None, complete_var: str | None, **extra: Any
    ) -> Any:
        run_command(
            lambda: super(_Group, self).main(
                args, prog_name, complete_var, standalone_mode=False, **extra
            ),
            ClickException,
            typer.Abort,
        )


app = typer.Typer(
    cls=_Group,
    name="mexsim",
    help="Tournament simulator for the domino game Mexican Train.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _print_version(asked: bool) -> None:
    if asked:
        from mexsim.version import __version__

        print(f"mexsim {__version__}")
        raise typer.Exit()


@app.callback()
def _main(
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            metavar="",
            is_eager=True,
            callback=_print_version,
            help="Print mexsim's version and exit.",
        ),
    ] = False,
) -> None:
    """Tournament simulator for the domino game Mexican Train (rules: docs/rules.md)."""
    serialise_ast_parse()  # before any thread of the command parses (mexsim/jit/ast_guard.py)


class StopWhen(StrEnum):
    matches = "matches"
    decided = "decided"


class TraceFormat(StrEnum):
    text = "text"
    jsonl = "jsonl"


ConfigArg = Annotated[Path, typer.Argument(metavar="CONFIG.toml", help="Run configuration (TOML).")]
# mexsim/game/stall_watch.py's DECISION_LIMIT when not given (not imported here: --help
# imports nothing heavy)
MOST_DECISION_LIMIT = 1e6


def _decision_limit(value: float | None) -> float | None:
    # the range checked here, not by typer's min/max: nan passed those as "should be
    # less than or equal to 1000000"
    if value is not None and not 0 <= value <= MOST_DECISION_LIMIT:
        raise typer.BadParameter(
            f"must be a number of seconds from 0 (no limit) to {MOST_DECISION_LIMIT:.0f}, "
            f"got {value}"
        )
    return value


DecisionLimitOpt = Annotated[
    float | None,
    typer.Option(
        callback=_decision_limit,
        metavar="SECONDS",
        help="Stop, naming the strategy, when one of its decisions has taken this long "
        "(it seems to loop forever; default 60, 0: no limit).",
    ),
]
StrategiesOpt = Annotated[
    list[Path] | None,
    typer.Option(
        "--strategies", metavar="DIR", help="A further folder of strategy files (repeatable)."
    ),
]
SeedOpt = Annotated[
    int | None,
    typer.Option(
        min=0, max=MAX_SEED, help="Override the config's run.seed (match k depends on seed, k)."
    ),
]


def _drawn_seed(cfg, resume: bool):
    """A config's ``seed = "random"``: on --resume the interrupted run's seed, else the
    one drawn, said on stderr (run.json records it too)."""
    from mexsim.running.runner import interrupted_seed

    if resume:
        seed = interrupted_seed(cfg.out)
        if seed is not None:
            print(
                f'mexsim: seed = "random": resuming with the interrupted run\'s seed {seed}',
                file=sys.stderr,
            )
            return with_overrides(cfg, seed=seed)
    print(
        f'mexsim: seed = "random": drew seed {cfg.seed} (run.json records it; '
        f"--seed {cfg.seed} replays the run)",
        file=sys.stderr,
    )
    return cfg


@app.command(cls=_Command)
def run(
    config: ConfigArg,
    matches: Annotated[int | None, typer.Option(min=1, help="Override run.matches.")] = None,
    seed: SeedOpt = None,
    out: Annotated[str | None, typer.Option(help="Override run.out (results directory).")] = None,
    workers: Annotated[
        int | None, typer.Option(min=1, help="Threads playing matches (default: all cores).")
    ] = None,
    force: Annotated[
        bool, typer.Option("--force", metavar="", help="Replace an existing results directory.")
    ] = False,
    resume: Annotated[
        bool,
        typer.Option(
            "--resume",
            metavar="",
            help="Continue this config's run that was interrupted or killed.",
        ),
    ] = False,
    quiet: Annotated[
        bool,
        typer.Option(
            "--quiet",
            metavar="",
            help="No progress bar, and only the one-line result (the tables are written "
            "to the results folder; mexsim report prints them).",
        ),
    ] = False,
    strategies: StrategiesOpt = None,
    until: Annotated[
        StopWhen,
        typer.Option(
            help="matches: play them all; decided: stop once the best player is separated "
            "from, or equivalent to, every other (at most run.matches)."
        ),
    ] = StopWhen.matches,
    confidence: Annotated[
        float,
        typer.Option(min=0.5, max=0.999999, help="--until decided: confidence of the verdict."),
    ] = 0.95,
    margin: Annotated[
        float,
        typer.Option(
            min=0.0,
            max=1e6,
            help="--until decided: points of mean total within which players count as equal.",
        ),
    ] = 1.0,
    cluster: Annotated[
        str | None,
        typer.Option(
            help="Play on a Dask cluster: local:N or a scheduler address (tcp://host:8786); "
            "overrides run.cluster."
        ),
    ] = None,
    luck: Annotated[
        bool,
        typer.Option(
            "--luck",
            metavar="",
            help="Luck-adjusted totals beside the raw ones (docs/luck.md); sets analysis.luck.",
        ),
    ] = False,
    decision_limit: DecisionLimitOpt = None,
    decisions: Annotated[
        bool,
        typer.Option(
            "--decisions",
            metavar="",
            help="Also write decisions.parquet: every player's decisions, one row a legal "
            "move (docs/learning.md); sets run.decisions.",
        ),
    ] = False,
) -> None:
    """Play the matches, write the results directory, print the comparison."""
    import os
    import time

    from mexsim.running.machine_limits import check_address_space

    started = time.perf_counter()
    check_address_space("run", workers or os.cpu_count() or 1)  # before numba loads
    from mexsim.game.stall_watch import DECISION_LIMIT
    from mexsim.running.runner import RunOptions, StopRule

    cfg = _run_config(
        config, matches, seed, out, workers, strategies, luck, resume, cluster, quiet, decisions
    )
    interrupts.raise_if_received()  # a stop signal swallowed while it compiled: no play
    options = RunOptions(
        workers=workers or os.cpu_count() or 1,
        force=force,
        resume=resume,
        until=StopRule(confidence, margin) if until == StopWhen.decided else None,
        cluster=cluster or cfg.cluster,
        decision_limit=DECISION_LIMIT if decision_limit is None else decision_limit,
    )
    display = _RunDisplay(cfg, quiet)
    result = display.play(options, started)
    try:
        display.print_result(result)
    except (KeyboardInterrupt, Terminated) as exc:  # the results are in place all the same
        import signal

        signum = exc.signum if isinstance(exc, Terminated) else signal.SIGINT
        fail(
            f"interrupted while the comparison was printed; the results are complete in "
            f"{result.directory} (`mexsim report {result.directory}` prints it again)",
            status=SIGNALLED + signum,
        )
    # the results are in place and shown: a Ctrl-C now, while the process ends, has
    # nothing left to stop (it ended the command with 130 and no line)
    ignore_stop_signals()


def _run_config(
    config: Path,
    matches: int | None,
    seed: int | None,
    out: str | None,
    workers: int | None,
    strategies: list[Path] | None,
    luck: bool,
    resume: bool,
    cluster: str | None,
    quiet: bool,
    decisions: bool = False,
):
    """The config as the command line overrides it, its strategies compiled (in parallel
    on a cold cache), and what the user should know before play."""
    check_overrides(matches, seed, out)
    if cluster:  # refused before a cold compile of a minute, not after it
        from mexsim.running.dask.cluster import parse_address

        parse_address(cluster)
    with compile_notice(quiet):
        from mexsim.running.warmup import warm_up

        # a cold cache only (the first run): the config's strategies compile in parallel
        cfg = with_overrides(
            load_config(
                config,
                strategy_dirs=strategies or (),
                before_strategies=lambda folders, players: warm_up(folders, workers, players),
            ),
            matches=matches,
            seed=seed,
            out=out,
            luck=True if luck else None,
            decisions=decisions,
        )
    if cfg.seed_drawn:
        cfg = _drawn_seed(cfg, resume)
    if cluster or cfg.cluster:  # a local cluster's workers load while the run prepares
        from mexsim.running.dask.cluster import start_workers_early

        start_workers_early(cluster or cfg.cluster)
    if cfg.requested_matches is not None:
        print(
            f"duplicate deals: {cfg.requested_matches:,} matches rounded up to "
            f"{cfg.matches:,} = {cfg.deals:,} deals x {cfg.table_size} seat rotations"
        )
    if cfg.pool:
        from mexsim.tournament.config import config_schedule

        warning = config_schedule(cfg).partial_cycle_warning(cfg.matches)
        if warning:
            print(f"mexsim: warning: {warning}", file=sys.stderr)
    return cfg


STARTUP_SHOWN = 5.0  # seconds of start-up and compiling worth naming in the result line


class _RunDisplay:
    """What `mexsim run` shows of a run: the progress bar, notes on stderr, the
    comparison's tables (written beside the results, printed at the end)."""

    def __init__(self, cfg: Any, quiet: bool) -> None:
        self.cfg, self.quiet = cfg, quiet
        self.bars: list = []  # made at the first finished block: after the output checks
        self.shown: list = []
        self.forecast: Any = None  # made as the run starts (mexsim/running/forecast.py)

    def progress(self, n: int) -> None:
        if not self.bars:
            from tqdm import tqdm

            self.bars.append(
                tqdm(
                    total=self.cfg.matches * len(self.cfg.variant_names),
                    unit="match",
                    disable=self.quiet,
                    dynamic_ncols=True,
                )
            )
        self.bars[0].update(n)
        line = self.forecast.update(n) if self.forecast else None
        if line and not self.quiet:
            self.note(line)

    def note(self, line: str) -> None:
        text = f"mexsim: {' '.join(line.split())}"
        if self.bars and sys.stderr.isatty():  # above the bar, which is redrawn below
            self.bars[0].write(text, file=sys.stderr)
        elif self.bars and not self.bars[0].disable:  # a log: after the bar's line, not
            print(f"\n{text}", file=sys.stderr)  # glued to it
        else:
            print(text, file=sys.stderr)

    def write_summary(self, folder: Path, statistics: Any) -> None:
        from mexsim.analysis.comparison import analyze_run

        analysis = analyze_run(self.cfg, statistics)
        analysis.write(folder)
        self.shown.append(analysis)

    def play(self, options: Any, started: float) -> Any:
        from mexsim.errors import Interrupted
        from mexsim.game.stall_watch import StrategyStalled
        from mexsim.running.forecast import Forecast
        from mexsim.running.runner import RunHooks
        from mexsim.running.runner import run as run_matches

        total = self.cfg.matches * len(self.cfg.variant_names)
        self.forecast = Forecast(total, options.workers, at_most=options.until is not None)
        hooks = RunHooks(self.progress, self.write_summary, self.note)
        try:
            with compile_notice(self.quiet):  # the engine, when it was never compiled
                return run_matches(self.cfg, self.cfg.out, options, hooks, started)
        except (Interrupted, StrategyStalled) as exc:
            for bar in self.bars:
                bar.close()
            said = " ".join(str(exc).split())
            # a stop the user asked for is said plainly (_fail); a stuck strategy is an error
            kind = "" if isinstance(exc, Interrupted) else "error: "
            print(f"mexsim: {kind}{said}", file=sys.stderr, flush=True)
            sys.stdout.flush()
            # Worker threads may be stuck in a strategy's compiled code, which nothing can
            # interrupt: end the process without joining them (the runner has cleaned up).
            from mexsim.running.exit_now import exit_now

            exit_now(RUN_ERROR if isinstance(exc, StrategyStalled) else SIGNALLED + exc.signum)
        finally:
            for bar in self.bars:
                bar.close()

    def print_result(self, result: Any) -> None:
        rate = f"{result.matches_per_second:,.0f} matches/s" if result.played else "all resumed"
        noun = "match" if result.matches == 1 else "matches"
        cfg = self.cfg
        # what the rest of the wall time went to, when it is worth saying: a first run
        # spends most of it compiling ("148.5 s (play 22.5 s …)" said nothing)
        rest = result.wall_seconds - result.play_seconds - result.summary_seconds
        startup = f", start-up and compiling {rest:.1f} s" if rest >= STARTUP_SHOWN else ""
        variants = len(cfg.variants)
        what = (
            f"{variants} rule variants x {result.matches:,} {noun}"
            if variants
            else (f"{result.matches:,} {noun}")
        )
        print(
            f"{what} in {result.wall_seconds:.1f} s (play "
            f"{result.play_seconds:.1f} s, summary {result.summary_seconds:.1f} s{startup}; "
            f"{rate}, {result.workers} worker{'s' if result.workers != 1 else ''}) -> "
            f"{result.directory}"
        )
        if self.quiet:  # the one-line result; the tables are in the folder
            return
        if cfg.pool:
            from mexsim.tournament.config import config_schedule

            cycle = config_schedule(cfg).cycle
            print(
                f"pool: {len(cfg.players)} players at tables of {cfg.table_size}; every pair "
                f"meets and every player sits in every seat equally often in each {cycle:,} "
                f"matches ({result.matches / cycle:,.2f} cycles played)"
            )
        print(self.shown[0].format())
        # what a new user can do next, with this run's own paths
        import shlex

        where, config = shlex.quote(str(result.directory)), shlex.quote(str(cfg.path))
        print(
            f"\nnext: mexsim report {where}  (plots)  ·  mexsim replay {config} "
            "--match 0  (one match, move by move)  ·  mexsim strategies --new NAME  "
            "(a strategy of your own)"
        )


@app.command(cls=_Command)
def report(
    directory: Annotated[
        str,
        typer.Argument(
            metavar="DIR",
            help="A results directory: the single files (--out DIR) or the "
            "parts with manifest.json (--out file:///DIR); a path or "
            "a file:// URL.",
        ),
    ],
) -> None:
    """Print the comparison of a results directory again and write its plots (PNG)."""
    from mexsim.analysis.provenance import local_folder
    from mexsim.running.machine_limits import check_address_space

    check_address_space("report")
    folder = local_folder(directory)
    try:
        is_folder = folder.is_dir()
    except OSError as exc:  # a name too long, a folder not to be searched
        raise ConfigError(f"{folder}: not a results directory ({exc.strerror})") from None
    if not is_folder:
        raise ConfigError(f"{folder}: not a results directory (no such folder)")
    from mexsim.store.results_folder import OutputLock

    # no run may replace the folder while it is read and its plots written (row 7); a
    # folder whose parent takes no lock file takes no run either
    lock = OutputLock(folder, reading=True)
    with contextlib.suppress(OSError):  # not taken: lock.fd stays None, release is a no-op
        lock.acquire()
    try:
        _report(folder)
    finally:
        lock.release()


def _caption(folder: Path) -> str:
    """Which run a plot shows: its folder, matches, seed and rules (from its run.json,
    which check_results has read already)."""
    try:
        record = json.loads((folder / "run.json").read_text(encoding="utf-8"))
        rules = record["config"]["rules"].get("preset") or "custom rules"
        return (
            f"{folder.resolve().name}: {record['matches']:,} matches, seed {record['seed']}, "
            f"{rules}, mexsim {record['mexsim_version']}"
        )
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return folder.resolve().name


def _report(folder: Path) -> None:
    from mexsim.tune.names import is_study_folder

    if is_study_folder(folder):
        from mexsim.tune.command import report_study

        study = report_study(folder)  # a study's folder (mexsim tune)
        for line in [*study.lines, *(f"wrote {path}" for path in study.written)]:
            print(line)
        return
    from mexsim.analysis.provenance import check_results

    check_results(folder)  # either form: single files, or parts listed by a manifest
    import pyarrow as pa

    from mexsim.analysis.comparison import analyze_directory
    from mexsim.analysis.plots import plot_digest

    try:  # streamed by row group: memory does not grow with the number of matches
        analysis, digest = analyze_directory(folder)
    except (OSError, pa.ArrowException, ValueError, KeyError) as exc:
        raise ConfigError(f"{folder}: results cannot be read ({exc})") from exc
    print(analysis.format())
    try:
        written = plot_digest(folder, digest, analysis, _caption(folder))
    except OSError as exc:
        raise OutputError(
            f"{exc.filename or folder}: cannot write the plots "
            f"({exc.strerror or exc}); the tables above are complete"
        ) from None
    for path in written:
        print(f"wrote {path}")


@app.command(cls=_Command)
def replay(
    config: Annotated[
        Path,
        typer.Argument(
            metavar="CONFIG.toml|TRACE.jsonl",
            help="Run configuration (TOML), or a match's trace to show (mexsim play's record).",
        ),
    ],
    match: Annotated[
        int | None,
        typer.Option(
            "--match", min=0, max=MAX_MATCHES - 1, help="Match index K to replay (0-based)."
        ),
    ] = None,
    seed: SeedOpt = None,
    fmt: Annotated[
        TraceFormat,
        typer.Option("--format", help="text: readable account; jsonl: the trace format."),
    ] = TraceFormat.text,
    strategies: StrategiesOpt = None,
    moves: Annotated[
        bool,
        typer.Option(
            "--moves",
            metavar="",
            help="text: after each play, the legal moves offered (* = chosen; "
            "'forced' when only one) and why, as the strategy explains it (> lines).",
        ),
    ] = False,
    variant: Annotated[
        str | None,
        typer.Option(
            "--variant",
            metavar="NAME",
            help="With rule variants: the variant whose rules the match is played "
            "under (default: the baseline, the first).",
        ),
    ] = None,
    decision_limit: DecisionLimitOpt = None,
    round_: Annotated[
        int | None,
        typer.Option("--round", min=0, max=100, help="Show only this round (0-based)."),
    ] = None,
) -> None:
    """Replay match K of a config (same seeds as `run`), printing every event; or show a
    recorded trace (TRACE.jsonl, checked by the referee)."""
    if config.suffix == ".jsonl":
        _show_trace(config, fmt, match, moves, round_)
        return
    if match is None:
        raise ConfigError("--match K is required: which match of the config to replay")
    from mexsim.running.machine_limits import check_address_space

    check_address_space("replay")
    check_overrides(seed=seed)
    with compile_notice():
        cfg = with_overrides(load_config(config, strategy_dirs=strategies or ()), seed=seed)
    if cfg.seed_drawn:
        raise ConfigError(
            f'{cfg.path}: seed = "random" draws a new seed each run: replay a run\'s match '
            'with --seed N, the "seed" of its run.json'
        )
    if match >= cfg.matches:
        raise ConfigError(
            f"--match {match} is out of range: {cfg.path} plays {cfg.matches} matches "
            f"(allowed: 0..{cfg.matches - 1})"
        )
    if moves and fmt is not TraceFormat.text:
        raise ConfigError(
            "--moves shows the legal moves in the text format only "
            "(drop --format jsonl, or --moves)"
        )
    from mexsim.game.stall_watch import DECISION_LIMIT, StrategyStalled, run_watched
    from mexsim.tournament.replay import trace_match  # heavy: the numba engine

    variant_index = _variant_index(cfg, variant)
    try:
        with compile_notice():
            events = run_watched(
                lambda: trace_match(cfg, match, variant_index, explained=moves),
                DECISION_LIMIT if decision_limit is None else decision_limit,
            )
    except StrategyStalled as exc:  # its thread cannot be stopped: end without it
        from mexsim.running.exit_now import exit_now

        print(f"mexsim: error: {exc}", file=sys.stderr, flush=True)
        exit_now(RUN_ERROR)
    _print_trace(events, fmt, moves, round_)


def _print_trace(events: list, fmt: TraceFormat, moves: bool, round_: int | None) -> None:
    """A match's events as replay prints them: the whole match, or ``round_`` only."""
    from mexsim.game.referee import offered_moves

    offered = offered_moves(events) if moves and fmt is TraceFormat.text else None
    if round_ is not None:
        rounds = 1 + max((int(ev.get("round", -1)) for ev in events), default=-1)
        if round_ >= rounds:
            raise ConfigError(
                f"--round {round_} is not played: the match has rounds 0..{rounds - 1}"
            )
        kept = [k for k, ev in enumerate(events) if k == 0 or ev.get("round") == round_]
        offered = {kept.index(k): v for k, v in (offered or {}).items() if k in kept} or None
        before = [0] * len(events[0].get("players", []))
        for ev in events:
            if ev.get("event") == "round_end" and ev["round"] < round_:
                before = [a + b for a, b in zip(before, ev["penalties"], strict=False)]
        events = [events[k] for k in kept]
    else:
        before = None
    if fmt is TraceFormat.jsonl:
        text = "".join(json.dumps(ev, separators=(",", ":")) + "\n" for ev in events)
    else:
        text = render_text(events, offered, before)
    sys.stdout.write(text)
    sys.stdout.flush()


def _show_trace(
    path: Path, fmt: TraceFormat, match: int | None, moves: bool, round_: int | None
) -> None:
    """`mexsim replay TRACE.jsonl`: a recorded match, as replay shows a config's."""
    from mexsim.analysis.decision_review import read_trace

    if match is not None:
        raise ConfigError(f"--match is a config's: {path} is one match's trace already")
    if moves and fmt is not TraceFormat.text:
        raise ConfigError(
            "--moves shows the legal moves in the text format only "
            "(drop --format jsonl, or --moves)"
        )
    _print_trace(read_trace(path), fmt, moves, round_)


def _variant_index(cfg: Any, name: str | None) -> int:
    """The index of ``--variant NAME`` among the config's rule variants (0: none given)."""
    if name is None:
        return 0
    names = list(cfg.variant_names) if cfg.variants else []
    if name not in names:
        allowed = ", ".join(repr(n) for n in names) if names else "none: it has no [[variants]]"
        raise ConfigError(
            f"--variant {name!r} is not a rule variant of {cfg.path} (allowed: {allowed})"
        )
    return names.index(name)


@app.command(cls=_Command)
def play(
    config: Annotated[
        Path | None,
        typer.Argument(metavar="[CONFIG.toml]", help="The config whose match you sit at."),
    ] = None,
    seat: Annotated[
        int | None, typer.Option("--seat", min=0, help="Your seat (0-based; default 0).")
    ] = None,
    match: Annotated[
        int | None,
        typer.Option(
            "--match",
            min=0,
            max=MAX_MATCHES - 1,
            help="The match K `mexsim run` plays (default 0).",
        ),
    ] = None,
    record: Annotated[
        Path | None,
        typer.Option(
            "--record",
            metavar="FILE",
            help="Where the game is kept (default games/CONFIG-matchK-seatN.jsonl).",
        ),
    ] = None,
    resume: Annotated[
        Path | None,
        typer.Option("--resume", metavar="FILE", help="Continue the game kept in FILE."),
    ] = None,
    strategies: StrategiesOpt = None,
    variant: Annotated[
        str | None,
        typer.Option(
            "--variant",
            metavar="NAME",
            help="With rule variants: the variant whose rules you play (default: the first).",
        ),
    ] = None,
) -> None:
    """Sit at a config's match yourself: the other seats play their strategies.

    Type a move's number and Enter; h: a hint (each move's expected penalty); q: quit,
    the game kept for --resume. After each round your decisions are rated."""
    from mexsim.person.launch import play as play_game

    play_game(config, seat, match, record, resume, tuple(strategies or ()), variant, compile_notice)


@app.command(cls=_Command)
def analyze(
    trace: Annotated[
        Path,
        typer.Argument(
            metavar="TRACE.jsonl",
            help="A match's trace: mexsim play's record, or mexsim replay --format jsonl.",
        ),
    ],
    seat: Annotated[
        int | None, typer.Option("--seat", min=0, help="Rate this seat's decisions only.")
    ] = None,
    worlds: Annotated[
        int,
        typer.Option(
            "--worlds", min=2, max=100_000, help="Worlds each legal move is played out in."
        ),
    ] = 1000,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            metavar="DIR",
            help="Where analysis.csv and the plot go (default: TRACE's folder, TRACE-analysis/).",
        ),
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", metavar="", help="No progress bar.")] = False,
) -> None:
    """Rate every decision of a recorded match: each legal move's expected round penalty
    in worlds that agree with what its seat saw, and the expected points the choice lost."""
    from mexsim.analysis.decision_review import analyze as rate_trace

    bars: list = []

    def progress(total: int, n: int) -> None:
        if not bars:
            from tqdm import tqdm

            bars.append(tqdm(total=total, unit="decision", disable=quiet, dynamic_ncols=True))
        bars[0].update(n)

    with compile_notice():
        lines, written = rate_trace(trace, seat, worlds, out, progress)
    if bars:
        bars[0].close()
    for line in lines:
        print(line)
    for path in written:
        print(f"wrote {path}")


@app.command(cls=_Command)
def tune(
    config: ConfigArg,
    out: Annotated[
        str | None,
        typer.Option(
            metavar="DIR",
            help="The study's folder (default: tune.out, or run.out with -tune added).",
        ),
    ] = None,
    trials: Annotated[int | None, typer.Option(min=1, help="Override tune.trials.")] = None,
    matches: Annotated[
        int | None, typer.Option(min=10, help="Override tune.matches (a trial's matches).")
    ] = None,
    seed: SeedOpt = None,
    workers: Annotated[
        int | None, typer.Option(min=1, help="Threads playing matches (default: all cores).")
    ] = None,
    fresh: Annotated[
        bool,
        typer.Option("--fresh", metavar="", help="Start the study again, replacing the one kept."),
    ] = False,
    cluster: Annotated[
        str | None,
        typer.Option(
            help="Play the trials on a Dask cluster: local:N or a scheduler address; "
            "overrides run.cluster."
        ),
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", metavar="", help="Only the verdict.")] = False,
    strategies: StrategiesOpt = None,
    decision_limit: DecisionLimitOpt = None,
) -> None:
    """Find a player's best parameters (the config's tune table) with Optuna, then
    validate them on fresh deals; stopped, the same command continues the study."""
    import os

    from mexsim.errors import Interrupted
    from mexsim.game.stall_watch import DECISION_LIMIT, StrategyStalled
    from mexsim.tune.command import read_settings, settle_seed, tune_study, tuning_for

    settings = read_settings(config, trials, matches)
    check_overrides(seed=seed, out=out)
    if cluster:  # refused before a cold compile, not after it
        from mexsim.running.dask.cluster import parse_address

        parse_address(cluster)
    with compile_notice(quiet):
        from mexsim.running.warmup import warm_up

        cfg = load_config(
            config,
            strategy_dirs=strategies or (),
            before_strategies=lambda folders, players: warm_up(folders, workers, players),
        )
    cfg = with_overrides(cfg, seed=seed)
    limit = DECISION_LIMIT if decision_limit is None else decision_limit
    tuning = tuning_for(cfg, settings, out, workers or os.cpu_count() or 1, limit)

    def say(line: str) -> None:
        if not quiet:
            print(line, flush=True)

    said = settle_seed(tuning, cfg.seed_drawn and seed is None, fresh)
    if said:  # on stderr, as `mexsim run` says a drawn seed: --quiet too
        print(f"mexsim: {said}", file=sys.stderr, flush=True)

    try:
        with compile_notice(quiet):
            report = tune_study(tuning, fresh, say, cluster=cluster or cfg.cluster)
    except (Interrupted, StrategyStalled) as exc:
        kind = "" if isinstance(exc, Interrupted) else "error: "
        print(f"mexsim: {kind}{' '.join(str(exc).split())}", file=sys.stderr, flush=True)
        sys.stdout.flush()
        from mexsim.running.exit_now import exit_now  # threads may be stuck in a decide

        exit_now(RUN_ERROR if isinstance(exc, StrategyStalled) else SIGNALLED + exc.signum)
    for line in report.lines:
        print(line)
    for path in report.written:
        print(f"wrote {path}")


@app.command("init", cls=_Command)
def init(
    directory: Annotated[
        str,
        typer.Argument(metavar="DIR", help="The folder to write into (created if need be)."),
    ] = ".",
) -> None:
    """Start a project: a config with a strategy of your own, and the example configs.

    Writes a runnable mexsim.toml, the starter strategy and the example configs into
    DIR; never overwrites a file."""
    import shlex

    from mexsim.tournament.starter_project import CONFIG, STRATEGY, write_project

    folder = Path(directory)
    written = write_project(folder)
    for path in written[:2]:
        print(f"wrote {path}")
    print(f"wrote {len(written) - 2} example configs into {folder / 'examples'}")
    where = "" if folder == Path(".") else f"cd {shlex.quote(str(folder))} && "
    print(
        f"next: {where}mexsim check {STRATEGY}  ·  mexsim run {CONFIG}  ·  "
        f"mexsim replay {CONFIG} --match 0"
    )


@app.command("strategies", cls=_Command)
def list_strategies(
    strategies: StrategiesOpt = None,
    new: Annotated[
        str | None,
        typer.Option(
            "--new",
            metavar="NAME",
            help="Write a commented starter strategy NAME.py into ./strategies (or the "
            "--strategies folder) instead of listing; never overwrites.",
        ),
    ] = None,
) -> None:
    """List the strategies found, with their descriptions, parameters and defaults."""
    if new is not None:
        from mexsim.strategy.starter import write_starter  # text only: no numba

        if strategies and len(strategies) > 1:
            raise ConfigError("--new writes into one folder: give at most one --strategies")
        folder = strategies[0] if strategies else Path("strategies")
        path = write_starter(new, folder)
        print(
            f"wrote {path}: edit it, then `mexsim check {new}"
            f"{'' if not strategies else f' --strategies {folder}'}`"
        )
        return
    from mexsim.running.machine_limits import check_address_space

    check_address_space("strategies")
    from mexsim.strategy.registry import (  # compiles the strategies
        available_strategies,
        refuse_missing_folders,
        strategy_dirs,
    )

    refuse_missing_folders(strategy_dirs(strategies or ()))  # before a cold compile
    # no warm-up: listing plays nothing, and a shipped strategy compiles when first
    # needed; only a file of yours compiles as it loads (a first run's warm-up compiled
    # the engine and every built-in here: 35 s for a list)
    with compile_notice():
        found = available_strategies(strategies or ())
    width = max((len(name) for name in found), default=0)
    for name in sorted(found):
        info = found[name]
        params = (
            ", ".join(
                f"{k} = {v:g}"
                + (" ({:g}..{:g}".format(*info.bounds[k]) if k in info.bounds else "")
                + (" or a strategy's name" if k == info.named_param else "")
                + (")" if k in info.bounds else "")
                for k, v in info.params.items()
            )
            or "none"
        )
        print(f"{name:<{width}}  {info.description}")
        print(f"{'':<{width}}  params: {params}")
        print(f"{'':<{width}}  file:   {_shown_path(info.path)}")


def _shown_path(path: str) -> str:
    """A file name as one printable line: a newline, or bytes that are not UTF-8 (their
    surrogate escapes, which a strict UTF-8 stdout cannot encode), written as escapes."""
    return path if path.isprintable() else path.encode("unicode_escape").decode("ascii")


@app.command(cls=_Command)
def check(
    strategy: Annotated[
        str,
        typer.Argument(
            metavar="STRATEGY", help="A strategy name, or the path of a strategy .py file."
        ),
    ],
    strategies: StrategiesOpt = None,
    examples: Annotated[int, typer.Option(min=1, help="Drawn games (rounds) to check it on.")] = 50,
    seed: Annotated[int, typer.Option(min=0, help="Seed of the drawing (hypothesis).")] = 0,
) -> None:
    """Check a strategy against the contract: legal, in bounds, deterministic, timed.

    Exit 0 when it passes, 1 when a check fails (the check, the cause and the shrunk
    game state are printed, as text and JSON)."""
    from mexsim.running.machine_limits import check_address_space

    check_address_space("check")
    from mexsim.testing import check_strategy, format_report  # heavy: numba, hypothesis

    with compile_notice():  # the strategy's file, before the checks print anything
        report = check_strategy(strategy, strategies or (), examples=examples, seed=seed)
    interrupts.raise_if_received()  # a stop signal swallowed while it compiled: no verdict
    print(format_report(report))
    if not report.passed:
        sys.exit(RUN_ERROR)
