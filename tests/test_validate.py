"""The config value checks (mexsim/validate.py): one line naming where, the key, what it
got as TOML spells it, and what is allowed — the same in [rules] as in [run]."""

from __future__ import annotations

import pytest

from mexsim.errors import ConfigError
from mexsim.game.rules import resolve_rules
from mexsim.validate import need_bool, need_choice, need_int, need_str, show


@pytest.mark.parametrize(
    ("value", "text"), [(True, "true"), (False, "false"), ("x", "'x'"), (1.5, "1.5"), ([1], "[1]")]
)
def test_show_spells_values_as_toml(value, text):
    assert show(value) == text


def test_good_values_pass_through():
    assert need_int("f [run]", "seed", 0, 0, None) == 0
    assert need_bool("f [seating]", "rotate", False) is False
    assert need_str("f [run]", "out", "r") == "r"
    assert need_choice("f [rules]", "engine", "holder", ("holder", "set_aside")) == "holder"


@pytest.mark.parametrize(
    ("check", "message"),
    [
        (
            lambda: need_int("f [run]", "matches", True, 1, None),
            "f [run]: 'matches' must be an integer, got true (allowed: >= 1)",
        ),
        (
            lambda: need_int("f [rules]", "max_pip", 16, 6, 15),
            "f [rules]: 'max_pip' = 16 is out of range (allowed: 6..15)",
        ),
        (
            lambda: need_bool("f [seating]", "rotate", "yes"),
            "f [seating]: 'rotate' must be true or false, got 'yes'",
        ),
        (
            lambda: need_str("command line", "--out", " "),
            "command line: '--out' must be a non-empty string, got ' '",
        ),
        (
            lambda: need_choice("f [rules]", "engine", True, ("holder", "set_aside")),
            'f [rules]: \'engine\' = true is not allowed (allowed: "holder", "set_aside")',
        ),
    ],
)
def test_messages(check, message):
    with pytest.raises(ConfigError) as info:
        check()
    assert str(info.value) == message


@pytest.mark.parametrize(
    ("options", "message"),
    [
        # the rules used to say "got True" and leave out the allowed range
        ({"max_pip": True}, "'max_pip' must be an integer, got true (allowed: 6..15)"),
        (
            {"double_blank_points": 2.5},
            "'double_blank_points' must be an integer, got 2.5 (allowed: 0..1000)",
        ),
        ({"draw_to_start": 1}, "'draw_to_start' must be true or false, got 1"),
    ],
)
def test_the_rules_read_like_the_rest_of_the_config(options, message):
    with pytest.raises(ConfigError) as info:
        resolve_rules(options, 4, where="x.toml [rules]")
    assert str(info.value) == f"x.toml [rules]: {message}"


def test_a_results_folders_name_leaves_room_for_its_work_folder() -> None:
    """validate.RESULTS_NAME_ROOM is the suffix the store's work folders add to a name."""
    from mexsim.store.results_folder import WORK_SUFFIX
    from mexsim.validate import RESULTS_NAME_ROOM, out_problem

    assert len(".") + len(WORK_SUFFIX) + 12 == RESULTS_NAME_ROOM
    assert out_problem("x" * (255 - RESULTS_NAME_ROOM)) is None
    assert "allowed: at most" in out_problem("x" * (256 - RESULTS_NAME_ROOM))
