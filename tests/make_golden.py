"""Regenerate the golden traces in tests/golden/ — only on purpose: `make golden`.

Each golden file is the JSONL trace of one match of a small config; tests/game/test_golden.py
replays the same config and requires the identical trace, so any change of behaviour
(rules, randomness, move order, strategies) shows up as a diff to review. A trace is
written only when the three implementations agree on it: the numba core plays it, the
pure-Python reference engine plays the identical trace, and the referee accepts it.
Otherwise nothing is written and the command fails naming the case.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from mexsim.game.referee import RefereeError, check_trace
from mexsim.game.reference import play_match
from mexsim.tournament.config import config_schedule, load_config
from mexsim.tournament.lineup import match_policies
from mexsim.tournament.replay import match_header, trace_match

GOLDEN = Path(__file__).parent / "golden"
CASES = {  # golden file stem -> (config, match); together every built-in strategy plays
    "seed-001-4p": ("tests/golden/seed-001-4p.toml", 3),
    "seed-000-3p": ("tests/golden/seed-000-3p.toml", 1),
    "standard-2p-double9": ("tests/golden/standard-2p-double9.toml", 0),
    "builtins-5p": ("tests/golden/builtins-5p.toml", 2),
    "duplicate-pool": ("tests/golden/duplicate-pool.toml", 5),
    "counter-4p": ("tests/golden/counter-4p.toml", 1),
    "house-rules-4p": ("tests/golden/house-rules-4p.toml", 4),
    "until-playable-3p": ("tests/golden/until-playable-3p.toml", 2),
    "search-3p": ("tests/golden/search-3p.toml", 1),
    "weights-3p": ("tests/golden/weights-3p.toml", 2),
}


def golden_text(config_path: str, match: int) -> str:
    """The core's trace of the match, as JSONL."""
    events = trace_match(load_config(config_path), match)
    return "".join(json.dumps(e, separators=(",", ":")) + "\n" for e in events)


def reference_text(config_path: str, match: int) -> str:
    """The reference engine's trace of the same match, as JSONL."""
    config = load_config(config_path)
    record = play_match(
        config.rules,
        config.seed,
        match,
        match_policies(config, match),
        header=match_header(config, match),
        deal_no=config_schedule(config).deal_of(match),
    )
    return "".join(json.dumps(e, separators=(",", ":")) + "\n" for e in record.events)


def disagreement(config_path: str, match: int, text: str) -> str | None:
    """Why ``text`` (the core's trace) may not become a golden file, or None."""
    if reference_text(config_path, match) != text:
        return "the reference engine plays another trace than the numba core"
    try:
        check_trace([json.loads(line) for line in text.splitlines()])
    except RefereeError as exc:
        return f"the referee rejects the core's trace: {exc}"
    return None


def main() -> int:
    texts = {}
    for stem, (config_path, match) in CASES.items():
        text = golden_text(config_path, match)
        problem = disagreement(config_path, match, text)
        if problem is not None:
            print(
                f"make golden: {stem} ({config_path}, match {match}): {problem}; nothing written",
                file=sys.stderr,
            )
            return 1
        texts[stem] = text
    for stem, text in texts.items():
        (GOLDEN / f"{stem}.jsonl").write_text(text)
        print(f"wrote {GOLDEN / stem}.jsonl")
    return 0


if __name__ == "__main__":
    sys.exit(main())
