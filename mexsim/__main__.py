"""``python -m mexsim`` runs the command line."""

from mexsim.cli import app

if __name__ == "__main__":  # not when a Dask worker process re-imports the main module
    app()
