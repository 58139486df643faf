"""What a finished run reports: its result, and run.json beside its tables."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from mexsim.running.in_order import StopRule
from mexsim.tournament.config import Config
from mexsim.tournament.luck import LuckModel
from mexsim.tournament.resolved import resolved_config
from mexsim.version import __version__


@dataclass(frozen=True)
class RunResult:
    directory: Path | str  # a results folder or a shared location's URL
    matches: int
    workers: int
    wall_seconds: float  # the whole command, from its start to the results in place
    play_seconds: float = 0.0
    summary_seconds: float = 0.0
    played: int = 0  # matches played by this command (fewer when resumed)

    @property
    def matches_per_second(self) -> float:
        return self.played / self.play_seconds if self.play_seconds > 0 else float("inf")


TIMING_FIELDS = (
    "workers",
    "wall_seconds",
    "play_seconds",
    "summary_seconds",
    "matches_per_second",
    "resumed_blocks",
)


def nothing() -> None:
    """A cleanup with nothing to clean (no cluster was opened)."""


def write_run_json(
    folder: Path,
    config: Config,
    rid: str,
    result: RunResult,
    resumed_blocks: int,
    until: StopRule | None = None,
    verdict: str | None = None,
    decided: bool = False,
    model: LuckModel | None = None,
) -> None:
    """run.json. ``verdict``: under ``until``, the comparison's verdict as the run said
    it (when it stopped the run, or at the cap), and ``decided`` whether it was."""
    import numba

    (folder / "run.json").write_text(
        json.dumps(
            {
                "run_id": rid,
                "config": resolved_config(config),
                "mexsim_version": __version__,
                "numba_version": numba.__version__,
                "seed": config.seed,
                "matches": result.matches,
                "until": None
                if until is None
                else {
                    "rule": "decided",
                    "confidence": until.confidence,
                    "margin": until.margin,
                    "max_matches": config.matches,
                    "decided": decided,
                    "verdict": verdict,
                },
            }
            | ({} if model is None else {"luck": model.to_dict()})
            | {
                # the timing fields: the only ones that differ between runs of one config
                "workers": result.workers,
                "wall_seconds": round(result.wall_seconds, 3),
                "play_seconds": round(result.play_seconds, 3),
                "summary_seconds": round(result.summary_seconds, 3),
                "matches_per_second": round(min(result.matches_per_second, 1e12), 1),
                "resumed_blocks": resumed_blocks,
            },
            indent=2,
            allow_nan=False,
        )
        + "\n"
    )
