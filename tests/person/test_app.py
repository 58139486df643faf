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


@pytest.mark.slow
def test_a_whole_match_typed_move_by_move(tmp_path: Path) -> None:
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
    assert seen[0].startswith("hint: expected penalty")
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


@pytest.mark.slow
def test_quit_keeps_the_game_and_resume_continues_it(tmp_path: Path) -> None:
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
