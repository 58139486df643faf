"""Every plot holds all it draws: long player names (a pool's sweep) once pushed
totals.png's right panel title and label past the figure's edge. A sweep has its plot,
sweeps.png."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image

from mexsim.analysis import plots
from mexsim.cli import app
from tests.tournament.runs import cli_runner, config_text, run_cli, write_config

PLAYERS = (
    '[[players]]\nstrategy = "longest_train"\nparams = { pip_weight = [0.0, 0.5, 1.0] }\n'
    '[[players]]\nstrategy = "early_doubles"\n[[players]]\nstrategy = "greedy"\n'
)


def test_every_plot_of_a_pool_with_long_names_holds_its_texts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    text = config_text(tmp_path / "out", matches=160, players=PLAYERS)
    text = text.replace("[seating]", "[tournament]\ntable_size = 4\n[seating]")
    cfg = write_config(tmp_path, text)
    drawn = []
    save = plots.save_figure

    def keep(figure, path, caption):
        save(figure, path, caption)
        drawn.append((figure, path))

    assert run_cli(cfg, "--quiet").exit_code == 0
    monkeypatch.setattr(plots, "save_figure", keep)
    assert cli_runner.invoke(app, ["report", str(tmp_path / "out")]).exit_code == 0
    assert {p.name for _, p in drawn} >= {"totals.png", "ratings.png", "sweeps.png"}
    for figure, path in drawn:
        tight = figure.get_tightbbox(figure.canvas.get_renderer())
        width, height = Image.open(path).size
        assert width >= tight.width * figure.dpi - 1, path.name
        assert height >= tight.height * figure.dpi - 1, path.name
