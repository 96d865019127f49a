"""The old name of `gamekit.sandbox.bwrap` (kept for notebooks and scripts that import it).

This module *is* `gamekit.sandbox.bwrap`: importing it returns that module itself, so there is
one `bwrap_path`, one `Jail`, one place to patch.
"""

import sys

from .sandbox import bwrap

sys.modules[__name__] = bwrap
