"""mexsim — a tournament simulator for the domino game Mexican Train.

From Python (mexsim/api.py, docs/python.md)::

    import mexsim
    results = mexsim.run("configs/default.toml", matches=2000)
    results.summary

``mexsim.run``, ``mexsim.load_results``, ``mexsim.check``, ``mexsim.Results`` and
``mexsim.Game`` are the promised interface; they load on first use, so importing the
package changes nothing and stays light (numba's cache folder is chosen where compiled
code is first imported: mexsim/jit/__init__.py). The rulebook is docs/rules.md;
CONTRIBUTING.md lays out the layers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mexsim.version import __version__

if TYPE_CHECKING:  # pragma: no cover - typing only
    from mexsim.api import Results, check, load_results, run
    from mexsim.tournament.table import Game

__all__ = ["Game", "Results", "__version__", "check", "load_results", "run"]

_PUBLIC = {
    "run": "mexsim.api",
    "load_results": "mexsim.api",
    "check": "mexsim.api",
    "Results": "mexsim.api",
    "Game": "mexsim.tournament.table",
}


def __getattr__(name: str) -> Any:
    if name in _PUBLIC:
        import importlib

        return getattr(importlib.import_module(_PUBLIC[name]), name)
    raise AttributeError(f"module 'mexsim' has no attribute {name!r}")
