"""``mexsim tune CONFIG``: the steps the command line takes, from the [tune] table to the
verdict (mexsim/cli.py only parses the flags and shows what this returns)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TypeVar

from mexsim.errors import ConfigError, Interrupted, OutputError
from mexsim.running.stop_signals import Stop, StopSignals
from mexsim.strategy.registry import available_strategies
from mexsim.tournament.config import Config, played_strategies, read_toml, with_overrides
from mexsim.tune.names import BEST
from mexsim.tune.outputs import (
    best_config,
    plot_study,
    replace_file,
    write_trials,
    write_verdict,
)
from mexsim.tune.settings import TuneSettings, fit_to_player, read_tune
from mexsim.tune.study import (
    DATABASE,
    STUDY_NAME,
    Trial,
    Tuning,
    best_trial,
    finished_trials,
    kept_seed,
    mexsim_study,
    open_study,
    optuna_module,
    params_text,
    run_study,
    storage_url,
)
from mexsim.tune.study_folder import claimed, default_folder, held_by
from mexsim.tune.verdict import count, validate, verdict_lines

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
            f"{where}: mexsim tune plays one set of rules, and this config has rule "
            "variants ([[variants]], or a list of values in [rules]): give [rules] the "
            "single values to tune for"
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
    unit = config.table_size if config.duplicate else 1
    if 0 < settings.validate < 2 * unit:
        deals = f" ({unit} matches a deal)" if unit > 1 else ""
        raise ConfigError(
            f"{where} [tune]: 'validate' = {settings.validate} is too few matches for an "
            f"interval (allowed: 0 for none, or at least {2 * unit}: two deals{deals})"
        )
    folder = (
        Path(out) if out else Path(settings.out) if settings.out else default_folder(config.out)
    )
    return Tuning(trial_config, settings, folder, workers, decision_limit)


def settle_seed(tuning: Tuning, drawn: bool, fresh: bool = False) -> str | None:
    """A config's ``seed = "random"``: the seed of the study kept in the folder, when
    there is one to continue (a study goes on with the deals it began with), else the
    one drawn. Returns the line that says which (None when the seed was not drawn)."""
    if not drawn:
        return None
    kept = None if fresh else kept_seed(tuning.folder)
    if kept is not None:
        tuning.config = with_overrides(tuning.config, seed=kept)
        return f'seed = "random": continuing with the study\'s seed {kept}'
    return (
        f'seed = "random": drew seed {tuning.config.seed} (tune.json and best.toml keep '
        f"it; --seed {tuning.config.seed} plays the same study again)"
    )


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
    if cluster is None:
        with claimed(tuning.folder, fresh) as continuing, _storage_errors(tuning.folder):
            return _tune(tuning, open_study(tuning), continuing, say, progress)
    from mexsim.running.dask.cluster import ClusterPlayer

    tuning.cluster = ClusterPlayer(cluster, tuning.config)  # refused before any file
    try:
        with claimed(tuning.folder, fresh) as continuing, _storage_errors(tuning.folder):
            say(f"playing on {count(tuning.cluster.workers, 'Dask worker')}")
            return _tune(tuning, open_study(tuning), continuing, say, progress)
    finally:
        tuning.cluster.close()
        tuning.cluster = None


@contextlib.contextmanager
def _storage_errors(folder: Path) -> Iterator[None]:
    """A file the system refuses, or a database it cannot write: one line, exit 4."""
    from optuna.exceptions import StorageInternalError
    from sqlalchemy.exc import OperationalError

    try:
        yield
    except OSError as exc:
        raise OutputError(
            f"{exc.filename or folder}: cannot write ({exc.strerror or exc}); the study's "
            "finished trials are kept"
        ) from None
    except (OperationalError, StorageInternalError) as exc:
        cause = str(getattr(exc, "orig", None) or exc).splitlines()[0]
        raise OutputError(
            f"{folder / DATABASE}: the study's database cannot be written ({cause})"
        ) from None


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
    if continuing and kept:
        say(f"continuing the study in {folder}: {count(len(kept), 'finished trial')} kept")

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
        fresh_matches = with_overrides(tuning.config, matches=tuning.settings.validate).matches
        say(f"validating trial {best.index} on {fresh_matches:,} fresh matches")
        validation = _interruptible(
            lambda: validate(tuning, best, progress),
            f"stopped during the validation: the study's {len(trials)} trials are kept in "
            f"{folder / DATABASE}; the same command validates again",
        )
    lines = verdict_lines(tuning, trials, best, validation)
    best_path = folder / BEST
    replace_file(
        best_path,
        best_config(tuning.config, tuning.tuned, best.params, str(folder / "best-run")),
    )
    facts = {
        "player": tuning.settings.player,
        "best_trial": best.index,
        "best": best.params,
        "trials": len(trials),
        "seed": tuning.config.seed,
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
    """``mexsim report`` on a study's folder: its verdict again (or, for a study stopped
    before its end, how far it got), its plots redrawn. A missing or damaged database
    is said, and nothing is made in its place."""
    from mexsim.tune.names import VERDICT
    from mexsim.tune.outputs import read_verdict

    database = folder / DATABASE
    why = mexsim_study(database) if database.is_file() else "missing"
    if why is not None:
        raise ConfigError(f"{database}: the study's database is {why}; nothing to report")
    optuna = optuna_module()
    study = optuna.load_study(study_name=STUDY_NAME, storage=storage_url(database))
    trials = finished_trials(study)
    holder = held_by(folder)
    if holder is not None:
        lines = [
            f"{folder}: a study in play (mexsim tune, pid {holder}), "
            f"{count(len(trials), 'finished trial')} so far (tune.csv)"
        ]
    elif not (folder / VERDICT).is_file():
        lines = [
            f"{folder}: a study stopped before its end, {count(len(trials), 'finished trial')} "
            "(tune.csv) and no verdict yet: the same mexsim tune command continues it"
        ]
    else:
        try:
            facts = read_verdict(folder)
            lines = [str(line) for line in facts["verdict"]]
            judged = int(facts["trials"])
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise ConfigError(f"{folder}: the study's verdict cannot be read ({exc})") from None
        if judged != len(trials):
            lines.append(
                f"note: this verdict is of {count(judged, 'trial')}; the study has "
                f"{count(len(trials), 'finished trial')} since: the same mexsim tune command "
                "judges them"
            )
    if not trials:
        return TuneReport(lines, [])
    names = list(trials[0].params)
    with _storage_errors(folder):
        written = plot_study(
            folder, trials, names, f"{folder.resolve().name}: {len(trials)} trials"
        )
    return TuneReport(lines, written)
