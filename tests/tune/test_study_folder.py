"""The study's folder, as a user's files meet it: a study.db that is not mexsim's, odd
characters in its name, a second command on the same study, a kill as it was made, a
drawn seed. No game is played here."""

from __future__ import annotations

import fcntl
import os
import sqlite3
from pathlib import Path

import pytest

from mexsim.errors import ConfigError
from mexsim.tune.names import DATABASE, LOCK
from mexsim.tune.study import STUDY_NAME, mexsim_study, optuna_module, storage_url
from mexsim.tune.study_folder import claimed, default_folder


def test_the_default_folder_sits_beside_the_results() -> None:
    assert default_folder("results/x") == Path("results/x-tune")
    assert default_folder("results/x/") == Path("results/x-tune")
    assert default_folder(".") == Path(os.getcwd() + "-tune")


def test_a_study_db_of_someone_elses_is_never_written_nor_deleted(tmp_path: Path) -> None:
    folder = tmp_path / "o"
    folder.mkdir()
    (folder / DATABASE).write_text("my precious data")
    for fresh in (False, True):
        with (
            pytest.raises(ConfigError, match="not an Optuna study database"),
            claimed(folder, fresh),
        ):
            pass
    assert (folder / DATABASE).read_text() == "my precious data"
    optuna = optuna_module()
    (folder / DATABASE).unlink()
    optuna.create_study(study_name="my-study", storage=storage_url(folder / DATABASE))
    with (
        pytest.raises(ConfigError, match=r"holds the studies \['my-study'\]"),
        claimed(folder, True),
    ):
        pass
    names = [s.study_name for s in optuna.get_all_study_summaries(storage_url(folder / DATABASE))]
    assert names == ["my-study"]


def test_a_question_mark_or_percent_in_the_folder_stays_in_the_name(tmp_path: Path) -> None:
    for name in ("q?mode=ro", "p%41"):
        folder = tmp_path / name
        with claimed(folder, False):
            optuna_module().create_study(
                study_name=STUDY_NAME, storage=storage_url(folder / DATABASE)
            )
        assert mexsim_study(folder / DATABASE) is None
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p%41", "q?mode=ro"]


def test_a_second_command_on_the_same_study_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "study"
    busy = r"another mexsim tune \(pid \d+\) is playing"
    with claimed(folder, False), pytest.raises(ConfigError, match=busy), claimed(folder, False):
        pass
    fd = os.open(folder / LOCK, os.O_RDWR)
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # released with the first
    os.close(fd)


def test_a_damaged_database_is_named(tmp_path: Path) -> None:
    path = tmp_path / DATABASE
    path.write_bytes(b"SQLite format 3\0" + b"\0" * 50)
    assert mexsim_study(path) is not None
    with sqlite3.connect(path.with_name("empty.db")):
        pass
    assert "not an Optuna study database" in (mexsim_study(path.with_name("empty.db")) or "")
