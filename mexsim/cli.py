"""The ``mexsim`` command line (docs/interface.md, "Commands"): parse, delegate, print.

Heavy modules (numba, numpy, pandas, pyarrow, the engine) are imported inside the
command that needs them, so ``mexsim --help`` stays instant. A configuration or usage
error is one line ``mexsim: error: …`` on stderr and exit status 2, never a traceback.
"""

from __future__ import annotations

import json
import sys
import warnings
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer
from typer.core import TyperGroup

from mexsim.errors import ConfigError, StrategyError, StrategyFileWarning
from mexsim.game.render import render_text
from mexsim.tournament.config import MAX_SEED, load_config, with_overrides

try:  # typer >= 0.2x vendors click as typer._click
    from typer._click.exceptions import ClickException
except ImportError:  # pragma: no cover - older typer depends on click itself
    from click.exceptions import ClickException  # type: ignore[no-redef]

USAGE_ERROR = 2
RUN_ERROR = 1
INTERRUPTED = 130


def _fail(message: str, status: int = USAGE_ERROR) -> None:
    text = " ".join(message.split())
    print(f"mexsim: error: {text}", file=sys.stderr)
    sys.exit(status)


_python_show_warning = warnings.showwarning


def _show_warning(message: Warning | str, category: type[Warning], filename: str,
                  lineno: int, file: Any = None, line: str | None = None) -> None:
    """A skipped strategy file as one line on stderr (other warnings as Python shows them)."""
    if issubclass(category, StrategyFileWarning):
        text = " ".join(str(message).split())
        print(f"mexsim: warning: {text}", file=sys.stderr)
    else:
        _python_show_warning(message, category, filename, lineno, file, line)


class _Group(TyperGroup):
    """Turns ConfigError and click usage errors into one line on stderr and exit status 2."""

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
        warnings.showwarning = _show_warning
        try:
            status = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except ConfigError as exc:
            _fail(str(exc))
        except StrategyError as exc:  # a strategy misbehaved while playing
            _fail(str(exc), status=RUN_ERROR)
        except ClickException as exc:
            if type(exc).__name__ == "NoArgsIsHelpError":  # bare `mexsim`: show the help
                help_text = exc.format_message()  # empty when rich has printed it already
                if help_text.strip():
                    print(help_text, file=sys.stderr)
                sys.exit(USAGE_ERROR)
            _fail(exc.format_message())
        except typer.Abort:
            _fail("aborted", status=1)
        sys.exit(status if isinstance(status, int) else 0)


