"""Hypothesis strategies shared by the engine tests: rule options and seatings.

Seats are drawn from every built-in strategy, each with drawn parameter values within
the range it declares (its default and both ends among them), so the differential and
invariant tests reach every strategy the package ships, not only random and greedy.
"""

from __future__ import annotations

from hypothesis import strategies as st

from mexsim.errors import ConfigError
from mexsim.game.rules import Rules, resolve_rules
from mexsim.strategy.policy import Policy
from mexsim.strategy.registry import available_strategies

BUILTINS = available_strategies()
STRATEGY_NAMES = tuple(sorted(BUILTINS))
UNBOUNDED = (-10.0, 10.0)  # for a parameter that declares no range
# search plays every move out in worlds (its rollouts are held to the reference engine
# by tests/strategy/test_forward.py): drawn here at one or two worlds of greedy
# rollouts, so that a drawn game takes what the others' take, not minutes
DRAWN_BOUNDS = {("search", "worlds"): (1.0, 2.0), ("search", "rollout"): (0.0, 0.0)}


@st.composite
def policies(draw: st.DrawFn) -> Policy:
    """A built-in strategy with drawn parameter values."""
    info = BUILTINS[draw(st.sampled_from(STRATEGY_NAMES))]
    values = []
    for key, default in info.params.items():
        lowest, highest = DRAWN_BOUNDS.get((info.name, key), info.bounds.get(key, UNBOUNDED))
        default = min(max(default, lowest), highest)
        values.append(
            draw(
                st.one_of(
                    st.sampled_from([default, lowest, highest]),
                    st.floats(lowest, highest, allow_nan=False),
                )
            )
        )
    return Policy(info, tuple(values))


@st.composite
def rules_and_seats(draw: st.DrawFn, max_players: int = 10) -> tuple[Rules, list[Policy]]:
    """Any valid rule options (all presets, overrides, other sets) and a strategy per seat."""
    players = draw(st.integers(2, max_players))
    options: dict = {"preset": draw(st.sampled_from(["seed-001", "seed-000", "standard"]))}
    for key, values in (
        ("first_turn", ["single", "train"]),
        ("engine", ["holder", "set_aside"]),
        ("draw_to_start", [False, True]),
        ("draw_limit", [1, 2, 3, "until_playable"]),
        ("mexican_train", [True, False]),
    ):
        if draw(st.booleans()):
            options[key] = draw(st.sampled_from(values))
    if draw(st.booleans()):
        options["double_blank_points"] = draw(st.sampled_from([0, 25, 50]))
    if draw(st.integers(0, 3)) == 0:
        options["max_pip"] = draw(st.sampled_from([6, 9, 15]))
        tiles = (options["max_pip"] + 1) * (options["max_pip"] + 2) // 2
        options["hand_size"] = draw(st.integers(2, max(2, (tiles - 2) // players)))
    try:
        rules = resolve_rules(options, players)
    except ConfigError:  # a drawn hand size that cannot be dealt: covered elsewhere
        rules = resolve_rules({"preset": options["preset"]}, players)
    seats = draw(st.lists(policies(), min_size=players, max_size=players))
    return rules, seats


seeds = st.integers(0, 2**64 - 1)
matches = st.integers(0, 10**9)
