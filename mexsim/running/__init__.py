"""How a config's matches are played: the runner (into a folder or to a shared location),
blocks taken in match order, the machine's limits, warm-up and compile jobs; ``dask``
holds the cluster plumbing."""
