"""mexsim tune on a strategy whose best parameter is known by construction
(tests/fixtures/strategies_tune/banded.py: heaviest tile first when x lies in
[0.5, 0.8], lightest first otherwise): the study finds the band, stops the clearly
worse trials early, keeps its trials when stopped and goes on to the verdict an
uninterrupted study of the same size reaches."""

from __future__ import annotations

import signal
import tomllib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mexsim.cli import app
from mexsim.errors import ConfigError, Interrupted, StrategyError
from mexsim.running.stop_signals import Stop
from mexsim.tournament.config import load_config
from mexsim.tune.command import read_settings, tune_study, tuning_for
from mexsim.tune.outputs import read_verdict

pytestmark = [pytest.mark.slow, pytest.mark.compiles]

STRATEGIES = Path(__file__).resolve().parents[1] / "fixtures" / "strategies_tune"
BAND = (0.5, 0.8)


def write_config(folder: Path, trials: int, low: float = 0.0) -> Path:
    config = folder / "banded.toml"
    config.write_text(
        f'[run]\nmatches = 100\nseed = 11\nout = "{folder / "res"}"\n'
        f'strategies = ["{STRATEGIES}"]\n'
        '[[players]]\nstrategy = "banded"\n[[players]]\nstrategy = "greedy"\n'
        f'[tune]\nplayer = "banded"\ntrials = {trials}\nmatches = 200\nvalidate = 200\n'
        f"[tune.params]\nx = [{low}, 1.0]\n"
    )
    return config


def study(config: Path, out: Path, progress=lambda n: None, fresh: bool = False):
    tuning = tuning_for(load_config(config), read_settings(config), str(out), 2, 60.0)
    return tune_study(tuning, fresh, lambda line: None, progress)


def test_the_study_finds_the_band_and_says_how_sure(tmp_path: Path) -> None:
    config = write_config(tmp_path, trials=12)
    report = study(config, tmp_path / "study")
    rows = (tmp_path / "study" / "tune.csv").read_text().splitlines()
    assert rows[0] == "trial,x,matches,margin,diff_vs_best,diff_lo,diff_hi,pruned,best"
    assert len(rows) == 13
    facts = read_verdict(tmp_path / "study")
    assert BAND[0] <= facts["best"]["x"] <= BAND[1]
    for row in rows[1:]:  # racing stopped only trials outside the band, and early
        _, x, matches, *_, pruned, _ = row.split(",")
        if pruned == "True":
            assert not BAND[0] <= float(x) <= BAND[1] and int(matches) < 200
    assert any(row.endswith("True,False") for row in rows[1:])
    vs_configured = facts["validation"]["vs_configured"]  # configured x = 0: outside
    assert vs_configured[2] < 0, vs_configured
    assert any("against greedy: ahead in" in line for line in report.lines)
    best = tomllib.loads((tmp_path / "study" / "best.toml").read_text())
    assert best["players"][0]["params"]["x"] == facts["best"]["x"]
    assert (
        load_config(tmp_path / "study" / "best.toml").players[0].params["x"] == facts["best"]["x"]
    )
    shown = CliRunner().invoke(app, ["report", str(tmp_path / "study")])
    assert shown.exit_code == 0, shown.stderr
    assert report.lines[0] in shown.stdout and "tune_history.png" in shown.stdout


def test_a_stopped_study_continues_to_the_verdict_of_an_unstopped_one(tmp_path: Path) -> None:
    config = write_config(tmp_path, trials=7)
    whole = study(config, tmp_path / "whole")
    played = [0]

    def stop_in_the_fifth_trial(n: int) -> None:
        played[0] += n
        if played[0] > 4 * 200:
            raise Stop(signal.SIGINT)

    with pytest.raises(Interrupted, match=r"finished trials kept in .*study.db; the same command"):
        study(config, tmp_path / "stopped", stop_in_the_fifth_trial)
    kept = (tmp_path / "stopped" / "tune.csv").read_text().splitlines()
    assert 2 <= len(kept) - 1 <= 5
    continued = study(config, tmp_path / "stopped")
    csv = (tmp_path / "whole" / "tune.csv").read_text()
    assert (tmp_path / "stopped" / "tune.csv").read_text() == csv
    assert continued.lines == whole.lines

    def trial(row: str) -> list[str]:  # its number, x, matches and margin
        return row.split(",")[:4]

    assert [trial(r) for r in kept] == [trial(r) for r in csv.splitlines()[: len(kept)]]


