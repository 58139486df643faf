"""The docs site's derived pages (tests/make_docs.py) are up to date: docs/index.md and
docs/tutorial.md say what the README says, docs/cli.md what the command line offers."""

from __future__ import annotations

import pytest

from tests.make_docs import DOCS, ROOT, pages


@pytest.mark.parametrize("name", ["index.md", "tutorial.md", "cli.md"])
def test_a_derived_page_is_up_to_date(name: str) -> None:
    assert (DOCS / name).read_text(encoding="utf-8") == pages()[name], (
        f"docs/{name} is stale: run `make docs-pages` and review the diff"
    )


def test_every_command_and_option_is_in_the_cli_reference() -> None:
    import typer

    from mexsim.cli import app

    text = (DOCS / "cli.md").read_text(encoding="utf-8")
    group = typer.main.get_command(app)
    for name, command in group.commands.items():  # type: ignore[attr-defined]
        assert f"## mexsim {name}" in text
        for param in command.params:
            for opt in param.opts:
                if opt.startswith("--") and opt != "--help":
                    assert f"`{opt}`" in text, (name, opt)


def test_the_readme_stays_an_introduction() -> None:
    from tests.make_docs import ROOT

    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 250, f"README.md has {len(lines)} lines: move the detail to docs/"


def test_the_code_says_why_not_which_issue() -> None:
    """Comments say why; git keeps which issue or session asked for a change."""
    import re

    cited = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in sorted((ROOT / "mexsim").rglob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if re.search(r"\b[Ii]ssue \d+|\b[Ss]ession \d+", line)
    ]
    assert cited == []
