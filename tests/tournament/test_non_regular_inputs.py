"""Inputs that are not regular files — a device, a FIFO, a file far too large — are
refused in one line, never read: reading them would block, or never end."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.tournament.runs import (
    assert_no_crash,
    cli_runner,
    config_text,
    one_line_error,
    run_cli,
    write_config,
)


def report(folder: Path):
    from mexsim.cli import app

    result = cli_runner.invoke(app, ["report", str(folder)])
    assert_no_crash(result)
    return result


@pytest.mark.parametrize("case", ["device", "fifo", "huge"])
def test_a_non_regular_config_is_one_line(tmp_path: Path, case: str):
    if case == "device":
        path = Path("/dev/zero")
        says = "not a regular file"
    elif case == "fifo":
        path = tmp_path / "cfg.toml"
        os.mkfifo(path)
        says = "not a regular file"
    else:
        path = tmp_path / "cfg.toml"
        path.write_text("# padding\n" * 1_700_000, encoding="utf-8")
        says = "larger than 16 MiB"
    line = one_line_error(run_cli(path), 2)
    assert says in line and str(path) in line


@pytest.mark.parametrize("name", ["rounds.parquet", "run.json"])
def test_a_non_regular_file_in_a_results_folder_is_one_line(tmp_path: Path, name: str):
    out = tmp_path / "out"
    cfg = write_config(tmp_path, config_text(out, matches=64))
    assert run_cli(cfg, "--quiet").exit_code == 0
    (out / name).unlink()
    os.mkfifo(out / name)
    line = one_line_error(report(out), 2)
    assert "not a regular file" in line and name in line


def test_a_non_regular_input_is_one_line(tmp_path: Path):
    """The attack suite's row: each of the cases above, in one test."""
    test_a_non_regular_config_is_one_line(tmp_path / "a", "device")
    (tmp_path / "b").mkdir()
    test_a_non_regular_config_is_one_line(tmp_path / "b", "fifo")
    (tmp_path / "c").mkdir()
    test_a_non_regular_file_in_a_results_folder_is_one_line(tmp_path / "c", "rounds.parquet")
