"""``mexsim tune``'s study: Optuna proposes a player's parameters, each trial plays the
same matches, racing stops the clearly worse ones early, and the study is kept in
SQLite so that a stopped study goes on where it stopped.

Repeatable by construction: each trial's proposal comes from a sampler seeded with
(seed, number of finished trials) and from the finished trials alone, and a trial's
matches are those of the study's seed. So a study stopped with Ctrl-C (or killed) and
continued proposes, plays and keeps exactly what an uninterrupted one of the same size
does: a trial cut short is marked failed and played again from the start.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from mexsim.errors import ConfigError, Interrupted, StrategyError
from mexsim.running.dask.cluster import ClusterPlayer
from mexsim.running.stop_signals import Stop, StopSignals
from mexsim.strategy.policy import Policy
from mexsim.tournament.config import Config
from mexsim.tournament.identity import differences
from mexsim.tournament.lineup import player_policies
from mexsim.tournament.resolved import config_identity
from mexsim.tune.names import DATABASE
from mexsim.tune.racing import clearly_worse, rungs
from mexsim.tune.settings import ParamRange, TuneSettings
from mexsim.tune.trial_play import margins, player_totals

STUDY_NAME = "mexsim-tune"
IDENTITY_KEY = "mexsim_identity"


@dataclass(frozen=True)
class Trial:
    """A finished trial: its number among the finished (0, 1, …), its parameters, the
    matches it played and its per-match margins (mexsim/tune/trial_play.py)."""

    index: int
    params: dict[str, float]
    margins: np.ndarray
    pruned: bool

    @property
    def matches(self) -> int:
        return len(self.margins)

    @property
    def value(self) -> float:
        return float(self.margins.mean())


@dataclass
class Tuning:
    """What a study needs: the config its trials play (``matches`` = a trial's size),
    the settings, the tuned player's index, and where the study lives."""

    config: Config
    settings: TuneSettings
    folder: Path
    workers: int
    decision_limit: float
    cluster: ClusterPlayer | None = None  # trials played on Dask (--cluster)

    @property
    def tuned(self) -> int:
        return next(i for i, p in enumerate(self.config.players) if p.name == self.settings.player)

    def with_params(self, params: dict[str, float]) -> Config:
        """The config with the tuned player's parameters set to ``params``."""
        players = tuple(
            replace(p, params={**p.params, **params}) if i == self.tuned else p
            for i, p in enumerate(self.config.players)
        )
        return replace(self.config, players=players)

    def identity(self) -> dict[str, Any]:
        trial_config = replace(self.config, out="")
        return {"tune": self.settings.identity(), "run": config_identity(trial_config)}


def optuna_module() -> Any:
    try:
        import optuna
    except ImportError:
        raise ConfigError(
            "mexsim tune needs Optuna: pip install 'mexsim[tune]' (or pip install optuna)"
        ) from None
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    return optuna


def storage_url(path: Path) -> str:
    """The SQLite URL of ``path``, whatever its characters (a ``?`` or ``%`` in a folder's
    name is part of the name, not a query)."""
    from sqlalchemy.engine import URL

    return URL.create("sqlite", database=str(path.absolute())).render_as_string(False)


def mexsim_study(path: Path) -> str | None:
    """Why ``path`` is not a study mexsim made (not SQLite, another program's tables,
    other studies), or None when it is one — or one mexsim began and was stopped or
    killed before it was described (empty, Optuna's tables and no study, or its study
    with no trial). Only read: opening it rolls back a write a kill cut short, as any
    SQLite reader does, and changes nothing else."""
    import sqlite3

    if not path.is_file():
        return "not a file" if path.exists() else "missing"
    if path.stat().st_size == 0:
        return None  # made, and killed before SQLite wrote a page
    try:
        with contextlib.closing(sqlite3.connect(path, timeout=10)) as db:
            tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master")}
            if not tables:
                return None
            if "studies" not in tables:
                return "not an Optuna study database (no table of studies)"
            names = [row[0] for row in db.execute("SELECT study_name FROM studies")]
            if not names:
                return None
            if names != [STUDY_NAME]:
                return f"holds the studies {names}, not mexsim tune's alone ({STUDY_NAME!r})"
            described = db.execute(
                "SELECT COUNT(*) FROM study_user_attributes WHERE key = ?", (IDENTITY_KEY,)
            ).fetchone()[0]
            trials = db.execute("SELECT COUNT(*) FROM trials").fetchone()[0]
    except sqlite3.Error as exc:
        return f"not an Optuna study database ({exc})"
    if not described and trials:
        return f"holds a study named {STUDY_NAME!r} that mexsim did not make"
    return None


def open_study(tuning: Tuning) -> Any:
    """The study in ``tuning.folder``, made when there is none. A study made by another
    [tune] table or config is refused (one made but cut off before it was described is
    made again)."""
    optuna = optuna_module()
    path = tuning.folder / DATABASE
    storage = optuna.storages.RDBStorage(storage_url(path))
    identity = tuning.identity()
    names = [s.study_name for s in optuna.get_all_study_summaries(storage)]
    if STUDY_NAME in names:
        study = optuna.load_study(study_name=STUDY_NAME, storage=storage)
        kept = study.user_attrs.get(IDENTITY_KEY)
        if kept is None and not study.get_trials(deepcopy=False):
            study.set_user_attr(IDENTITY_KEY, identity)  # killed as it was made
            return study
        if kept != identity:
            changed = differences(kept or {}, identity)
            raise ConfigError(
                f"{path}: this study was made by another [tune] table or config "
                f"(changed: {changed}); continue it with the config it was made "
                "with, or start a new one with --out DIR or --fresh"
            )
        return study
    study = optuna.create_study(study_name=STUDY_NAME, storage=storage, direction="minimize")
    study.set_user_attr(IDENTITY_KEY, identity)
    return study


def kept_seed(folder: Path) -> int | None:
    """The seed of the study kept in ``folder`` (a config's ``seed = "random"`` is
    drawn once, at the study's start), or None."""
    path = folder / DATABASE
    if not path.is_file() or mexsim_study(path) is not None:
        return None
    optuna = optuna_module()
    study = optuna.load_study(study_name=STUDY_NAME, storage=storage_url(path))
    try:
        return int(study.user_attrs[IDENTITY_KEY]["run"]["config"]["run"]["seed"])
    except (KeyError, TypeError, ValueError):
        return None


def finished_trials(study: Any) -> list[Trial]:
    """The study's complete and pruned trials, in the order they finished."""
    from optuna.trial import TrialState

    kept = study.get_trials(deepcopy=False, states=(TrialState.COMPLETE, TrialState.PRUNED))
    return [
        Trial(i, dict(t.params), _unpacked(t.user_attrs["margins"]), t.state == TrialState.PRUNED)
        for i, t in enumerate(kept)
    ]


def best_trial(trials: list[Trial]) -> Trial | None:
    """The complete trial with the lowest mean margin (the first of equals)."""
    whole = [t for t in trials if not t.pruned]
    return min(whole, key=lambda t: (t.value, t.index)) if whole else None


def _packed(values: np.ndarray) -> str:
    return base64.b64encode(np.ascontiguousarray(values, dtype="<f8").tobytes()).decode()


def _unpacked(text: str) -> np.ndarray:
    return np.frombuffer(base64.b64decode(text), dtype="<f8").copy()


def _distributions(params: tuple[ParamRange, ...]) -> dict[str, Any]:
    from optuna.distributions import (
        CategoricalDistribution,
        FloatDistribution,
        IntDistribution,
    )

    out: dict[str, Any] = {}
    for p in params:
        if p.kind == "choice":
            out[p.name] = CategoricalDistribution(list(p.choices))
        elif p.kind == "int":
            out[p.name] = IntDistribution(int(p.low), int(p.high), log=p.log, step=int(p.step or 1))
        else:
            out[p.name] = FloatDistribution(p.low, p.high, log=p.log, step=p.step)
    return out


def sampler_for(kind: str, seed: int) -> Any:
    """The sampler that proposes one trial, seeded for that trial alone."""
    optuna = optuna_module()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
        if kind == "random":
            return optuna.samplers.RandomSampler(seed=seed)
        if kind == "cmaes":
            try:
                import cmaes  # noqa: F401
            except ImportError:
                raise ConfigError(
                    "sampler = \"cmaes\" needs the cmaes package: pip install 'mexsim[tune]'"
                ) from None
            return optuna.samplers.CmaEsSampler(seed=seed, warn_independent_sampling=False)
        return optuna.samplers.TPESampler(seed=seed, multivariate=True)


def trial_seed(seed: int, finished: int) -> int:
    digest = hashlib.sha256(f"mexsim-tune:{seed}:{finished}".encode()).digest()
    return int.from_bytes(digest[:4], "little")


@dataclass(frozen=True)
class Budget:
    """When a study stops starting trials: whichever of its limits comes first."""

    trials: int | None
    total_matches: int | None
    minutes: float | None

    def spent(self, trials: list[Trial], started: float) -> bool:
        if self.trials is not None and len(trials) >= self.trials:
            return True
        if self.total_matches is not None and sum(t.matches for t in trials) >= self.total_matches:
            return True
        return self.minutes is not None and time.monotonic() - started >= 60 * self.minutes


def run_study(
    tuning: Tuning,
    study: Any,
    on_trial: Callable[[list[Trial]], None] = lambda trials: None,
    progress: Callable[[int], None] = lambda n: None,
) -> list[Trial]:
    """Play trials until the budget is spent; ``on_trial(trials)`` after each one.

    A stop signal (or a kill) leaves the trial in play running in the database, its
    parameters drawn: the continued study plays that very trial again from its start,
    so that the trials keep their numbers (CMA-ES seeds its proposals with them) and
    the study ends as an uninterrupted one. A strategy's fault marks it failed."""
    from optuna.trial import TrialState

    settings = tuning.settings
    budget = Budget(settings.trials, settings.total_matches, settings.minutes)
    distributions = _distributions(settings.params)
    resumed = _trial_to_resume(study, distributions)
    known = _known_strategies(tuning.config)
    looks = rungs(settings.matches, tuning.config.table_size)
    trials = finished_trials(study)
    started = time.monotonic()
    signals = StopSignals()
    signals.install()
    trial: Any = None
    try:
        while not budget.spent(trials, started):
            reported: set[int] = set()
            with signals.deferred_stop():  # the database is written whole or not at all
                if resumed is not None:
                    trial, reported = _trial_of(study, resumed), set(resumed.intermediate_values)
                    resumed = None
                else:
                    seed = trial_seed(tuning.config.seed, len(trials))
                    study.sampler = sampler_for(settings.sampler, seed)
                    trial = study.ask(distributions)
            best = best_trial(trials)
            try:
                played, pruned = _play_trial(tuning, trial, known, looks, best, progress, reported)
            except StrategyError as exc:
                raise type(exc)(
                    f"{exc} (trial {len(trials)}: {params_text(trial.params)}; the study "
                    "keeps its finished trials: fix the strategy, or narrow the range)"
                ) from None
            with signals.deferred_stop():
                trial.set_user_attr("margins", _packed(played))
                if pruned:
                    study.tell(trial, state=TrialState.PRUNED)
                else:
                    study.tell(trial, float(played.mean()))
                trial = None
                trials = finished_trials(study)
                on_trial(trials)
    except Stop as stop:
        raise Interrupted(
            f"stopped: {len(trials)} finished trial{'s' if len(trials) != 1 else ''} "
            f"kept in {tuning.folder / DATABASE}; the same command continues the study "
            "(the trial in play again from its start)",
            stop.signum,
        ) from None
    except BaseException:
        if trial is not None:
            study.tell(trial, state=TrialState.FAIL)
        raise
    finally:
        signals.restore()
    return trials


def params_text(params: dict[str, Any]) -> str:
    """A trial's parameters as the lines and messages show them: "starve = 40, traps = 1"."""
    return ", ".join(f"{k} = {v:g}" for k, v in params.items())


def _trial_to_resume(study: Any, distributions: dict[str, Any]) -> Any:
    """The running trial a stopped or killed study left, to be played again: the last
    trial, with all its parameters drawn. Any other running trial is marked failed."""
    from optuna.trial import TrialState

    every = study.get_trials(deepcopy=False)
    last = every[-1] if every else None
    resumed = None
    for t in study.get_trials(deepcopy=False, states=(TrialState.RUNNING,)):
        if last is not None and t.number == last.number and set(t.params) == set(distributions):
            resumed = t
        else:
            study.tell(t.number, state=TrialState.FAIL)
    return resumed


def _trial_of(study: Any, frozen: Any) -> Any:
    """The live trial of a running trial kept in the database."""
    from optuna.trial import Trial as OptunaTrial

    return OptunaTrial(study, frozen._trial_id)


def _known_strategies(config: Config) -> dict[str, Any]:
    from mexsim.strategy.registry import available_strategies
    from mexsim.tournament.config import played_strategies

    return dict(available_strategies(config.strategy_dirs, played_strategies(config.players)))


def policies_with(
    tuning: Tuning, params: dict[str, float], known: Any = None
) -> tuple[Config, list[Policy]]:
    config = tuning.with_params({k: float(v) for k, v in params.items()})
    return config, player_policies(config, known)


def _play_trial(
    tuning: Tuning,
    trial: Any,
    known: Any,
    looks: list[int],
    best: Trial | None,
    progress: Callable[[int], None],
    reported: set[int],
) -> tuple[np.ndarray, bool]:
    """The trial's margins, rung by rung, and whether racing stopped it."""
    config, players = policies_with(tuning, trial.params, known)
    played = np.empty(0)
    for look in looks:
        first = len(played)
        totals = player_totals(
            config,
            players,
            first,
            look - first,
            tuning.workers,
            progress,
            tuning.decision_limit,
            tuning.cluster,
        )
        played = np.concatenate([played, margins(totals, tuning.tuned)])
        if look not in reported:  # a resumed trial told these before it stopped
            trial.report(float(played.mean()), look)
        if (
            tuning.settings.prune
            and look < looks[-1]
            and best is not None
            and clearly_worse(played, best.margins)
        ):
            return played, True
    return played, False
