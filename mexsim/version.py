"""mexsim's version: the package's and every results file's record of it."""

__version__ = "0.2.0"
