from __future__ import annotations

import os
import sys

# The scorer's linear algebra is a few matrix-vector products: a BLAS thread pool only costs
# start-up time (about 50 ms) and competes with other work on a shared machine.
for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")

from scoring.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
