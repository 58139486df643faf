"""A decide that never returns on a Dask worker, named by the client.

On ``--cluster`` the blocks' kernels run in the workers' processes, which register
them with their own stall watch (mexsim/game/stall_watch.py), out of sight of the
client's. The client asks every worker's watch each time it looks at its own
(``ClusterPlayer.stalled``): the worker answers on its event loop, which a strategy
looping in compiled code leaves free (the kernels release the GIL).
"""

from __future__ import annotations

from mexsim.game.stall_watch import stalled


def stalled_here(limit: float) -> str | None:
    """Run on a worker (``Client.run``): the message naming a decide of this process
    running for ``limit`` seconds or more, if one is."""
    error = stalled(limit)
    return None if error is None else str(error)
