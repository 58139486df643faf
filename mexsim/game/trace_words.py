"""The trace format's spelling of the Mexican train (docs/interface.md, "Game trace"): one home
for what the engines write and the referee and the renderer read.

In a trace a train is its owner's seat number, and the Mexican train, numbered P inside
the engines (R7), is the word "mexican".
"""

from __future__ import annotations

MEXICAN = "mexican"


def trace_train(train: int, players: int) -> int | str:
    """Train number ``train`` (0..P, P = the Mexican train) as a trace writes it."""
    return MEXICAN if train == players else train
