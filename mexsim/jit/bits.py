"""Bit helpers for bitmask words in compiled code: ``popcount`` (numba has trailing_zeros,
not this) and numba's ``trailing_zeros`` (from its unsafe module), both typed ``Any``
for Python's type checker, which cannot see through numba's intrinsics."""

from __future__ import annotations

from typing import Any

from numba import types
from numba.cpython.unsafe.numbers import trailing_zeros as _trailing_zeros
from numba.extending import intrinsic


def _popcount(typingctx, x):
    """The number of set bits of an integer (one instruction where the CPU has it)."""
    if not isinstance(x, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return x(x), codegen


popcount: Any = intrinsic(_popcount)
trailing_zeros: Any = _trailing_zeros