def test_a_study_is_continued_only_by_its_own_table(tmp_path: Path) -> None:
    study(write_config(tmp_path, trials=2), tmp_path / "study")
    with pytest.raises(ConfigError, match=r"made by another \[tune\] table.*--fresh"):
        study(write_config(tmp_path, trials=2, low=0.25), tmp_path / "study")
    more = study(write_config(tmp_path, trials=3), tmp_path / "study")  # a larger budget
    assert more.lines[0].startswith("3 trials")
    again = study(write_config(tmp_path, trials=2, low=0.25), tmp_path / "study", fresh=True)
    assert again.lines[0].startswith("2 trials")


def test_a_folder_of_someone_elses_files_is_never_written(tmp_path: Path) -> None:
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "notes.txt").write_text("precious")
    with pytest.raises(ConfigError, match="holds files but no study"):
        study(write_config(tmp_path, trials=1), folder)
    assert [p.name for p in folder.iterdir()] == ["notes.txt"]


@pytest.mark.processes
def test_ctrl_c_keeps_every_finished_trial(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys
    import time

    config = write_config(tmp_path, trials=400)
    out = tmp_path / "study"
    process = subprocess.Popen(
        [sys.executable, "-m", "mexsim", "tune", str(config), "--out", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    csv = out / "tune.csv"
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and process.poll() is None:
        if csv.exists() and len(csv.read_text().splitlines()) >= 3:
            break
        time.sleep(0.1)
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == 130, stderr
    said = [line for line in stderr.splitlines() if not line.startswith("mexsim: compiling")]
    assert len(said) == 1 and said[0].startswith("mexsim: stopped: "), stderr
    finished = int(said[0].split()[2])
    assert finished >= 2 and len(csv.read_text().splitlines()) == finished + 1
    import optuna

    trials = optuna.load_study(study_name="mexsim-tune", storage=f"sqlite:///{out / 'study.db'}")
    states = [t.state.name for t in trials.get_trials()]
    assert states.count("COMPLETE") + states.count("PRUNED") == finished
    assert "RUNNING" not in states[:-1]  # the trial in play, if any, waits to be played again


@pytest.mark.processes
def test_a_study_on_a_dask_cluster_is_the_study_on_threads(tmp_path: Path) -> None:
    pytest.importorskip("distributed")
    config = write_config(tmp_path, trials=3)
    on_threads = study(config, tmp_path / "threads")
    tuning = tuning_for(load_config(config), read_settings(config), str(tmp_path / "dask"), 1, 60)
    on_dask = tune_study(tuning, False, lambda line: None, cluster="local:1")
    assert on_dask.lines == on_threads.lines
    for name in ("tune.csv", "tune.json"):
        assert (tmp_path / "dask" / name).read_bytes() == (tmp_path / "threads" / name).read_bytes()


@pytest.mark.parametrize("sampler", ["cmaes", "random"])
def test_every_sampler_runs_a_study(tmp_path: Path, sampler: str) -> None:
    config = write_config(tmp_path, trials=3)
    text = config.read_text().replace("[tune]\n", f'[tune]\nsampler = "{sampler}"\n')
    config.write_text(text.replace("validate = 200", "validate = 0"))
    report = study(config, tmp_path / "study")
    assert report.lines[0].startswith("3 trials")
    assert any("no validation" in line for line in report.lines)


def test_a_stopped_cmaes_study_continues_to_the_unstopped_ones_trials(tmp_path: Path) -> None:
    config = write_config(tmp_path, trials=6)
    text = config.read_text().replace("[tune]\n", '[tune]\nsampler = "cmaes"\nprune = false\n')
    config.write_text(text)
    whole = study(config, tmp_path / "whole")
    played = [0]

    def stop_in_the_fourth_trial(n: int) -> None:
        played[0] += n
        if played[0] > 3 * 200 + 100:
            raise Stop(signal.SIGINT)

    with pytest.raises(Interrupted):
        study(config, tmp_path / "stopped", stop_in_the_fourth_trial)
    assert study(config, tmp_path / "stopped").lines == whole.lines
    csv = (tmp_path / "stopped" / "tune.csv").read_bytes()
    assert csv == (tmp_path / "whole" / "tune.csv").read_bytes()


def test_a_strategys_fault_names_the_trial_and_keeps_the_study(tmp_path: Path) -> None:
    config = tmp_path / "fragile.toml"
    config.write_text(
        f'[run]\nseed = 3\nout = "{tmp_path / "res"}"\nstrategies = ["{STRATEGIES}"]\n'
        '[[players]]\nstrategy = "fragile"\n[[players]]\nstrategy = "greedy"\n'
        '[tune]\nplayer = "fragile"\ntrials = 30\nmatches = 20\nvalidate = 0\n'
        "[tune.params]\nx = [0.0, 1.0]\n"
    )
    with pytest.raises(StrategyError, match=r"x too large.*\(trial \d+: x = 0\.9\d*; the study"):
        study(config, tmp_path / "study")
    assert (tmp_path / "study" / "tune.csv").is_file()


def test_report_says_what_a_study_lacks(tmp_path: Path) -> None:
    config = write_config(tmp_path, trials=2)
    study(config, tmp_path / "study")
    more = config.read_text().replace("trials = 2", "trials = 3")
    config.write_text(more)

    def stop_at_once(n: int) -> None:
        raise Stop(signal.SIGINT)

    with pytest.raises(Interrupted):
        study(config, tmp_path / "study", stop_at_once)
    shown = CliRunner().invoke(app, ["report", str(tmp_path / "study")])
    assert shown.exit_code == 0 and "2 trials" in shown.stdout
    with pytest.raises(Interrupted):
        study(config, tmp_path / "stopped", stop_at_once)
    shown = CliRunner().invoke(app, ["report", str(tmp_path / "stopped")])
    assert shown.exit_code == 0, shown.stderr
    assert "stopped before its end, 0 finished trials" in shown.stdout
    (tmp_path / "stopped" / "study.db").unlink()
    shown = CliRunner().invoke(app, ["report", str(tmp_path / "stopped")])
    assert shown.exit_code == 2 and "database is missing" in shown.stderr
    assert not (tmp_path / "stopped" / "study.db").exists()


def test_what_the_study_needs_is_checked_before_it_plays(tmp_path: Path) -> None:
    config = write_config(tmp_path, trials=1)
    config.write_text(config.read_text().replace("validate = 200", "validate = 1"))
    with pytest.raises(ConfigError, match=r"'validate' = 1 is too few matches.*at least 2"):
        study(config, tmp_path / "study")
    assert not (tmp_path / "study").exists()


def test_a_drawn_seed_is_said_and_kept_by_the_study(tmp_path: Path) -> None:
    from mexsim.tune.command import settle_seed

    config = write_config(tmp_path, trials=1)
    config.write_text(config.read_text().replace("seed = 11", 'seed = "random"'))
    first = tuning_for(load_config(config), read_settings(config), str(tmp_path / "s"), 2, 60)
    said = settle_seed(first, True)
    assert said and said.startswith(f'seed = "random": drew seed {first.config.seed} ')
    tune_study(first, False, lambda line: None)
    again = tuning_for(load_config(config), read_settings(config), str(tmp_path / "s"), 2, 60)
    assert "continuing" in (settle_seed(again, True) or "")
    assert again.config.seed == first.config.seed
    afresh = tuning_for(load_config(config), read_settings(config), str(tmp_path / "s"), 2, 60)
    assert "drew seed" in (settle_seed(afresh, True, fresh=True) or "")
    best = tomllib.loads((tmp_path / "s" / "best.toml").read_text())
    assert best["run"]["seed"] == first.config.seed


def test_a_study_killed_as_it_was_made_is_made_again(tmp_path: Path) -> None:
    from mexsim.tune.study import STUDY_NAME, optuna_module, storage_url

    (tmp_path / "study").mkdir()
    optuna_module().create_study(
        study_name=STUDY_NAME, storage=storage_url(tmp_path / "study" / "study.db")
    )
    report = study(write_config(tmp_path, trials=1), tmp_path / "study")
    assert report.lines[0].startswith("1 trial (")
