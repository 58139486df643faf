"""How the comparison prints: one home for the number, p-value and table formatting of
the summary, the head-to-head matrix and the sweeps' verdicts."""

from __future__ import annotations

import math
from collections.abc import Sequence

MISSING = "n/a"  # a statistic that could not be computed (too few matches, no spread)


def number(value: float | None, digits: int = 1, sign: bool = False) -> str:
    """``value`` with ``digits`` decimals (and its sign with ``sign``); n/a when missing."""
    if value is None or not math.isfinite(value):
        return MISSING
    return f"{value:+.{digits}f}" if sign else f"{value:.{digits}f}"


def p_value(p: float | None, missing: str = MISSING) -> str:
    """A p-value: three decimals, or two significant digits below 0.001; ``missing``
    when it could not be computed."""
    if p is None or not math.isfinite(p):
        return missing
    if p == 0.0:  # underflow: far below anything that matters
        return "<1e-300"
    return f"{p:.1e}" if p < 1e-3 else f"{p:.3f}"


def fixed_width(
    header: Sequence[str], rows: Sequence[Sequence[str]], left: Sequence[int]
) -> list[str]:
    """A table for the terminal: the header, a rule of dashes, the rows; columns two
    spaces apart, those numbered in ``left`` aligned left, the others right."""
    widths = [max(len(r[c]) for r in [header, *rows]) for c in range(len(header))]

    def line(cells: Sequence[str]) -> str:
        return "  ".join(
            c.ljust(w) if i in left else c.rjust(w)
            for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        ).rstrip()

    return [line(header), line(["-" * w for w in widths]), *[line(r) for r in rows]]
