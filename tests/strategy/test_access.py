"""The named view API (mexsim.strategy.access) says what the raw view words say.

Each accessor is called (as plain numba functions, from Python) on views recorded from
real play and compared with the same fact computed in Python from the tile set and
the raw offsets of mexsim.game.view."""

from __future__ import annotations

import numpy as np
import pytest

from mexsim.game import view as V
from mexsim.game.rules import resolve_rules
from mexsim.game.tiles import tile_set
from mexsim.strategy import access as A
from mexsim.strategy.api import param_index
from tests.strategy.test_strategies import record_match, seat

MASK64 = (1 << 64) - 1


@pytest.fixture(scope="module")
def decisions():
    out = []
    for players, options in (
        (4, {}),
        (3, {"preset": "standard"}),
        (6, {"max_pip": 15, "hand_size": 12}),
    ):
        rules = resolve_rules(options, players)
        seats = [
            seat(n)
            for n in (
                "longest_train",
                "early_doubles",
                "greedy",
                "random",
                "mexican_first",
                "greedy",
            )[:players]
        ]
        out += [(rules, d) for m in range(2) for d in record_match(rules, 11, m, seats)]
    assert len(out) > 200
    return out


def python_hand(view) -> list[int]:
    return [
        t
        for w in range(V.MAX_WORDS)
        for t in range(w * 64, w * 64 + 64)
        if (int(view[V.HAND + w]) & MASK64) >> (t - w * 64) & 1
    ]


@pytest.mark.slow
def test_accessors_match_the_raw_view(decisions):
    for rules, d in decisions:
        v = d.view
        ts = tile_set(rules.max_pip)
        P = rules.players
        hand = python_hand(v)
        assert list(A.hand_tiles(v)) == hand  # heaviest first = ascending numbers
        assert (A.my_seat(v), A.players(v), A.mexican_train(v)) == (d.seat, P, P)
        assert A.max_pip(v) == rules.max_pip and A.tile_count(v) == ts.count
        for t in range(ts.count):
            lo, hi = ts.tile(t)
            assert A.holds(v, t) == (t in hand)
            assert (A.low(v, t), A.high(v, t), A.pips(v, t)) == (lo, hi, lo + hi)
            assert A.is_double(v, t) == (lo == hi)
            assert A.tile_text(v, t) == f"{hi}|{lo}"
        for n in range(rules.max_pip + 1):
            carrying = [t for t in hand if n in ts.tile(t)]
            assert A.count_carrying(v, n, -1) == len(carrying)
            if carrying:
                assert A.count_carrying(v, n, carrying[0]) == len(carrying) - 1
        for train in range(P + 1):
            assert A.is_mexican(v, train) == (train == P)
            assert A.is_mine(v, train) == (train == d.seat)
            assert A.train_owner(v, train) == (-1 if train == P else train)
            assert A.train_end(v, train) == v[V.TRAIN_END + train]
            assert A.train_length(v, train) == v[V.TRAIN_LEN + train]
            assert A.is_marked(v, train) == bool(v[V.TRAIN_MARKED + train])
        assert [A.open_double_train(v, k) for k in range(A.open_double_count(v))] == list(
            v[V.OPEN_DOUBLES : V.OPEN_DOUBLES + v[V.N_OPEN]]
        )
        assert [A.hand_size(v, s) for s in range(P)] == list(v[V.HAND_SIZE : V.HAND_SIZE + P])
        assert A.move_count(v) == v[V.N_MOVES] >= 2
        for i in range(A.move_count(v)):
            t, train = A.move_tile(v, i), A.move_train(v, i)
            lo, hi = ts.tile(t)
            end = v[V.TRAIN_END + train]
            assert end in (lo, hi)
            assert A.move_end(v, i) == (hi if lo == end else lo) == A.other_end(v, t, end)
            assert A.carries(v, t, end)
        assert A.first_turn(v) == bool(v[V.FIRST_TURN])
        assert A.on_duty(v) == bool(v[V.DUTY])
        assert A.laid_this_turn(v) == v[V.LAID_THIS_TURN]
        assert A.boneyard_size(v) == v[V.BONEYARD]
        assert A.round_number(v) == v[V.ROUND] and A.engine_number(v) == v[V.ENGINE]


def test_heavier_is_the_tile_order():
    ts = tile_set(12)
    for a in range(ts.count - 1):
        assert A.heavier(a, a + 1) and not A.heavier(a + 1, a)
        assert ts.pips[a] >= ts.pips[a + 1]


