"""Where results go: the results folder kept safe, durable parts (the blocks of a run),
and the Arrow tables of a block's result rows."""
