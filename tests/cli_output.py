"""What the tests read of a command's stderr."""

from __future__ import annotations


def without_compile_notes(stderr: str) -> str:
    """stderr less the lines announcing a compile (mexsim/jit/compile_notice.py): whether a
    command compiles depends on what the test session compiled before it."""
    return "".join(
        line
        for line in stderr.splitlines(keepends=True)
        if not line.startswith("mexsim: compiling ")
    )
