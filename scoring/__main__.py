from __future__ import annotations

import sys

from scoring.cli import main

if __name__ == "__main__":
    sys.exit(main())
