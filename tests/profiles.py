"""Hypothesis profiles, chosen by ``HYPOTHESIS_PROFILE``: ``ci`` (the default: `make test`,
CI) draws each property's full count of examples; ``dev`` (`make test-fast`, the inner
loop) a tenth of it, at least 3. A property names its full count with ``examples(n)``."""

from __future__ import annotations

import os

from hypothesis import settings

PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "ci")
DEV_SHARE = 10

settings.register_profile("ci", deadline=None, print_blob=True)
settings.register_profile("dev", deadline=None, max_examples=100 // DEV_SHARE)
settings.load_profile(PROFILE)


def examples(n: int) -> int:
    """A property's example count: ``n`` in the ci profile, a tenth (at least 3) in dev."""
    return n if PROFILE != "dev" else max(3, n // DEV_SHARE)
