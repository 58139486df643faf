"""Game states from real play, drawn by hypothesis: the inputs of the strategy contract.

A drawn game is a round of a match under drawn rules — every preset, 2-10 players, sets
double-6 to double-15 — with the tested strategy in one drawn seat and drawn built-ins
in the others, played by the reference engine (mexsim/game/reference.py). Each of the
tested seat's decisions is a game state as the strategy receives it in a run.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from mexsim.errors import ConfigError
from mexsim.game.rules import Rules, resolve_rules

PRESETS = ("seed-001", "seed-000", "standard")
OTHERS = ("random", "greedy", "early_doubles", "mexican_first", "longest_train")


@dataclass(frozen=True)
class Game:
    """Where a decision happens: enough to play the round again."""

    rules: Rules
    others: tuple[str, ...]  # every seat's built-in; the tested seat's entry is unused
    tested: int  # the seat the tested strategy plays
    seed: int
    match: int
    round_no: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "rules": self.rules.to_dict(),
            "players": self.rules.players,
            "seats": [
                ("TESTED" if s == self.tested else name) for s, name in enumerate(self.others)
            ],
            "seed": self.seed,
            "match": self.match,
            "round": self.round_no,
        }


def _rules(draw: st.DrawFn, players: int) -> Rules:
    options: dict[str, Any] = {"preset": draw(st.sampled_from(PRESETS))}
    max_pip = draw(st.integers(6, 15))
    if max_pip != 12:
        tiles = (max_pip + 1) * (max_pip + 2) // 2
        options["max_pip"] = max_pip
        options["hand_size"] = draw(st.integers(2, max(2, min(15, (tiles - 2) // players))))
    for key, values in (
        ("first_turn", ("single", "train")),
        ("engine", ("holder", "set_aside")),
        ("draw_to_start", (False, True)),
        ("draw_limit", (1, 2, 3, "until_playable")),
        ("mexican_train", (True, False)),
    ):
        if draw(st.booleans()):
            options[key] = draw(st.sampled_from(values))
    try:
        return resolve_rules(options, players)
    except ConfigError:  # a drawn hand size the set cannot deal: the preset's own
        return resolve_rules({"preset": options["preset"]}, players)


@st.composite
def games(draw: st.DrawFn) -> Game:
    """A round to play, with the tested strategy in one seat."""
    players = draw(st.integers(2, 10))
    rules = _rules(draw, players)
    others = tuple(draw(st.lists(st.sampled_from(OTHERS), min_size=players, max_size=players)))
    return Game(
        rules,
        others,
        draw(st.integers(0, players - 1)),
        draw(st.integers(0, 2**64 - 1)),
        draw(st.integers(0, 10**6)),
        draw(st.integers(0, rules.rounds - 1)),
    )
