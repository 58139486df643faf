"""The built-in strategies, one file each; the registry loads them like a user's."""
