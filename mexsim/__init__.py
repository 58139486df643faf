"""mexsim — a tournament simulator for the domino game Mexican Train.

The rulebook (rule ids R1–R17) is docs/rules.md; CONTRIBUTING.md lays out the layers:
``cli`` over ``run`` (how a config is played), ``store`` (where results go),
``analysis``, ``tournament`` (what is played), ``testing``, ``strategy``, ``game`` (the
rules, three ways), ``planner`` and ``jit`` (numba). Importing the package changes
nothing; numba's cache folder is chosen where compiled code is first imported
(mexsim/jit/__init__.py).
"""

__version__ = "0.2.0"
