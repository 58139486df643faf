"""``mexsim init [DIR]``: a folder to start from, from any install (a wheel too): a
runnable config with a strategy of your own in it, the starter strategy, and the
example configs that ship in the package (mexsim/examples/).

Text only (no numba, no pandas): it is instant. Nothing is ever overwritten: every file
it would write is checked first, and one that exists refuses the whole command.
"""

from __future__ import annotations

from pathlib import Path

from mexsim.errors import ConfigError
from mexsim.strategy.starter import write_starter

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
CONFIG = "mexsim.toml"
STRATEGY = "my_strategy"

CONFIG_TEXT = f"""\
# Your tournament: your strategy against three built-ins (docs/interface.md lists every
# key; examples/ has more configs to copy from).
# Run it with:     mexsim run {CONFIG}
# Then:            mexsim report results/mexsim    (plots)
#                  mexsim replay {CONFIG} --match 0 (one match, move by move)

[run]
matches = 10_000           # complete matches (each 13 rounds)
seed = 2026                # match k's randomness derives from (seed, k) only
out = "results/mexsim"     # relative to the folder you run from, like --out
strategies = "strategies"  # your strategy files, relative to this file

[rules]
preset = "seed-001"        # "seed-001" | "seed-000" | "standard" (docs/rules.md)

[[players]]
strategy = "{STRATEGY}"    # strategies/{STRATEGY}.py: edit it, then mexsim check {STRATEGY}

[[players]]
strategy = "longest_train"

[[players]]
strategy = "greedy"

[[players]]
strategy = "random"
"""


def example_configs() -> list[Path]:
    """The example configs shipped in the package, by name."""
    return sorted(EXAMPLES.glob("*.toml"))


def write_project(folder: Path) -> list[Path]:
    """Write the config, the starter strategy and the examples into ``folder``
    (created if need be); returns the files written. ConfigError, before anything is
    written, if any of them exists."""
    config = folder / CONFIG
    strategy = folder / "strategies" / f"{STRATEGY}.py"
    examples = [folder / "examples" / p.name for p in example_configs()]
    taken = [p for p in (config, strategy, *examples) if p.exists() or p.is_symlink()]
    if taken:
        raise ConfigError(
            f"{taken[0]} already exists: mexsim init never overwrites (choose an empty or "
            "new folder: mexsim init DIR)"
        )
    try:
        (folder / "examples").mkdir(parents=True, exist_ok=True)
        with config.open("x", encoding="utf-8") as out:
            out.write(CONFIG_TEXT)
        for source, target in zip(example_configs(), examples, strict=True):
            with target.open("x", encoding="utf-8") as out:
                out.write(source.read_text(encoding="utf-8"))
    except (FileExistsError, NotADirectoryError) as exc:
        raise ConfigError(f"{exc.filename}: cannot write there (a file is in the way)") from None
    except OSError as exc:
        raise ConfigError(f"{exc.filename or folder}: cannot write ({exc.strerror})") from None
    written = write_starter(STRATEGY, folder / "strategies")
    return [config, written, *examples]
