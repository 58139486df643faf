"""A decide that never returns on a Dask worker, named by the client.

On ``--cluster`` the blocks' kernels run in the workers' processes, which register
them with their own stall watch (mexsim/game/stall_watch.py), out of sight of the
client's. The client asks every worker's watch each time it looks at its own
(``ClusterPlayer.stalled``): the worker answers on its event loop, which a strategy
looping in compiled code leaves free (the kernels release the GIL). A worker of the
user's own cluster outlives the command: a decide stuck in an earlier command's task
still holds its thread, and is told apart by the tag each command's tasks carry.
"""

from __future__ import annotations

from mexsim.game.stall_watch import stalled


def stalled_here(limit: float, tag: str) -> tuple[str | None, str | None]:
    """Run on a worker (``Client.run``): the message naming a decide of command
    ``tag``'s tasks running for ``limit`` seconds or more, if one is, and one of any
    other command's (still stuck in this worker)."""
    mine = stalled(limit, which=lambda owner: owner == tag)
    other = stalled(limit, which=lambda owner: owner != tag)
    return (None if mine is None else str(mine)), (None if other is None else str(other))
