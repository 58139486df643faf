"""Rule options (docs/rules.md, "Presets" and R1–R16) resolved into one validated object."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from mexsim.errors import ConfigError
from mexsim.validate import need_bool, need_choice, need_int

PRESETS: dict[str, dict[str, Any]] = {
    "seed-001": {"engine": "holder", "first_turn": "train", "draw_to_start": False},
    "seed-000": {"engine": "holder", "first_turn": "single", "draw_to_start": True},
    "standard": {"engine": "set_aside", "first_turn": "single", "draw_to_start": False},
}
DEFAULT_PRESET = "seed-001"
FIRST_TURN_MODES = ("single", "train")
ENGINE_MODES = ("holder", "set_aside")
MIN_PIP, MAX_PIP = 6, 15
MIN_PLAYERS, MAX_PLAYERS = 2, 10
#: distinct strategies in one run: the size of the kernels' tuple of decide functions
MAX_STRATEGIES = 16
MAX_DOUBLE_BLANK_POINTS = 1000
MIN_HAND_SIZE = 2
RULE_KEYS = (
    "preset",
    "max_pip",
    "first_turn",
    "engine",
    "draw_to_start",
    "double_blank_points",
    "hand_size",
    "draw_limit",
    "mexican_train",
)
# R18: ``draw_limit = "until_playable"`` (stored as 0): draw until a tile can be played
UNTIL_PLAYABLE = "until_playable"
DEFAULT_DRAW_LIMIT = 1


def tile_count(max_pip: int) -> int:
    """R1: a double-N set holds (N+1)(N+2)/2 tiles."""
    return (max_pip + 1) * (max_pip + 2) // 2


# R3: tiles per hand with the double-12 set, as (most players, tiles) steps. seed 001
# deals 15 to up to 4 players; seed 000 says every player takes twelve, and fewer only
# at 7 or more players (its preset follows it; seed-001 and standard keep R3's table).
HAND_SIZES = ((4, 15), (6, 12), (8, 10), (10, 8))
SEED_000_HAND_SIZES = ((6, 12), (8, 10), (10, 8))
PRESET_HAND_SIZES = {
    "seed-001": HAND_SIZES,
    "seed-000": SEED_000_HAND_SIZES,
    "standard": HAND_SIZES,
}


def default_hand_size(players: int, preset: str = DEFAULT_PRESET) -> int:
    """R3: the double-12 hand size for this many players under ``preset``."""
    for most, tiles in PRESET_HAND_SIZES[preset]:
        if players <= most:
            return tiles
    raise ValueError(f"{players} players: R2 allows {MIN_PLAYERS}..{MAX_PLAYERS}")


@dataclass(frozen=True)
class Rules:
    """Every rule option spelled out; build it with :func:`resolve_rules`."""

    preset: str
    max_pip: int
    first_turn: str
    engine: str
    draw_to_start: bool
    double_blank_points: int
    hand_size: int
    players: int
    draw_limit: int = DEFAULT_DRAW_LIMIT  # R18: tiles drawn for a play; 0: until playable
    mexican_train: bool = True  # R19: false: the table has no Mexican train

    @property
    def tiles(self) -> int:
        return tile_count(self.max_pip)

    @property
    def rounds(self) -> int:
        """R4: a match is N+1 rounds."""
        return self.max_pip + 1

    def to_dict(self) -> dict[str, Any]:
        """The resolved options as written into traces and run.json (no player count)."""
        d = asdict(self)
        del d["players"]
        if self.draw_limit == 0:
            d["draw_limit"] = UNTIL_PLAYABLE
        return d


def resolve_rules(options: dict[str, Any], players: int, where: str = "[rules]") -> Rules:
    """Apply the preset, then explicit keys, and check the result can be dealt (R1–R5).

    ``where`` prefixes error messages (e.g. ``"configs/x.toml [rules]"``).
    """
    unknown = sorted(set(options) - set(RULE_KEYS))
    if unknown:
        allowed = ", ".join(RULE_KEYS)
        raise ConfigError(f"{where}: unknown key '{unknown[0]}' (allowed: {allowed})")
    need_int(where, "players", players, MIN_PLAYERS, MAX_PLAYERS)
    preset = need_choice(where, "preset", options.get("preset", DEFAULT_PRESET), tuple(PRESETS))
    merged: dict[str, Any] = {
        "max_pip": 12,
        "double_blank_points": 0,
        "hand_size": None,
        "draw_limit": DEFAULT_DRAW_LIMIT,
        "mexican_train": True,
        **PRESETS[preset],
    }
    merged.update({k: v for k, v in options.items() if k != "preset"})

    max_pip = need_int(where, "max_pip", merged["max_pip"], MIN_PIP, MAX_PIP)
    first_turn = need_choice(where, "first_turn", merged["first_turn"], FIRST_TURN_MODES)
    engine = need_choice(where, "engine", merged["engine"], ENGINE_MODES)
    draw_to_start = need_bool(where, "draw_to_start", merged["draw_to_start"])
    dbp = need_int(
        where, "double_blank_points", merged["double_blank_points"], 0, MAX_DOUBLE_BLANK_POINTS
    )

    tiles = tile_count(max_pip)
    draw_limit = _draw_limit(where, merged["draw_limit"], tiles)
    mexican_train = need_bool(where, "mexican_train", merged["mexican_train"])
    in_deal = tiles - (1 if engine == "set_aside" else 0)
    hand_size = merged["hand_size"]
    if hand_size is None:
        if max_pip != 12:
            raise ConfigError(
                f"{where}: 'hand_size' is required when max_pip = {max_pip} "
                "(R3 gives a table for the double-12 set only)"
            )
        hand_size = default_hand_size(players, preset)
    largest = (in_deal - 1) // players
    # A one-tile hand would let the engine's holder go out before play starts (R5, R14).
    hand_size = need_int(where, "hand_size", hand_size, MIN_HAND_SIZE, None)
    if hand_size > largest:
        raise ConfigError(
            f"{where}: 'hand_size' = {hand_size} does not fit a double-{max_pip} set "
            f"({tiles} tiles, engine {engine}) for {players} players with at least one tile "
            f"left in the boneyard (allowed: {MIN_HAND_SIZE}..{largest})"
        )
    return Rules(
        preset=preset,
        max_pip=max_pip,
        first_turn=first_turn,
        engine=engine,
        draw_to_start=draw_to_start,
        double_blank_points=dbp,
        hand_size=hand_size,
        players=players,
        draw_limit=draw_limit,
        mexican_train=mexican_train,
    )


def _draw_limit(where: str, value: Any, tiles: int) -> int:
    """R18: a whole number of tiles 1 .. the set's, or "until_playable" (stored as 0)."""
    if value == UNTIL_PLAYABLE:
        return 0
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= tiles:
        raise ConfigError(
            f"{where}: 'draw_limit' = {value!r} is not allowed (allowed: 1..{tiles} tiles a "
            f'play, or "{UNTIL_PLAYABLE}": draw until a tile can be played)'
        )
    return value
