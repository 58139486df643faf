"""Where a strategy's code comes from: the shipped files (trusted, and some of them played
by the kernel itself) or a user's, and the module names mexsim imports them under."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mexsim.game.enums import Calling

BUILTIN_FOLDER = Path(__file__).resolve().parent / "builtin"
BUILTIN_PACKAGE = "mexsim.strategy.builtin."  # + a built-in's file stem: its module
USER_MODULE_PREFIX = "mexsim_strategy_"  # + a user's file stem and path digest

# The shipped decides the kernel plays otherwise than through the view (enums.Calling):
# greedy's and random's rule it makes itself, early_doubles' decide it calls on its
# private table, longest_train's (which plans at pip_weight 0: its weighted form is
# called) it plays by its twin.
_KERNEL_TWINS = {
    "greedy.py": Calling.greedy_in_kernel,
    "random.py": Calling.random_in_kernel,
    "early_doubles.py": Calling.builtin_on_table,
    "longest_train.py": Calling.longest_train_in_kernel,
}


def is_builtin(func: Callable) -> bool:
    """Whether ``func`` is defined in one of the shipped strategy files (trusted)."""
    return Path(func.__code__.co_filename).resolve().parent == BUILTIN_FOLDER


def imported_by_mexsim(func: Callable) -> bool:
    """Whether ``func``'s file is imported under a name mexsim gave it
    (registry.strategy_module_name), which is when its decide and helpers are cached.
    numba's cache keeps the name of the module a function was compiled in and imports
    it again to load the function, and only those names can be imported so in another
    process. A file a user imports themselves (``import mine`` in a notebook) is
    compiled afresh: loading mexsim's copies there failed (ModuleNotFoundError), and
    copies it wrote under its own name failed the next ``mexsim run`` of the file."""
    return func.__module__.startswith((BUILTIN_PACKAGE, USER_MODULE_PREFIX))


def kernel_calling(func: Callable | None) -> int:
    """How the kernel asks the strategy whose decide's Python function is ``func``
    (enums.Calling): greedy's, random's and longest_train's rules are made in the kernel,
    early_doubles' decide called on its private table, only for the shipped files'
    decides, which tests/strategy/test_plugins.py plays against users' copies. Decided
    once, when the registry loads a strategy."""
    if func is None or not hasattr(func, "__code__") or not is_builtin(func):
        return Calling.user
    if func.__name__ == "decide":
        twin = _KERNEL_TWINS.get(Path(func.__code__.co_filename).name)
        if twin is not None:
            return twin
    return Calling.builtin
