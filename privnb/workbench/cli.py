"""The ``privnb`` command (:mod:`privnb.__main__`), also run as ``python -m privnb.workbench.cli``."""

import sys

from privnb.__main__ import main

__all__ = ["main"]

if __name__ == "__main__":
    sys.exit(main())
