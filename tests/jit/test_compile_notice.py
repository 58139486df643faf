"""A first run never looks frozen: compile steps are announced, warm runs say nothing."""

from __future__ import annotations

import io
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mexsim.cli import app
from mexsim.game.engine_cache import engine_index
from mexsim.jit import compile_notice as cn
from mexsim.running import warmup
from mexsim.strategy.starter import write_starter


class Stream(io.StringIO):
    """A stderr that records when each write came, and says whether it is a terminal."""

    def __init__(self, terminal: bool) -> None:
        super().__init__()
        self.terminal = terminal
        self.times: list[float] = []

    def isatty(self) -> bool:
        return self.terminal

    def write(self, text: str) -> int:
        self.times.append(time.monotonic())
        return super().write(text)


@pytest.fixture
def quick(monkeypatch):
    monkeypatch.setattr(cn, "SILENT_FOR", 0.05)
    monkeypatch.setattr(cn, "REDRAW", 0.01)


def test_a_long_step_is_named_once_in_a_log(quick):
    stream = Stream(terminal=False)
    with cn.compile_notice(stream=stream):
        with cn.compiling("strategy slow_one"):
            time.sleep(0.3)
        with cn.compiling("the engine"):
            time.sleep(0.3)
    lines = stream.getvalue().splitlines()
    assert len(lines) == 2
    assert lines[0].startswith("mexsim: compiling strategy slow_one (")
    assert lines[1].startswith("mexsim: compiling the engine (")


def test_warm_steps_print_nothing():
    stream = Stream(terminal=True)
    with cn.compile_notice(stream=stream), cn.compiling("the engine"):
        time.sleep(0.05)  # a warm load: well under SILENT_FOR
    assert stream.getvalue() == ""


def test_quiet_prints_nothing_and_steps_outside_a_notice_are_free(quick):
    stream = Stream(terminal=True)
    with cn.compile_notice(quiet=True, stream=stream), cn.compiling("x"):
        time.sleep(0.2)
    with cn.compiling("no notice open"):
        pass
    assert stream.getvalue() == ""


@pytest.mark.slow
def test_a_terminal_is_never_silent_for_2_s_and_is_left_clean():
    """The issue's bound, with the real timings: a spinner line redrawn in place while
    the step goes on, with the seconds so far, wiped when it ends."""
    stream = Stream(terminal=True)
    with cn.compile_notice(stream=stream) as notice, cn.compiling("the engine"):
        time.sleep(3.0)
    started = notice.started
    gaps = [b - a for a, b in zip([started, *stream.times], stream.times, strict=False)]
    assert stream.times and max(gaps) <= 2.0
    text = stream.getvalue()
    assert "\rmexsim: compiling the engine" not in text  # a frame comes first
    assert "mexsim: compiling the engine (" in text and " 2 s" in text
    assert text.endswith("\r\x1b[K")


def test_the_engine_index_is_where_numba_caches_the_run_kernel():
    index = engine_index()
    assert index is not None and index.name.startswith("kernel.play_matches-")
    assert index.is_relative_to(cn.cache_folder())


def test_cold_cache_and_the_estimate_of_next_time(tmp_path: Path, monkeypatch):
    cache = tmp_path / "numba-0123456789abcdef"
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(cache))
    index = cache / "game_0123" / "kernel.play_matches-1.py311.nbi"
    assert cn.cache_is_cold(index) and cn.expected_seconds() == cn.FIRST_RUN_SECONDS
    index.parent.mkdir(parents=True)
    index.write_bytes(b"")
    assert not cn.cache_is_cold(index)
    cn.remember_seconds(41.6)
    assert cn.expected_seconds() == 42
    stream = Stream(terminal=False)
    with cn.compile_notice(stream=stream, is_cold=lambda: cn.cache_is_cold(index)) as notice:
        assert not notice.cold
        notice.begin("strategy mine")
        assert "first use, then cached" in notice.describe()


@pytest.mark.slow
@pytest.mark.compiles
def test_the_cli_names_the_strategy_it_compiles(tmp_path: Path, monkeypatch):
    """A new strategy file compiles when first loaded: `mexsim strategies` says so."""
    monkeypatch.setattr(cn, "SILENT_FOR", 0.0)
    monkeypatch.setattr(warmup, "engine_is_cold", lambda: False)  # compiled here, not ahead
    write_starter("fresh_bot", tmp_path)
    result = CliRunner().invoke(app, ["strategies", "--strategies", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "mexsim: compiling strategy fresh_bot (" in result.stderr
