"""The one signature every strategy's ``decide`` is compiled for: ``decide(view, params)``
with the view an int64 array (mexsim/game/view.py) and the parameter values float64,
returning the index of the chosen move."""

from numba import types

DECIDE_SIGNATURE = types.int64(types.int64[::1], types.float64[::1])
