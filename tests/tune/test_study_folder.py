"""The study's folder, as a user's files meet it: a study.db that is not mexsim's, odd
characters in its name, a second command on the same study, a kill as it was made, a
drawn seed. No game is played here."""

from __future__ import annotations

import contextlib
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
    with contextlib.closing(sqlite3.connect(path.with_name("other.db"))) as db:
        db.execute("CREATE TABLE notes (text)")
    assert "not an Optuna study database" in (mexsim_study(path.with_name("other.db")) or "")


def test_a_study_cut_off_as_it_was_made_is_mexsims(tmp_path: Path) -> None:
    empty = tmp_path / "empty.db"
    empty.write_bytes(b"")
    assert mexsim_study(empty) is None
    optuna_module().storages.RDBStorage(storage_url(tmp_path / "tables.db"))
    assert mexsim_study(tmp_path / "tables.db") is None  # Optuna's tables, no study yet
    assert mexsim_study(tmp_path / "missing.db") == "missing"
    assert not (tmp_path / "missing.db").exists()


def test_a_refusal_leaves_nothing_in_the_users_folder(tmp_path: Path) -> None:
    folder = tmp_path / "theirs"
    folder.mkdir()
    (folder / DATABASE).write_text("not ours")
    with pytest.raises(ConfigError), claimed(folder, False):
        pass
    assert [p.name for p in folder.iterdir()] == [DATABASE]


def test_fresh_deletes_nothing_when_one_of_its_names_is_not_its_file(tmp_path: Path) -> None:
    folder = tmp_path / "study"
    with claimed(folder, False):
        optuna_module().create_study(study_name=STUDY_NAME, storage=storage_url(folder / DATABASE))
    (folder / "tune.csv").mkdir()
    odd = r"tune.csv: not a file mexsim tune wrote"
    with pytest.raises(ConfigError, match=odd), claimed(folder, True):
        pass
    assert (folder / DATABASE).is_file()


def test_odd_places_are_one_line(tmp_path: Path) -> None:
    from mexsim.errors import OutputError

    with pytest.raises(ConfigError, match="has no name to give its study"):
        default_folder("/")
    folder = tmp_path / "fifo"
    folder.mkdir()
    os.mkfifo(folder / LOCK)
    with (
        pytest.raises(OutputError, match="remove it if it is not a plain file"),
        claimed(folder, False),
    ):
        pass


def test_report_tells_a_study_in_play_by_its_lock(tmp_path: Path) -> None:
    from mexsim.tune.study_folder import held_by

    folder = tmp_path / "study"
    with claimed(folder, False):
        assert held_by(folder) == str(os.getpid())
    assert held_by(folder) is None
