"""`--out URL` that cannot hold results: one line naming the URL, exit 2, nothing
written, never a traceback (found when tried as a user would)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.tournament.runs import config_text, one_line_error, run_cli, write_config

pytest.importorskip("fsspec")


@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("memory://results", "vanishes"),  # ran, then lost everything at exit
        ("ftp://no-such-host.invalid/results", "cannot open it"),  # was a socket traceback
        ("nosuchscheme://x/results", "cannot open it"),
    ],
)
def test_an_unusable_url_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, url: str, says: str
) -> None:
    monkeypatch.chdir(tmp_path)
    cfg = write_config(tmp_path, config_text(tmp_path / "unused", matches=5))
    line = one_line_error(run_cli(cfg, "--out", url, "--quiet"), 2)
    assert url in line and says in line
    assert sorted(p.name for p in tmp_path.iterdir()) == [cfg.name]
