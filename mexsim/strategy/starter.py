"""``mexsim strategies --new NAME``: a commented starter strategy file, ready to edit.

Pure text (no numba), so writing one is instant; the file it writes is a working
strategy that passes ``mexsim check``.
"""

from __future__ import annotations

from pathlib import Path

from mexsim.errors import ConfigError
from mexsim.strategy.origin import BUILTIN_FOLDER
from mexsim.strategy.registry import NAME_PATTERN

MAX_NAME = 64  # a file name is at most 255 bytes; a name is shown in tables too

TEMPLATE = '''"""{name}: what it plays, in a sentence or two (shown to whoever reads this file).

Started from `mexsim strategies --new {name}`. Try it with
    mexsim check {name}          # the contract: legal, deterministic, in bounds, timed
    mexsim run mine.toml         # a config of your own naming it in [[players]]
"""

from mexsim.strategy.api import (
    count_carrying,
    heavier,
    is_double,
    is_mine,
    move_count,
    move_end,
    move_tile,
    move_train,
    param_index,
    pips,
    strategy,
)

NAME = "{name}"  # how configs name it: strategy = "{name}"
DESCRIPTION = "heaviest tile that leaves an end it can follow; its own train on ties"
# Numbers only, at most 8; a config sets them with params = {{ keep_bonus = 5 }} and
# can sweep them with params = {{ keep_bonus = [0, 5, 10] }}.
PARAMS = {{"keep_bonus": 5.0}}
P = param_index(PARAMS)  # P.keep_bonus is its index: params[P.keep_bonus]
# MEMORY = 4  # words of notes kept between its decisions: note(view, k), set_note(...)


@strategy  # compiled by numba: plain loops and numbers, no Python objects
def decide(view, params):
    """Return the index (0 .. move_count(view) - 1) of the legal move to play.

    The view holds what the rules let this seat see (R17); read it with the accessors
    of mexsim.strategy.api. Randomness only from random_below(view, n), never np.random:
    runs must be reproducible."""
    best, best_score = 0, -1.0
    for i in range(move_count(view)):
        tile = move_tile(view, i)
        score = 1.0 * pips(view, tile)  # shed the heavy tiles first
        if count_carrying(view, move_end(view, i), tile) > 0:
            score += params[P.keep_bonus]  # it can play on from the end it leaves
        if is_double(view, tile):
            score += 0.5
        better = score > best_score or (score == best_score and (
            is_mine(view, move_train(view, i)) or heavier(tile, move_tile(view, best))))
        if better:
            best, best_score = i, score
    return best
'''


def write_starter(name: str, folder: Path) -> Path:
    """Writes ``folder/NAME.py``; refuses a bad name or an existing file."""
    if not NAME_PATTERN.match(name) or len(name) > MAX_NAME:
        shown = name if len(name) <= MAX_NAME else name[:20] + "…"
        raise ConfigError(
            f"--new {shown!r}: a strategy name is a lower-case identifier "
            f"of at most {MAX_NAME} characters (letters, digits, _; starting "
            "with a letter), e.g. 'my_strategy'"
        )
    if (BUILTIN_FOLDER / f"{name}.py").is_file():
        # a file of that name would define a second strategy 'name': every command in
        # its folder would then refuse to start
        raise ConfigError(
            f"--new {name!r}: a built-in strategy has that name (mexsim "
            "strategies lists them): choose another"
        )
    path = folder / f"{name}.py"
    if path.exists():
        raise ConfigError(
            f"{path} already exists: not overwritten (choose another name or remove the file)"
        )
    folder.mkdir(parents=True, exist_ok=True)
    try:
        with path.open("x", encoding="utf-8") as out:
            out.write(TEMPLATE.format(name=name))
    except OSError as exc:
        raise ConfigError(f"{path}: cannot write the starter file ({exc.strerror})") from exc
    return path
