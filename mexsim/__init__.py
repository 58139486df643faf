"""mexsim — a tournament simulator for the domino game Mexican Train.

The rulebook (rule ids R1–R17) is docs/rules.md. The subpackages follow the seams of the
architecture: ``game`` (the rules, three ways), ``strategy`` (the plug-in API and the
built-ins), ``planner`` (longest_train's exact planner), ``tournament`` (config,
schedule, runner) and ``analysis`` (the tables and plots).
"""

import hashlib
import os
import sys
from pathlib import Path

__version__ = "0.2.0"

from mexsim.jit.ast_guard import serialise_ast_parse

serialise_ast_parse()  # before any thread of ours parses (mexsim/jit/ast_guard.py)


def _numba_cache_dir() -> str:
    """A numba cache folder per version of mexsim's own sources.

    numba invalidates a cached function only when its own file changes, but compiled
    code freezes the constants it imports (the view layout, helpers): a strategy
    cached against an older mexsim would run stale code. Keying the whole cache on a
    digest of mexsim's sources makes any change of mexsim recompile everything.
    """
    digest = hashlib.sha1(__version__.encode())
    package = Path(__file__).parent
    for path in sorted(package.rglob("*.py")):  # every subpackage, the built-ins too
        digest.update(path.relative_to(package).as_posix().encode())
        digest.update(path.read_bytes())
    base = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "mexsim"
    return str(base / f"numba-{digest.hexdigest()[:16]}")


# Before numba is imported anywhere in mexsim (numba reads it once, at import).
os.environ.setdefault("NUMBA_CACHE_DIR", _numba_cache_dir())
if "numba" in sys.modules:
    # Imported before mexsim (a notebook, pytest resolving a warning filter): numba read
    # its settings already and would cache beside the sources, keyed on no version of
    # mexsim. Its functions look the folder up when they are defined, so tell it now.
    sys.modules["numba"].config.CACHE_DIR = os.environ["NUMBA_CACHE_DIR"]
