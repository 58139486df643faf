"""Write the docs pages that are derived, not written: `make docs-pages`.

- ``docs/index.md`` and ``docs/tutorial.md``: the README's introduction and its
  ten-minute tour, with links made relative to docs/ (one text for a clone and for the
  site);
- ``docs/cli.md``: every command's ``--help``, from the typer app itself.

tests/test_docs.py fails when a page differs from what this writes, so the site never
drifts from the README or from the command line.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
TOUR = "## A ten-minute tour"
NEXT = "## Where to go next"
GENERATED = (
    "<!-- written by `make docs-pages` (tests/make_docs.py) from {source}: edit that -->\n\n"
)


def _site_links(text: str) -> str:
    """README links, as docs/ pages see them."""
    text = text.replace("](docs/", "](")
    # files beside docs/, not in the site: named, not linked
    return re.sub(r"\[([A-Z]+\.md)\]\(\1\)", r"`\1` (in the repository)", text)


def pages() -> dict[str, str]:
    """Each derived page's path under docs/ and its text."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    intro, rest = readme.split(TOUR, 1)
    tour, after = rest.split(NEXT, 1)
    index = intro + NEXT + after
    tutorial = "# A ten-minute tour\n" + tour
    return {
        "index.md": GENERATED.format(source="README.md") + _site_links(index),
        "tutorial.md": GENERATED.format(source="README.md") + _site_links(tutorial),
        "cli.md": GENERATED.format(source="the typer app, mexsim/cli.py") + cli_reference(),
    }


def cli_reference() -> str:
    """Every command's arguments and options, with their help and defaults, read from
    the typer app's own parameters (not its terminal rendering, which depends on the
    terminal)."""
    import typer

    from mexsim.cli import app

    group = typer.main.get_command(app)
    parts = [
        "# Command line\n",
        "Every command, its arguments and options, as `mexsim COMMAND --help` gives them.\n",
    ]
    for name in sorted(group.commands):  # type: ignore[attr-defined]
        command = group.commands[name]  # type: ignore[attr-defined]
        parts.append(f"## mexsim {name}\n\n{(command.help or '').strip()}\n")
        rows = ["| argument or option | what |", "|---|---|"]
        for param in command.params:
            if param.name == "help":
                continue
            spelled = ", ".join(f"`{o}`" for o in param.opts) if param.opts else param.name
            if getattr(param, "metavar", None):
                spelled += f" `{param.metavar}`"
            what = " ".join((getattr(param, "help", None) or "").split())
            default = param.default
            if default not in (None, False, ()) and not callable(default):
                what += f" (default: `{getattr(default, 'value', default)}`)"
            rows.append(f"| {spelled} | {what.replace('|', chr(92) + '|')} |")
        parts.append("\n".join(rows) + "\n")
    return "\n".join(parts)


def main() -> int:
    for name, text in pages().items():
        (DOCS / name).write_text(text, encoding="utf-8")
        print(f"wrote {DOCS / name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
