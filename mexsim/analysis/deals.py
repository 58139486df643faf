"""The statistical unit of a run: one deal.

Independent matches are independent units. Under duplicate deals the seat rotations
of one deal share its luck, so they are *one* paired unit: statistics average each
player's result over the deal's matches first, then treat the per-deal means as the
sample ("the rotations of one deal as one paired unit").
"""

from __future__ import annotations

import numpy as np


def unit_starts(deals: np.ndarray) -> np.ndarray | None:
    """Row offsets where each deal starts (deals sorted, each deal's rows together), or
    None when every deal is one row (nothing to average)."""
    deals = np.asarray(deals)
    if len(deals) == 0:
        return None
    if np.any(deals[1:] < deals[:-1]):
        raise ValueError("rows must be ordered by deal")
    starts = np.concatenate(([0], np.flatnonzero(deals[1:] != deals[:-1]) + 1))
    return None if len(starts) == len(deals) else starts


def split_last_deal(
    values: np.ndarray, deals: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Rows in deal order cut before their last deal: (the complete deals' rows, their
    deals, the last deal's rows, its deals). Statistics folded block by block hold the
    last deal back, since its seat rotations may go on in the next block."""
    if np.any(deals[1:] < deals[:-1]):
        raise ValueError("matches must arrive in deal order")
    cut = int(np.searchsorted(deals, deals[-1])) if len(deals) else 0
    return values[:cut], deals[:cut], values[cut:], deals[cut:]


def unit_means(values: np.ndarray, starts: np.ndarray | None) -> np.ndarray:
    """Per deal and column, the mean of the non-NaN values (NaN where a column has
    none in that deal); ``values`` unchanged when ``starts`` is None."""
    values = np.asarray(values, dtype=float)
    if starts is None:
        return values
    present = ~np.isnan(values)
    sums = np.add.reduceat(np.where(present, values, 0.0), starts, axis=0)
    counts = np.add.reduceat(present.astype(np.int64), starts, axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)
