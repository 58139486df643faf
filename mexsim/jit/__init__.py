"""Everything mexsim asks of numba beyond ``njit``: the cache folders, the compile notice,
``@callee`` and the serialised parser. The bottom layer: it imports nothing of mexsim
but ``errors``."""
