"""What a strategy file may declare: one home for the limits that the registry checks
(mexsim/strategy/registry.py) and the decision view makes room for
(mexsim/game/view.py). Plain numbers, no imports: the registry stays numpy-free, so
``mexsim --help`` and ``mexsim strategies`` stay light.
"""

MAX_PARAMS = 8  # entries of PARAMS, passed to decide() as params[0:k]
MAX_MEMORY = 32  # MEMORY: words of the view's NOTES block kept between decisions
