"""The game: the rules (R1–R17) in three independent implementations and their tools.

``rules``, ``tiles``, ``rng`` and ``view`` are the shared vocabulary, ``seat`` what the
engine takes of a player and ``signature`` the one every decide is compiled for;
``kernel`` is the numba core and ``play`` its Python driver; ``enums`` names the
kernel's integer codes and ``contexts`` bundles its arguments; ``reference`` is the
pure-Python engine; ``referee`` checks any trace; ``render`` tells one for people;
``trace_words`` is how a trace spells the Mexican train.
"""
