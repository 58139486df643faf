"""Regenerate the golden traces in tests/golden/ — only on purpose: `make golden`.

Each golden file is the JSONL trace of one match of a small config; tests/game/test_golden.py
replays the same config and requires the identical trace, so any change of behaviour
(rules, randomness, move order, strategies) shows up as a diff to review.
"""

from __future__ import annotations

import json
from pathlib import Path

from mexsim.tournament.config import load_config
from mexsim.tournament.replay import trace_match

GOLDEN = Path(__file__).parent / "golden"
CASES = {  # golden file stem -> (config, match)
    "seed-001-4p": ("tests/golden/seed-001-4p.toml", 3),
    "seed-000-3p": ("tests/golden/seed-000-3p.toml", 1),
    "standard-2p-double9": ("tests/golden/standard-2p-double9.toml", 0),
}


def golden_text(config_path: str, match: int) -> str:
    events = trace_match(load_config(config_path), match)
    return "".join(json.dumps(e, separators=(",", ":")) + "\n" for e in events)


def main() -> None:
    for stem, (config_path, match) in CASES.items():
        (GOLDEN / f"{stem}.jsonl").write_text(golden_text(config_path, match))
        print(f"wrote {GOLDEN / stem}.jsonl")


if __name__ == "__main__":
    main()
