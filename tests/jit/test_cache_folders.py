"""numba's cache folders of old versions are removed once unused for KEEP_DAYS days."""

from __future__ import annotations

import ast
import io
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mexsim.jit import cache_folders, compile_notice
from mexsim.jit.cache_folders import KEEP_DAYS, MARKER, mark_used, prune_unused

DAY = 86400


def version_folder(base: Path, digest: str, days_unused: float | None, marked: bool = True) -> Path:
    folder = base / f"numba-{digest}"
    (folder / "sub").mkdir(parents=True)
    (folder / "sub" / "x.nbi").write_bytes(b"cached")
    if days_unused is not None:
        when = time.time() - days_unused * DAY
        target = folder / MARKER if marked else folder
        if marked:
            target.touch()
        os.utime(target, (when, when))
        if not marked:
            os.utime(folder / "sub", (when, when))
    return folder


def test_only_other_versions_unused_for_keep_days_go(tmp_path: Path):
    current = version_folder(tmp_path, "0" * 16, KEEP_DAYS + 100)  # this version: never
    old = version_folder(tmp_path, "1" * 16, KEEP_DAYS + 1)
    recent = version_folder(tmp_path, "2" * 16, KEEP_DAYS - 1)
    never_marked_old = version_folder(tmp_path, "3" * 16, KEEP_DAYS + 5, marked=False)
    never_marked_new = version_folder(tmp_path, "4" * 16, 1, marked=False)
    # not mexsim's names, or not a folder of its own: left alone, however old
    strangers = [
        version_folder(tmp_path, name, KEEP_DAYS + 50)
        for name in ("mine", "0123456789abcdeF", "0123456789abcde")
    ]
    stray = tmp_path / ("numba-" + "5" * 16)
    stray.write_text("a file of the user's")
    link = tmp_path / ("numba-" + "6" * 16)
    link.symlink_to(old.parent / strangers[0].name)
    old_file_time = time.time() - (KEEP_DAYS + 50) * DAY
    os.utime(stray, (old_file_time, old_file_time))

    removed = prune_unused(current)
    assert sorted(removed) == sorted([old, never_marked_old])
    assert not old.exists() and not never_marked_old.exists()
    for kept in (current, recent, never_marked_new, *strangers, stray, link):
        assert kept.exists() or kept.is_symlink(), kept
    assert (strangers[0] / "sub" / "x.nbi").read_bytes() == b"cached"


def test_a_command_marks_its_folder_and_a_first_run_prunes(tmp_path: Path, monkeypatch):
    """compile_notice marks this version's folder used after every command; a cold
    cache's first run (compiled by the end of the block) removes the unused ones."""
    current = version_folder(tmp_path, "a" * 16, KEEP_DAYS + 10)
    old = version_folder(tmp_path, "b" * 16, KEEP_DAYS + 10)
    monkeypatch.setattr(compile_notice, "cache_folder", lambda: current)
    states = iter([False, False])  # a warm command: marks, prunes nothing
    with compile_notice.compile_notice(quiet=True, is_cold=lambda: next(states)):
        pass
    assert time.time() - (current / MARKER).stat().st_mtime < 60 and old.exists()
    states = iter([True, False, False])  # cold before the block, compiled after it
    with compile_notice.compile_notice(stream=io.StringIO(), is_cold=lambda: next(states)):
        pass
    assert not old.exists() and current.exists()


def test_a_command_that_fails_prunes_nothing(tmp_path: Path, monkeypatch):
    current = version_folder(tmp_path, "c" * 16, None)
    old = version_folder(tmp_path, "d" * 16, KEEP_DAYS + 10)
    monkeypatch.setattr(compile_notice, "cache_folder", lambda: current)
    try:
        with compile_notice.compile_notice(quiet=True, is_cold=lambda: False):
            raise KeyboardInterrupt
    except KeyboardInterrupt:
        pass
    assert old.exists() and not (current / MARKER).exists()


def test_a_read_only_or_missing_cache_is_no_error(tmp_path: Path):
    mark_used(tmp_path / "gone")  # numba never made it: nothing to mark
    assert not (tmp_path / "gone").exists()
    assert prune_unused(tmp_path / "nowhere" / ("numba-" + "e" * 16)) == []
    assert cache_folders.VERSION_FOLDER.fullmatch("numba-" + "f" * 16)


@pytest.mark.processes
def test_importing_mexsim_changes_nothing() -> None:
    """No parser patched, no numba configured, nothing heavy imported: those happen
    where a command starts or compiled code is first imported."""
    code = (
        "import ast, os, sys; parse = ast.parse; env = dict(os.environ)\n"
        "import mexsim\n"
        "assert ast.parse is parse and dict(os.environ) == env, 'changed'\n"
        "assert 'numba' not in sys.modules and 'numpy' not in sys.modules, 'heavy'\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env
    )
    assert done.returncode == 0, done.stderr


def test_every_module_that_caches_compiled_code_chooses_the_cache_folder_first() -> None:
    """mexsim/jit/__init__.py chooses numba's cache folder when it is imported: a module
    that caches compiled code (cache=True) and imported nothing of mexsim.jit would
    cache beside the sources, keyed on no version of mexsim."""
    package = Path(__file__).resolve().parents[2] / "mexsim"
    caching = [p for p in package.rglob("*.py") if "cache=True" in p.read_text(encoding="utf-8")]
    assert len(caching) > 10  # the package read
    unset = []
    for path in caching:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = {
            node.module
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.module
        } | {a.name for node in ast.walk(tree) if isinstance(node, ast.Import) for a in node.names}
        in_jit = path.relative_to(package).parts[0] == "jit"  # its __init__ runs first
        if not in_jit and not any(n == "mexsim.jit" or n.startswith("mexsim.jit.") for n in names):
            unset.append(str(path.relative_to(package)))
    assert unset == []
