"""``mexsim tune CONFIG``: the steps the command line takes, from the [tune] table to the
verdict (mexsim/cli.py only parses the flags and shows what this returns)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TypeVar

from mexsim.errors import ConfigError, Interrupted
from mexsim.run.stop_signals import Stop, StopSignals
from mexsim.strategy.registry import available_strategies
from mexsim.tournament.config import Config, played_strategies, read_toml, with_overrides
from mexsim.tune.outputs import (
    BEST,
    WRITTEN,
    best_config,
    plot_study,
    replace_file,
    write_trials,
    write_verdict,
)
from mexsim.tune.settings import TuneSettings, fit_to_player, read_tune
from mexsim.tune.study import (
    DATABASE,
    Trial,
    Tuning,
    best_trial,
    finished_trials,
    open_study,
    optuna_module,
    run_study,
)
from mexsim.tune.verdict import params_text, validate, verdict_lines

T = TypeVar("T")


def read_settings(
    path: Path, trials: int | None = None, matches: int | None = None
) -> TuneSettings:
    """The config file's [tune] table, checked before any strategy compiles, with the
    command line's --trials and --matches over it."""
    table = read_toml(path).get("tune")
    if isinstance(table, dict):
        table = dict(table)
        if trials is not None:
            table["trials"] = trials
        if matches is not None:
            table["matches"] = matches
    return read_tune(str(path), table)


def tuning_for(
    config: Config,
    settings: TuneSettings,
    out: str | None,
    workers: int,
    decision_limit: float,
) -> Tuning:
    """The study's setting: its config checked for what tuning needs, a trial's size as
    its matches."""
    where = config.path
    if config.variants:
        raise ConfigError(
            f"{where}: mexsim tune plays one set of rules, and this config has "
            f"[[variants]]: put the variant to tune for in [rules]"
        )
    if config.pool:
        raise ConfigError(
            f"{where}: mexsim tune needs every player at the table ({len(config.players)} "
            f"players, tables of {config.table_size}): list at most {config.table_size} players"
        )
    spec = next((p for p in config.players if p.name == settings.player), None)
    if spec is not None and spec.sweep:
        raise ConfigError(
            f"{where} [tune]: player {settings.player!r} sweeps {', '.join(spec.swept)}: "
            "give the tuned player single values (the study varies them)"
        )
    known = available_strategies(config.strategy_dirs, played_strategies(config.players))
    players = {p.name: p.strategy for p in config.players}
    if spec is not None:
        info = known[spec.strategy]
        settings = fit_to_player(
            where, settings, players, info.params, info.bounds, info.named_param
        )
    else:
        settings = fit_to_player(where, settings, players, {}, {}, None)
    trial_config = with_overrides(config, matches=settings.matches)
    if trial_config.requested_matches is not None:  # whole deals: every rotation played
        settings = replace(settings, matches=trial_config.matches)
    folder = Path(out or settings.out or f"{config.out}-tune")
    return Tuning(trial_config, settings, folder, workers, decision_limit)


def claim_folder(folder: Path, fresh: bool) -> bool:
    """Make ``folder`` the study's, and say whether a study is there to continue. A
    folder holding anything but a study is never written into."""
    if folder.exists() and not folder.is_dir():
        raise ConfigError(f"{folder}: not a folder; choose another --out for the study")
    study = folder / DATABASE
    if folder.is_dir() and not study.is_file() and any(folder.iterdir()):
        raise ConfigError(
            f"{folder}: holds files but no study ({DATABASE}); mexsim tune writes only into "
            "a new folder or one of its own studies: choose another --out"
        )
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        from mexsim.errors import OutputError

        raise OutputError(
            f"{folder}: cannot make the study's folder ({exc.strerror or exc})"
        ) from None
    if fresh:
        for name in (DATABASE, *WRITTEN):
            (folder / name).unlink(missing_ok=True)
        return False
    return study.is_file()


@dataclass
class TuneReport:
    lines: list[str]
    written: list[Path]


