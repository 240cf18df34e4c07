from __future__ import annotations

import sys

from trackboard_cli.main import main

sys.exit(main())
