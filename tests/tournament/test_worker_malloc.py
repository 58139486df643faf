"""A Dask worker's malloc (mexsim/running/dask/worker_malloc.py): with the fixed trim
threshold Dask's nanny sets, a large array is a fresh mmap each time, which halved the
kernels' speed on a worker; restored, it comes from the heap as in a plain process."""

from __future__ import annotations

import ctypes
import os
import subprocess
import sys

import numpy as np
import pytest

# glibc's mallinfo2 counts the chunks malloc got by mmap (``hblks``): an array allocated
# from the heap leaves it unchanged.
PROBE = """
import ctypes, sys
import numpy as np
from mexsim.running.dask.worker_malloc import restore_mmap_threshold

class MallInfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in
                ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks",
                 "uordblks", "fordblks", "keepcost")]

mallinfo2 = ctypes.CDLL(None).mallinfo2
mallinfo2.restype = MallInfo2
restored = restore_mmap_threshold() if sys.argv[1] == "restore" else False
before = mallinfo2().hblks
kept = [np.ones(1 << 17) for _ in range(4)]  # 1 MiB each: above 128 KiB, below 32 MiB
print(restored, mallinfo2().hblks - before)
"""

glibc = pytest.mark.skipif(not hasattr(ctypes.CDLL(None), "mallinfo2"), reason="glibc >= 2.33 only")


def probe(action: str, **env: str) -> tuple[str, int]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_")}
    done = subprocess.run(
        [sys.executable, "-c", PROBE, action],
        capture_output=True,
        text=True,
        check=True,
        env=clean | env,
    )
    restored, mapped = done.stdout.split()
    return restored, int(mapped)


@pytest.mark.processes
@glibc
def test_a_dask_worker_environment_maps_large_arrays_until_restored() -> None:
    dask_env = {"MALLOC_TRIM_THRESHOLD_": "65536"}  # distributed.nanny.pre-spawn-environ
    assert probe("leave", **dask_env) == ("False", 4)  # each array a fresh mmap
    assert probe("restore", **dask_env) == ("True", 0)  # from the heap


@pytest.mark.processes
@glibc
def test_a_plain_process_or_a_chosen_mmap_threshold_is_left_alone() -> None:
    assert probe("restore")[0] == "False"
    chosen = {"MALLOC_TRIM_THRESHOLD_": "65536", "MALLOC_MMAP_THRESHOLD_": "131072"}
    assert probe("restore", **chosen) == ("False", 4)


@pytest.mark.processes
def test_every_kind_of_worker_task_restores_it_before_play(tmp_path, monkeypatch) -> None:
    from mexsim import __version__
    from mexsim.running.dask import cluster
    from mexsim.tournament.config import load_config
    from tests.tournament.runs import config_text, write_config

    calls: list[str] = []
    monkeypatch.setattr(cluster, "restore_mmap_threshold", lambda: calls.append("restore"))
    monkeypatch.setattr(
        "mexsim.running.url_block.play_and_write", lambda *args: calls.append("play")
    )
    config = load_config(write_config(tmp_path, config_text(tmp_path / "r", matches=4)))
    res = cluster.play_remote_blocks(config, {}, __version__, "tag", [(0, 4)])
    assert calls == ["restore"] and len(res) == 1 and len(res[0]) == 4
    cluster.play_write_remote_blocks(
        config, {}, __version__, "tag", "file:///x", "id", [0], [(0, 4)]
    )
    assert calls == ["restore", "restore", "play"]
    # a luck-adjusted run's task (--luck --cluster, docs/luck.md)
    played = (
        np.zeros((4, 13, 4, 6), dtype=np.int64),
        np.zeros((4, 13, 4)),
        np.zeros((4, 13, 4)),
    )  # (res, deal luck, draw luck)
    monkeypatch.setattr(
        "mexsim.running.block_play.play_luck_block",
        lambda *args: calls.append("play luck") or played,
    )
    cluster.play_remote_luck_blocks(config, {}, __version__, "tag", None, [(0, 4)])
    assert calls == ["restore", "restore", "play", "restore", "play luck"]
