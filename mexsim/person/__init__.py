"""A person at the table: `mexsim play` (session.py, the match and its record; app.py,
the terminal interface), hints and the review of a person's decisions."""
