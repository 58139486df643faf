"""mexsim — a tournament simulator for the domino game Mexican Train.

The rulebook is RULES.md (rule ids R1–R17); docs/rules.md records how mexsim reads it.
"""

__version__ = "0.1.0"
