"""weights, the linear player: with only its pips weight it is greedy, move for move;
its other features are pinned by the golden trace (tests/golden/weights-3p)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from mexsim.running.block_play import play_block
from mexsim.tournament.config import load_config
from mexsim.tournament.lineup import player_policies

ZERO = "pips = 1.0, double = 0, own = 0, public = 0, plan = 0, follow = 0, starve = 0, trap = 0"


def played(tmp_path: Path, first: str) -> np.ndarray:
    config = tmp_path / f"{first.split()[0]}.toml"
    config.write_text(
        "[run]\nmatches = 12\nseed = 5\n"
        f"[[players]]\n{first}\n"
        '[[players]]\nstrategy = "longest_train"\n[[players]]\nstrategy = "counter"\n'
    )
    cfg = load_config(config)
    return play_block(cfg, player_policies(cfg), 0, cfg.matches)


def test_weights_with_only_pips_plays_as_greedy(tmp_path: Path) -> None:
    as_greedy = played(tmp_path, 'strategy = "greedy"')
    as_weights = played(tmp_path, f'strategy = "weights"\nparams = {{ {ZERO} }}')
    assert np.array_equal(as_weights, as_greedy)
    defaults = played(tmp_path, 'strategy = "weights"')
    assert not np.array_equal(defaults, as_greedy)  # its other features change its play