app = typer.Typer(
    cls=_Group,
    name="mexsim",
    help="Tournament simulator for the domino game Mexican Train.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.callback()
def _main() -> None:
    """Tournament simulator for the domino game Mexican Train (rules: docs/rules.md)."""


class TraceFormat(StrEnum):
    text = "text"
    jsonl = "jsonl"


ConfigArg = Annotated[
    Path, typer.Argument(metavar="CONFIG.toml", help="Run configuration (TOML).")
]
StrategiesOpt = Annotated[
    list[Path] | None,
    typer.Option("--strategies", metavar="DIR",
                 help="A further folder of strategy files (repeatable)."),
]
SeedOpt = Annotated[
    int | None,
    typer.Option(
        min=0, max=MAX_SEED, help="Override the config's run.seed (match k depends on seed, k)."
    ),
]


@app.command()
def run(
    config: ConfigArg,
    matches: Annotated[int | None, typer.Option(min=1, help="Override run.matches.")] = None,
    seed: SeedOpt = None,
    out: Annotated[Path | None, typer.Option(help="Override run.out (results directory).")
                   ] = None,
    workers: Annotated[int | None, typer.Option(
        min=1, help="Threads playing matches (default: all cores).")] = None,
    force: Annotated[bool, typer.Option(
        "--force", help="Replace an existing results directory.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", help="No progress bar.")] = False,
    strategies: StrategiesOpt = None,
) -> None:
    """Play the matches, write the results directory, print the comparison."""
    import os

    cfg = with_overrides(load_config(config, strategy_dirs=strategies or ()),
                         matches=matches, seed=seed, out=str(out) if out else None)
    if cfg.requested_matches is not None:
        print(f"duplicate deals: {cfg.requested_matches:,} matches rounded up to "
              f"{cfg.matches:,} = {cfg.deals:,} deals x {cfg.table_size} seat rotations")
    from tqdm import tqdm

    from mexsim.analysis.comparison import analyze, config_sweeps
    from mexsim.tournament.runner import Interrupted
    from mexsim.tournament.runner import run as run_matches

    names = [p.name for p in cfg.players]
    kinds = [p.strategy for p in cfg.players]
    shown: list = []

    def write_summary(folder: Path, totals, deals) -> None:
        analysis = analyze(totals, deals, names, kinds, config_sweeps(cfg.players),
                           cfg.rules.rounds)
        analysis.write(folder)
        shown.append(analysis)

    bars: list = []  # made at the first finished block: after the output checks passed

    def progress(n: int) -> None:
        if not bars:
            bars.append(tqdm(total=cfg.matches, unit="match", disable=quiet,
                             dynamic_ncols=True))
        bars[0].update(n)

    try:
        result = run_matches(cfg, Path(cfg.out), workers or os.cpu_count() or 1, force=force,
                             progress=progress, summarize=write_summary)
    except Interrupted as exc:
        _fail(str(exc), status=INTERRUPTED)
    finally:
        for bar in bars:
            bar.close()
    print(f"{result.matches:,} matches in {result.wall_seconds:.1f} s "
          f"({result.matches_per_second:,.0f} matches/s, {result.workers} workers) "
          f"-> {result.directory}")
    if cfg.pool:
        from mexsim.tournament.config import config_schedule

        cycle = config_schedule(cfg).cycle
        print(f"pool: {len(cfg.players)} players at tables of {cfg.table_size}; every pair "
              f"meets and every player sits in every seat equally often in each {cycle:,} "
              f"matches ({result.matches / cycle:,.2f} cycles played)")
    print(shown[0].format())


@app.command()
def report(
    directory: Annotated[Path, typer.Argument(metavar="DIR", help="A results directory.")],
) -> None:
    """Print the comparison of a results directory again and write its plots (PNG)."""
    for name in ("matches.parquet", "rounds.parquet"):
        if not (directory / name).exists():
            raise ConfigError(f"{directory}: not a results directory (no {name})")
    import pyarrow as pa

    from mexsim.analysis.comparison import analyze_results
    from mexsim.analysis.plots import write_plots
    from mexsim.analysis.summary import load_results

    try:
        matches, rounds = load_results(directory)
    except (OSError, pa.ArrowException) as exc:
        raise ConfigError(f"{directory}: results cannot be read ({exc})") from exc
    analysis = analyze_results(directory, matches, rounds)
    print(analysis.format())
    for path in write_plots(directory, matches, rounds, analysis.summary,
                            analysis.head_to_head):
        print(f"wrote {path}")


@app.command()
def replay(
    config: ConfigArg,
    match: Annotated[
        int, typer.Option("--match", min=0, help="Match index K to replay (0-based).")
    ],
    seed: SeedOpt = None,
    fmt: Annotated[
        TraceFormat,
        typer.Option("--format", help="text: readable account; jsonl: the trace format."),
    ] = TraceFormat.text,
    strategies: StrategiesOpt = None,
) -> None:
    """Replay match K of a config (same seeds as `run`), printing every event."""
    cfg = with_overrides(load_config(config, strategy_dirs=strategies or ()), seed=seed)
    if match >= cfg.matches:
        raise ConfigError(
            f"--match {match} is out of range: {cfg.path} plays {cfg.matches} matches "
            f"(allowed: 0..{cfg.matches - 1})"
        )
    from mexsim.tournament.replay import trace_match  # heavy: the numba engine

    events = trace_match(cfg, match)
    if fmt is TraceFormat.jsonl:
        text = "".join(json.dumps(ev, separators=(",", ":")) + "\n" for ev in events)
    else:
        text = render_text(events)
    sys.stdout.write(text)
    sys.stdout.flush()


@app.command("strategies")
def list_strategies(strategies: StrategiesOpt = None) -> None:
    """List the strategies found, with their descriptions, parameters and defaults."""
    from mexsim.strategy.registry import available_strategies  # compiles the strategies

    found = available_strategies(strategies or ())
    width = max((len(name) for name in found), default=0)
    for name in sorted(found):
        info = found[name]
        params = ", ".join(
            f"{k} = {v:g}" + (" ({:g}..{:g})".format(*info.bounds[k]) if k in info.bounds
                              else "")
            for k, v in info.params.items()) or "none"
        print(f"{name:<{width}}  {info.description}")
        print(f"{'':<{width}}  params: {params}")
        print(f"{'':<{width}}  file:   {info.path}")
