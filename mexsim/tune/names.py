"""The files of a study's folder, by name: light to import (``mexsim report`` asks
whether a folder is a study's before it loads anything else)."""

from __future__ import annotations

from pathlib import Path

DATABASE = "study.db"  # the Optuna study (SQLite)
LOCK = ".mexsim-tune.lock"  # held by the command that plays the study
CSV = "tune.csv"
BEST = "best.toml"
VERDICT = "tune.json"
HISTORY_PLOT = "tune_history.png"
PARAMS_PLOT = "tune_params.png"
WRITTEN = (CSV, BEST, VERDICT, HISTORY_PLOT, PARAMS_PLOT)  # beside the database


def is_study_folder(folder: Path) -> bool:
    """Whether ``folder`` is a study's (mexsim tune's), not a run's results."""
    marks = (DATABASE, VERDICT, LOCK)
    try:
        return any((folder / m).exists() for m in marks) and not (folder / "run.json").exists()
    except OSError:  # a name too long, a folder not to be read: not a study's
        return False
