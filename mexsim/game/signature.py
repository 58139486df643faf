"""The one signature every strategy's ``decide`` is compiled for: ``decide(view, params)``
with the view an int64 array (mexsim/game/view.py) and the parameter values float64,
returning the index of the chosen move."""

from typing import Any

from numba import types
from numba.core.dispatcher import Dispatcher

from mexsim.jit.compile_notice import compiling
from mexsim.jit.options import closed

DECIDE_SIGNATURE = types.int64(types.int64[::1], types.float64[::1])


def ready(decide: Any, step: str | None = None) -> Any:
    """``decide`` compiled for DECIDE_SIGNATURE (or loaded from the cache) and closed to
    any other, as njit(signature) leaves a function: a user's as its file is imported, a
    shipped one when first needed (mexsim/strategy/api.py's ``strategy``). A plain
    Python function (the reference engine plays one too) is as it is. ``step``: what the
    compile notice calls it (default: ``strategy`` and its module's last name)."""
    if isinstance(decide, Dispatcher) and not closed(decide):
        with compiling(step or f"strategy {decide.py_func.__module__.rsplit('.', 1)[-1]}"):
            decide.compile(DECIDE_SIGNATURE)
        decide.disable_compile()
    return decide
