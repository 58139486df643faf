"""`seed = "random"`: a seed no strategy's author can know, drawn as the run starts and
recorded, so that the run stays reproducible (issue 32, docs/rules.md "Randomness")."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from mexsim.errors import ConfigError
from mexsim.running.runner import interrupted_seed
from mexsim.tournament.config import MAX_SEED, load_config, with_overrides

CONFIG = (
    '[run]\nmatches = 4\nseed = "random"\nout = "{out}"\n'
    '[[players]]\nstrategy = "greedy"\n[[players]]\nstrategy = "random"\n'
)


def write(tmp_path: Path, seed: str = '"random"') -> Path:
    path = tmp_path / "cfg.toml"
    path.write_text(
        CONFIG.format(out=tmp_path / "res").replace('"random"', seed, 1), encoding="utf-8"
    )
    return path


def test_each_load_draws_a_seed_of_its_own(tmp_path):
    path = write(tmp_path)
    seeds = {load_config(path).seed for _ in range(5)}
    assert len(seeds) == 5
    assert all(0 <= s <= MAX_SEED for s in seeds)
    assert load_config(path).seed_drawn
    assert not with_overrides(load_config(path), seed=3).seed_drawn


@pytest.mark.parametrize("seed", ['"randm"', '"7"', "-1"])
def test_other_seeds_are_refused_naming_the_choices(tmp_path, seed):
    with pytest.raises(ConfigError, match="seed"):
        load_config(write(tmp_path, seed))


def test_the_interrupted_runs_seed_is_found(tmp_path):
    out = tmp_path / "res"
    assert interrupted_seed(str(out)) is None
    work = tmp_path / ".res.tmp-123"
    work.mkdir()
    identity = {"config": {"run": {"seed": 987654321, "matches": 4}}}
    (work / "work.json").write_text(json.dumps({"run_id": "x", "identity": identity}))
    assert interrupted_seed(str(out)) == 987654321


def mexsim(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "mexsim", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


@pytest.mark.slow
@pytest.mark.processes
def test_a_drawn_seed_is_said_recorded_and_replays_the_run(tmp_path):
    path = write(tmp_path)
    done = mexsim("run", str(path), "--quiet", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    said = [line for line in done.stderr.splitlines() if "drew seed" in line]
    assert len(said) == 1
    seed = int(said[0].split("drew seed ")[1].split()[0])
    recorded = json.loads((tmp_path / "res" / "run.json").read_text())
    assert recorded["run"]["seed"] == seed if "run" in recorded else recorded["seed"] == seed
    again = mexsim(
        "run",
        str(path),
        "--quiet",
        "--seed",
        str(seed),
        "--out",
        str(tmp_path / "again"),
        cwd=tmp_path,
    )
    assert again.returncode == 0, again.stderr
    for name in ("matches.parquet", "rounds.parquet"):
        assert (tmp_path / "res" / name).read_bytes() == (tmp_path / "again" / name).read_bytes()
    refused = mexsim("replay", str(path), "--match", "0", cwd=tmp_path)
    assert refused.returncode == 2
    assert "--seed" in refused.stderr and len(refused.stderr.splitlines()) == 1


@pytest.mark.slow
@pytest.mark.processes
def test_resume_continues_the_interrupted_runs_drawn_seed(tmp_path):
    """SIGTERM halfway through a run whose seed was drawn; --resume continues with that
    seed (not a new draw), to the files a run with --seed gives."""
    import signal

    from tests.tournament.runs import (
        config_text,
        interrupt,
        run_cli,
        wait_for_parts,
        write_config,
    )
    from tests.tournament.runs import (
        mexsim as start,
    )

    text = config_text(tmp_path / "unused", matches=20_000).replace(
        "seed = ", 'seed = "random"\n# ', 1
    )
    cfg = write_config(tmp_path, text)
    out = tmp_path / "res"
    proc = start("run", cfg, "--out", out, "--workers", "2", "--quiet")
    wait_for_parts(proc, tmp_path, 20)
    code, _, stderr, _ = interrupt(proc, signal.SIGTERM)
    assert code == 143, stderr
    drawn = int(stderr.split("drew seed ")[1].split()[0])
    resumed = run_cli(cfg, "--out", out, "--workers", "1", "--quiet", "--resume")
    assert resumed.exit_code == 0, resumed.stderr
    assert f"resuming with the interrupted run's seed {drawn}" in resumed.stderr
    fresh = run_cli(cfg, "--out", tmp_path / "fresh", "--quiet", "--seed", str(drawn))
    assert fresh.exit_code == 0, fresh.stderr
    for name in ("matches.parquet", "rounds.parquet"):
        assert (out / name).read_bytes() == (tmp_path / "fresh" / name).read_bytes()
