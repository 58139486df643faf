"""The function a kernel's strategy slot holds for a shipped strategy whose rule the
kernel makes itself.

The kernels take the strategies' decides as a tuple of compiled functions, so a slot
needs a compiled function of a decide's type; but under Dispatch.plugin (every run)
the kernel never calls the slot of greedy, random or longest_train at
pip_weight 0: it makes their rule itself (enums.Calling). A shipped decide is compiled
only when first needed (mexsim/strategy/api.py's ``strategy``), and these are not
needed by a run: longest_train's was 4.6 s of a first run's ~29 CPU-seconds of
compiling, for nothing. This one is compiled (and cached) once for all of them, in a
moment.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from mexsim.jit.options import compiled


def _never_called(view, params):
    # were it called (a bug), no move is -1: the kernel stops the run, naming the seat
    return -1


@cache
def stand_in_decide() -> Any:
    """The stand-in, compiled as a built-in's decide is (no bounds checks, no reference
    counts) and closed to other signatures, as the strategies' are."""
    from mexsim.game.signature import DECIDE_SIGNATURE

    return compiled(DECIDE_SIGNATURE, cache=True, boundscheck=False, refcounts=False)(_never_called)
