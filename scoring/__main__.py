from __future__ import annotations

import gc
import os

# The scorer's linear algebra is a few matrix-vector products: a BLAS thread pool only costs
# start-up time (about 50 ms) and competes with other work on a shared machine.
for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")

# A short run builds large acyclic structures (the two files' states): the cyclic collector
# would only walk them again and again.
gc.disable()

from scoring.cli import leave, main  # noqa: E402

if __name__ == "__main__":
    # With ``exiting``, a scoring run ends the process itself, freeing nothing.
    leave(main(exiting=True))
