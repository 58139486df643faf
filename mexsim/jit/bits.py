"""Bit counting for the planner's bitmask words (numba has trailing_zeros, not this)."""

from __future__ import annotations

from numba import types
from numba.extending import intrinsic


@intrinsic
def popcount(typingctx, x):
    """The number of set bits of an integer (one instruction where the CPU has it)."""
    if not isinstance(x, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return x(x), codegen
