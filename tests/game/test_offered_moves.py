"""The legal moves offered at each play (mexsim.game.referee.offered_moves) and their
telling by `mexsim replay --moves`: the engines' move order, the chosen one, forced moves."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from mexsim.cli import app
from mexsim.game.play import core_trace
from mexsim.game.referee import offered_moves
from mexsim.game.render import render_text
from mexsim.game.rules import resolve_rules
from mexsim.game.tiles import tile_set
from mexsim.strategy.policy import resolve_policies

runner = CliRunner()
SEATS = ["greedy", "random", "greedy", "mexican_first"]


def trace(match: int = 0, players: int = 4) -> tuple[list[dict], object]:
    rules = resolve_rules({}, players)
    header = {
        "event": "match",
        "match": match,
        "seed": 3,
        "rules": rules.to_dict(),
        "players": [{"seat": s, "player": n, "strategy": n} for s, n in enumerate(SEATS[:players])],
    }
    return core_trace(rules, resolve_policies(SEATS[:players]), 3, match, header=header), rules


def test_every_play_was_offered_and_greedy_chose_the_heaviest():
    events, rules = trace()
    offered = offered_moves(events)
    ts = tile_set(rules.max_pip)
    plays = [i for i, ev in enumerate(events) if ev["event"] == "play"]
    assert sorted(offered) == plays
    forced = asked = 0
    for i in plays:
        ev, moves = events[i], offered[i]
        chosen = moves.index((ev["tile"], ev["train"]))
        if len(moves) == 1:
            forced += 1
            continue
        asked += 1
        numbers = [int(ts.index[a, b]) for (a, b), _ in moves]
        # docs/rules.md, "Move order": own train, Mexican, others clockwise; by tile number
        s, P = ev["seat"], rules.players
        rank = {s: 0, "mexican": 1, **{(s + k) % P: 1 + k for k in range(1, P)}}
        keys = [(rank[train], n) for (_, train), n in zip(moves, numbers, strict=True)]
        assert keys == sorted(keys) and len(set(keys)) == len(keys), moves
        if SEATS[ev["seat"]] == "greedy":  # the first heaviest in the engines' order
            assert chosen == numbers.index(min(numbers)), (i, moves, ev)
    assert forced > 10 and asked > 10


def test_text_marks_the_choice_and_forced_moves():
    events, _ = trace(1)
    text = render_text(events, offered_moves(events))
    choices = [line for line in text.splitlines() if "chose from" in line]
    assert choices and all(line.count("*") == 1 for line in choices)
    assert "forced: the only legal move" in text
    assert "|" in choices[0]  # tiles as 12|5
    assert (
        render_text(events)
        == "\n".join(
            line for line in text.splitlines() if "chose from" not in line and "forced:" not in line
        )
        + "\n"
    )


def test_replay_moves_option(tmp_path: Path):
    config = tmp_path / "c.toml"
    config.write_text(
        '[run]\nmatches = 2\n[[players]]\nstrategy = "greedy"\n[[players]]\nstrategy = "random"\n'
    )
    result = runner.invoke(app, ["replay", str(config), "--match", "1", "--moves"])
    assert result.exit_code == 0, result.output
    assert "chose from" in result.stdout and "forced" in result.stdout
    bad = runner.invoke(
        app, ["replay", str(config), "--match", "1", "--moves", "--format", "jsonl"]
    )
    assert bad.exit_code == 2 and "--moves" in bad.stderr
