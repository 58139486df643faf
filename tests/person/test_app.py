"""`mexsim play`'s screen, driven headless by Textual's pilot in an 80 x 24 terminal:
every key, a whole match to its end, a quit and a continue."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

pytest.importorskip("textual")

from mexsim.game.referee import check_file
from mexsim.person.app import PlayApp
from mexsim.person.session import Session

ROOT = Path(__file__).resolve().parents[2]


DEFAULT = ROOT / "configs" / "default.toml"
SIZE = (80, 24)


def said(app: PlayApp) -> str:
    return "\n".join(app.said)


def in_a_fresh_process(body: str, tmp_path: Path) -> None:
    """``body(tmp_path)`` of this file run in a new process: a test worker that has run
    other tests may hold their threads (a strategy left spinning by design), and a
    screen's thousands of small steps each wait for the GIL behind them (3 s a typed
    move in CI, against 0.15 s alone)."""
    from tests.tournament.runs import python_in

    done = python_in(
        f"import sys; from tests.person.test_app import {body}; {body}(sys.argv[1])", tmp_path
    )
    assert done.returncode == 0, done.stderr[-3000:]


@pytest.mark.slow
@pytest.mark.processes
def test_a_whole_match_typed_move_by_move(tmp_path: Path) -> None:
    in_a_fresh_process("whole_match", tmp_path)


@pytest.mark.slow
@pytest.mark.processes
def test_quit_keeps_the_game_and_resume_continues_it(tmp_path: Path) -> None:
    in_a_fresh_process("quit_and_resume", tmp_path)


def whole_match(folder: str) -> None:
    tmp_path = Path(folder)
    record = tmp_path / "g.jsonl"
    session = Session.start(DEFAULT, seat=1, match=2, record=record)
    app = PlayApp(session)
    seen: list[str] = []

    async def drive() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press("h")
            seen.append(said(app))
            while not session.game.is_over():
                n = session.game.move_count()
                await pilot.press(*str(n - 1), "enter")  # the last listed move
                if "round" in said(app):
                    seen.append(said(app))
            await pilot.press("q")

    asyncio.run(drive())
    assert seen[0].startswith("hint: each move's expected penalty")
    rounds = [text for text in seen if "over: penalties" in text]
    assert len(rounds) == session.game.rules.rounds
    assert all("expected points" in text or "no decision" in text for text in rounds)
    assert "the match is over" in seen[-1]
    check_file(record)


def test_a_wrong_number_backspace_and_typing_are_handled(tmp_path: Path) -> None:
    session = Session.start(DEFAULT, seat=0, match=0, record=tmp_path / "g.jsonl")
    app = PlayApp(session)
    before = session.game.state.copy()

    async def drive() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press("9", "9", "enter")
            assert "type a move's number" in said(app)
            await pilot.press("x", "enter")  # a letter types nothing
            await pilot.press("5", "backspace", "enter")
            assert app.typed == ""
            assert (session.game.state == before).all()
            await pilot.press("0", "enter")
            assert session.your_moves  # played
            await pilot.press("q")

    asyncio.run(drive())


def quit_and_resume(folder: str) -> None:
    tmp_path = Path(folder)
    record = tmp_path / "g.jsonl"
    session = Session.start(DEFAULT, seat=3, match=1, record=record)
    app = PlayApp(session)

    async def first() -> None:
        async with app.run_test(size=SIZE) as pilot:
            for _ in range(12):
                await pilot.press("0", "enter")
            await pilot.press("q")

    asyncio.run(first())
    kept = [json.loads(x) for x in record.read_text(encoding="utf-8").splitlines()]
    assert kept[-1]["event"] == "in_progress" and len(kept[-1]["your_moves"]) == 12
    again = Session.resume(record)
    assert (again.game.state == session.game.state).all()
    app2 = PlayApp(again)

    async def second() -> None:
        async with app2.run_test(size=SIZE) as pilot:
            while not again.game.is_over():
                await pilot.press("0", "enter")
            await pilot.press("q")

    asyncio.run(second())
    check_file(record)
    last = json.loads(record.read_text(encoding="utf-8").splitlines()[-1])
    assert last["event"] == "match_end"  # the whole trace, as replay writes it


def screen_text(app: PlayApp, path: Path) -> str:
    """The screen's text, from Textual's own screenshot (SVG text rows)."""
    import html
    import re

    app.save_screenshot(str(path))
    svg = path.read_text(encoding="utf-8")
    rows: dict[float, list[tuple[float, str]]] = {}
    for m in re.finditer(r'<text[^>]*x="([\d.]+)" y="([\d.]+)"[^>]*>(.*?)</text>', svg):
        text = html.unescape(re.sub("<[^>]+>", "", m.group(3))).replace("\xa0", " ")
        rows.setdefault(float(m.group(2)), []).append((float(m.group(1)), text))
    return "\n".join("".join(t for _, t in sorted(r)) for _, r in sorted(rows.items()))


def test_markers_show_a_hint_lists_every_move_and_odd_digits_type_nothing(
    tmp_path: Path,
) -> None:
    from mexsim.game import view as V

    session = Session.start(DEFAULT, seat=0, match=0, record=tmp_path / "g.jsonl")
    while session.game.move_count() < 3:
        session.play(0)
    app = PlayApp(session)

    async def drive() -> None:
        async with app.run_test(size=SIZE) as pilot:
            session.game.state[V.TRAIN_MARKED + 2] = 1  # as a pass would leave it
            app.refresh_screen()
            await pilot.pause()
            assert "[marker]" in screen_text(app, tmp_path / "s.svg")
            await pilot.press("²", "①", "enter")
            assert app.typed == "" and "type a move's number" in said(app)
            await pilot.press("h")
            listed = [line for line in app.said[1:]]
            n = session.game.move_count()
            assert sum(line.count(" on ") for line in listed) == n  # every move
            await pilot.press("q")

    asyncio.run(drive())


def test_a_bots_failure_ends_the_screen_and_keeps_the_game(tmp_path: Path) -> None:
    from mexsim.errors import StrategyError

    record = tmp_path / "g.jsonl"
    session = Session.start(DEFAULT, seat=0, match=0, record=record)
    app = PlayApp(session)

    def broken() -> int:
        raise StrategyError("strategy 'x' (seat 1) in match 0, round 0 raised ValueError: boom")

    async def drive() -> None:
        async with app.run_test(size=SIZE) as pilot:
            session.game.suggest = broken  # type: ignore[method-assign]
            while app.failure is None:  # the person's first turn may chain several tiles
                await pilot.press("0", "enter")

    asyncio.run(drive())
    assert app.failure is not None and "boom" in str(app.failure)
    kept = [json.loads(x) for x in record.read_text(encoding="utf-8").splitlines()]
    assert kept[-1]["your_moves"] == session.your_moves  # up to the bot's failure
