"""`mexsim play`: a new game or a kept one, the compiling done before the screen opens,
then the terminal interface; afterwards, where the game is kept."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path

from mexsim.errors import ConfigError
from mexsim.person.session import Session


def play(
    config: Path | None,
    seat: int,
    match: int,
    record: Path | None,
    resume: Path | None,
    strategies: tuple[Path, ...],
    compile_notice: Callable[[], AbstractContextManager],
) -> None:
    try:
        from mexsim.person.app import PlayApp
    except ImportError:
        raise ConfigError(
            "mexsim play needs Textual: pip install 'mexsim[play]' (or textual)"
        ) from None
    if (config is None) == (resume is None):
        raise ConfigError(
            "mexsim play takes a CONFIG for a new game, or --resume RECORD to continue one"
        )
    with compile_notice():
        if resume is not None:
            session = Session.resume(resume, strategies)
        else:
            assert config is not None
            session = Session.start(config, seat, match, record, strategies)
        session.save()
        warm_hints(session)
    PlayApp(session).run()
    if session.game.is_over():
        print(f"the match is over; its trace is in {session.record}")
    else:
        kept = session.record
        print(f"game kept in {kept}; continue it with: mexsim play --resume {kept}")


def warm_hints(session: Session) -> None:
    """Compile (or load) the forward model's rollouts now, not at the first hint."""
    from mexsim.strategy.move_values import world_penalties

    g = session.game
    if session.my_turn and g.move_count() > 0:
        world_penalties(g.view(session.seat), 1, True)
