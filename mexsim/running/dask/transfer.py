"""A block's results on the wire between a Dask worker and the client."""

from __future__ import annotations

import numpy as np


def for_transfer(res: np.ndarray) -> np.ndarray:
    """A block's results as the worker sends them: int16, a quarter of the int64 bytes
    (2.5 GB a million default matches through the client's socket), when every value
    fits, as the results files' columns need anyway (mexsim/store/result_tables.py);
    the client widens them again (``received``)."""
    if res.size and (res.min() < np.iinfo(np.int16).min or res.max() > np.iinfo(np.int16).max):
        return res
    return res.astype(np.int16)


def received(res: np.ndarray) -> np.ndarray:
    """A block's results from a worker, as the kernels write them (int64)."""
    return res.astype(np.int64, copy=False)
