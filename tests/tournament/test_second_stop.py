"""A second Ctrl-C while a run stops (issue 32, row 13): two Ctrl-C 0.05–0.2 s apart on
`--cluster local:2` stopped the cluster's closing with a traceback, exit 1 (the
"strategy failed" status), and left a `mexsim-dask-*` scratch folder. The stop is taken
once; the scratch goes whatever ends the closing."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from mexsim.running.dask.cluster import ClusterPlayer
from mexsim.running.stop_signals import Stop, StopSignals


def _signal_self(signum: int) -> None:
    os.kill(os.getpid(), signum)
    time.sleep(0.2)  # the handler runs in the main thread at its next instruction


@pytest.mark.parametrize("second", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_a_second_stop_signal_while_stopping_is_ignored(second: int) -> None:
    signals = StopSignals()
    signals.install()
    try:
        with pytest.raises(Stop) as first:
            _signal_self(signal.SIGINT)
        assert first.value.signum == signal.SIGINT
        _signal_self(second)  # while the run cleans up: nothing raised
    finally:
        signals.restore()


class _Closer:
    def close(self) -> None:
        raise Stop(signal.SIGINT)  # as the second Ctrl-C did, inside Dask's close


def test_the_scratch_folder_goes_whatever_ends_the_closing(tmp_path: Path) -> None:
    scratch = tmp_path / "mexsim-dask-1-x"
    (scratch / "worker").mkdir(parents=True)
    player = object.__new__(ClusterPlayer)
    player.client = _Closer()  # type: ignore[assignment]
    player._cluster = None
    player._scratch = str(scratch)
    with pytest.raises(Stop):
        player.close()
    assert not scratch.exists()
