"""A run's blocks on a Dask cluster (``--cluster``): the client, block tasks, and the local
cluster's worker processes (signals, malloc, preload, exit, socket and scratch folders)."""
