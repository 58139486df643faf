"""Tournaments: the config, who sits where (schedule), the runner that plays and
streams a config's matches to Parquet, the results schema, and replay."""
