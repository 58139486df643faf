"""mexsim test suite."""
