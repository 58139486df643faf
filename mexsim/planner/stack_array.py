"""Fixed-size scratch arrays on the stack, for compiled code that plans often.

``np.empty`` in compiled code is a malloc, a reference-counted header and, when the
array goes, an atomic release and a free: ~70 ns, a sixth of a sparse plan, and
longest_train plans ~100 times a match (docs/speed-history.md, "The planner, seventh pass").
``stack_array(N)``, with N a constant, is N int64 slots in the calling function's own
frame: nothing to allocate or free, and no reference count (numba skips a null one).
Like ``np.empty`` its slots start undefined. The array must not outlive the function
that made it (return it, or keep it anywhere, and it points at a dead frame); callees
may use it. Keep N to a few KiB: a thread's stack may be as small as 128 KiB (musl's
default), and the dense planner's 164 KiB scratch in a frame crashed such a thread
(tests/planner/test_stack_array.py).
"""

from __future__ import annotations

from typing import Any

from numba import types
from numba.core import cgutils
from numba.extending import intrinsic
from numba.np.arrayobj import populate_array


def _stack_array(typingctx, size):
    """An int64 array of ``size`` slots (a compile-time constant) in the caller's frame."""
    if not isinstance(size, types.IntegerLiteral) or size.literal_value <= 0:
        return None
    n = size.literal_value
    array_type = types.Array(types.int64, 1, "C")

    def codegen(context, builder, signature, args):
        item = context.get_value_type(types.int64)
        # in the entry block: one slot however often a loop reaches this
        data = cgutils.alloca_once(builder, item, size=n)
        array = context.make_array(array_type)(context, builder)
        itemsize = context.get_constant(types.intp, context.get_abi_sizeof(item))
        populate_array(
            array,
            data=data,
            shape=[context.get_constant(types.intp, n)],
            strides=[itemsize],
            itemsize=itemsize,
            meminfo=None,
        )
        return array._getvalue()

    return array_type(size), codegen


# typed Any: Python's type checker cannot see through numba's intrinsics
stack_array: Any = intrinsic(_stack_array)