def test_notes_read_what_they_write():
    view = np.zeros(V.SIZE, dtype=np.int64)
    A.set_note(view, 3, -42)
    assert A.note(view, 3) == -42 == view[V.NOTES + 3]


def test_parameters_by_name_and_as_integers():
    P = param_index({"pip_weight": 0.0, "depth": 3.0, "own_first": 1.0})
    assert (P.pip_weight, P.depth, P.own_first) == (0, 1, 2)
    params = np.array([0.5, 2.9999999, 0.0])
    assert A.int_param(params, P.depth) == 3
    assert isinstance(A.int_param(params, P.depth), int)
    assert A.int_param(np.array([2.5]), 0) == 3
    assert A.flag_param(params, P.pip_weight) and not A.flag_param(params, P.own_first)


def test_a_move_index_past_the_legal_moves_raises(decisions):
    """The words beyond the legal moves lie inside the view, where numba's bounds check
    cannot see a read: the move accessors check the index against the moves listed."""
    _, d = decisions[0]
    n = A.move_count(d.view)
    assert A.move_tile(d.view, n - 1) == d.view[V.MOVE_TILE + n - 1]
    for accessor in (A.move_tile, A.move_train, A.move_end):
        with pytest.raises(IndexError, match="past the legal moves"):
            accessor(d.view, n)
        with pytest.raises(IndexError, match="past the legal moves"):
            accessor(d.view, -1)


OFF_BY_ONE = """
from mexsim.strategy.api import heavier, move_count, move_tile, strategy

NAME = "off_by_one"
DESCRIPTION = "the heaviest move, read one move too far"


@strategy
def decide(view, params):
    best = 0
    for i in range(move_count(view)):
        if heavier(move_tile(view, i + 1), move_tile(view, best)):  # one too far
            best = i
    return best
"""


@pytest.mark.compiles
def test_the_checker_and_a_run_name_the_off_by_one_alike(tmp_path):
    from typer.testing import CliRunner

    from mexsim.cli import app

    folder = tmp_path / "strategies"
    folder.mkdir()
    (folder / "off_by_one.py").write_text(OFF_BY_ONE, encoding="utf-8")
    checked = CliRunner().invoke(app, ["check", "off_by_one", "--strategies", str(folder)])
    assert checked.exit_code == 1, checked.output
    assert "past the legal moves" in checked.output
    config = tmp_path / "c.toml"
    config.write_text(
        '[run]\nmatches = 4\nout = "out"\n\n[[players]]\nstrategy = "off_by_one"\n\n'
        '[[players]]\nstrategy = "greedy"\n',
        encoding="utf-8",
    )
    ran = CliRunner().invoke(
        app, ["run", str(config), "--strategies", str(folder), "--out", str(tmp_path / "o")]
    )
    assert ran.exit_code == 1, ran.output
    assert "strategy 'off_by_one'" in ran.stderr and "past the legal moves" in ran.stderr


NOTE_PAST_MEMORY = """
from mexsim.strategy.api import set_note, strategy

NAME = "note_past_memory"
DESCRIPTION = "writes note 2 with MEMORY = 0"


@strategy
def decide(view, params):
    set_note(view, 2, 7)
    return 0
"""


@pytest.mark.compiles
def test_a_note_past_memory_is_refused_by_a_run_as_by_the_checker(tmp_path):
    """check said "wrote view word 138 (view[NOTES + 2]) ... MEMORY = 0" while a run
    played it silently (and the note reached the next seat's view): one rule for both."""
    from typer.testing import CliRunner

    from mexsim.cli import app

    folder = tmp_path / "strategies"
    folder.mkdir()
    (folder / "note_past_memory.py").write_text(NOTE_PAST_MEMORY, encoding="utf-8")
    checked = CliRunner().invoke(app, ["check", "note_past_memory", "--strategies", str(folder)])
    assert checked.exit_code == 1 and "NOTES + 2" in checked.output, checked.output
    config = tmp_path / "c.toml"
    config.write_text(
        '[run]\nmatches = 4\nout = "out"\n\n[[players]]\nstrategy = "note_past_memory"\n\n'
        '[[players]]\nstrategy = "greedy"\n',
        encoding="utf-8",
    )
    ran = CliRunner().invoke(
        app, ["run", str(config), "--strategies", str(folder), "--out", str(tmp_path / "o")]
    )
    assert ran.exit_code == 1, ran.output
    (line,) = ran.stderr.strip().splitlines()[-1:]
    assert "strategy 'note_past_memory'" in line
    assert "wrote view[NOTES + 2], past its MEMORY = 0 notes" in line
    assert "declare MEMORY = 3 or more" in line