def tune_study(
    tuning: Tuning,
    fresh: bool,
    say: Callable[[str], None],
    progress: Callable[[int], None] = lambda n: None,
    cluster: str | None = None,
) -> TuneReport:
    """Run (or continue) the study, on ``cluster`` (a Dask address, local:N) when given,
    then validate its best: what to print and the files written."""
    optuna_module()
    folder = tuning.folder
    continuing = claim_folder(folder, fresh)
    study = open_study(tuning, fresh)
    if cluster is None:
        return _tune(tuning, study, continuing, say, progress)
    from mexsim.run.dask.cluster import ClusterPlayer

    tuning.cluster = ClusterPlayer(cluster, tuning.config)
    try:
        say(f"playing on {tuning.cluster.workers} Dask workers")
        return _tune(tuning, study, continuing, say, progress)
    finally:
        tuning.cluster.close()
        tuning.cluster = None


def _tune(
    tuning: Tuning,
    study: Any,
    continuing: bool,
    say: Callable[[str], None],
    progress: Callable[[int], None],
) -> TuneReport:
    folder = tuning.folder
    names = [p.name for p in tuning.settings.params]
    kept = finished_trials(study)
    if continuing:
        say(f"continuing the study in {folder}: {len(kept)} finished trials kept")

    def on_trial(trials: list[Trial]) -> None:
        write_trials(folder, trials, names)
        t = trials[-1]
        how = f"stopped early at {t.matches:,} matches" if t.pruned else f"{t.matches:,} matches"
        say(f"trial {t.index}: {params_text(t.params)} -> {t.value:+.2f} points a match ({how})")

    trials = run_study(tuning, study, on_trial, progress)
    if not trials:
        raise ConfigError(f"{folder}: the budget allowed no trial")
    written = [write_trials(folder, trials, names)]
    best = best_trial(trials)
    if best is None:
        raise ConfigError(
            f"{folder}: every trial was stopped early; raise 'trials' or set prune = false"
        )
    validation = None
    if tuning.settings.validate:
        say(f"validating trial {best.index} on {tuning.settings.validate:,} fresh matches")
        validation = _interruptible(
            lambda: validate(tuning, best, progress),
            f"stopped during the validation: the study's {len(trials)} trials are kept in "
            f"{folder / DATABASE}; the same command validates again",
        )
    lines = verdict_lines(tuning, trials, best, validation)
    best_path = folder / BEST
    replace_file(
        best_path,
        best_config(tuning.config.path, tuning.tuned, best.params, str(folder / "best-run")),
    )
    facts = {
        "player": tuning.settings.player,
        "best_trial": best.index,
        "best": best.params,
        "trials": len(trials),
        "validation": validation.as_dict() if validation else None,
    }
    written += [best_path, write_verdict(folder, lines, facts)]
    written += plot_study(folder, trials, names, f"{folder.resolve().name}: {len(trials)} trials")
    return TuneReport(lines, written)


def _interruptible(work: Callable[[], T], stopped: str) -> T:
    """``work()``, a stop signal during it raising Interrupted(``stopped``)."""
    signals = StopSignals()
    signals.install()
    try:
        return work()
    except Stop as stop:
        raise Interrupted(stopped, stop.signum) from None
    finally:
        signals.restore()


def report_study(folder: Path) -> TuneReport:
    """``mexsim report`` on a study's folder: its verdict again, its plots redrawn."""
    from mexsim.tune.outputs import read_verdict

    try:
        facts = read_verdict(folder)
        lines = [str(line) for line in facts["verdict"]]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ConfigError(f"{folder}: the study's verdict cannot be read ({exc})") from None
    optuna = optuna_module()
    storage = optuna.storages.RDBStorage(f"sqlite:///{folder / DATABASE}")
    from mexsim.tune.study import STUDY_NAME

    study = optuna.load_study(study_name=STUDY_NAME, storage=storage)
    trials = finished_trials(study)
    names = list(trials[0].params) if trials else []
    written = plot_study(folder, trials, names, f"{folder.resolve().name}: {len(trials)} trials")
    return TuneReport(lines, written)
