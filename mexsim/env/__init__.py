"""mexsim for learning libraries (``pip install "mexsim[env]"``): a PettingZoo AEC
environment (every seat an agent), a Gymnasium environment (one seat learns, the others
play their configured strategies) and an OpenSpiel game (``import mexsim.env.openspiel``
registers ``python_mexican_train``). docs/learning.md shows each.

    from mexsim.env import aec_env, SeatEnv
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mexsim.env.aec import MexicanTrainAEC, aec_env
    from mexsim.env.seat_env import SeatEnv

__all__ = ["MexicanTrainAEC", "SeatEnv", "aec_env"]

_HOMES = {
    "aec_env": "mexsim.env.aec",
    "MexicanTrainAEC": "mexsim.env.aec",
    "SeatEnv": "mexsim.env.seat_env",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'mexsim.env' has no attribute {name!r}")
    import importlib

    try:
        module = importlib.import_module(home)
    except ModuleNotFoundError as exc:
        if exc.name and exc.name.split(".")[0] in ("pettingzoo", "gymnasium"):
            raise ModuleNotFoundError(
                f'mexsim.env.{name} needs {exc.name}: pip install "mexsim[env]"', name=exc.name
            ) from exc
        raise
    return getattr(module, name)
