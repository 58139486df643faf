"""mexsim tune: a player's best parameters found with Optuna (docs/tuning.md)."""
