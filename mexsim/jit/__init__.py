"""Everything mexsim asks of numba beyond ``njit``: its options (options.py), the cache
folders, the compile notice, ``@callee``, bit helpers and the serialised parser. The
bottom layer: it imports nothing of mexsim but ``errors`` and the version.

Importing it chooses numba's cache folder, once: every module of mexsim that caches
compiled code imports from here (tests/jit/test_cache_folders.py holds them to it), so
the folder is set before the first such function is defined; and it installs the hook
that spares numba's BLAS probe its import of scipy.linalg (options.BlasProbeAnswered),
which imports nothing itself. ``import mexsim`` alone changes nothing.
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

from mexsim.jit.options import BlasProbeAnswered
from mexsim.version import __version__


def numba_cache_dir() -> str:
    """A numba cache folder per version of mexsim's own sources.

    numba invalidates a cached function only when its own file changes, but compiled
    code freezes the constants it imports (the view layout, helpers): a strategy
    cached against an older mexsim would run stale code. Keying the whole cache on a
    digest of mexsim's sources makes any change of mexsim recompile everything.
    """
    digest = hashlib.sha1(__version__.encode())
    package = Path(__file__).resolve().parents[1]
    for path in sorted(package.rglob("*.py")):  # every subpackage, the built-ins too
        digest.update(path.relative_to(package).as_posix().encode())
        digest.update(path.read_bytes())
    base = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "mexsim"
    return str(base / f"numba-{digest.hexdigest()[:16]}")


# Before numba is imported by mexsim's code where it can be (numba reads it at import).
os.environ.setdefault("NUMBA_CACHE_DIR", numba_cache_dir())
if "numba" in sys.modules:
    # Imported before (a notebook, pytest resolving a warning filter, a module that
    # imports numba before mexsim.jit): numba read its settings already and would cache
    # beside the sources, keyed on no version of mexsim. Its functions look the folder
    # up when they are defined, so tell it now.
    sys.modules["numba"].config.CACHE_DIR = os.environ["NUMBA_CACHE_DIR"]
BlasProbeAnswered.install()
