"""``python -m mexsim`` runs the command line."""

from mexsim.cli import app

app()
