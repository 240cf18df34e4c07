"""``python -m scoring``: a short process, started the cheap way.

One BLAS thread (the statistics are a few matrix-vector products; a thread pool only costs
start-up time), no cyclic garbage collector (a run builds large acyclic structures), and an
exit that frees nothing once the output is flushed. A reader that stops early (``| head``)
ends the run quietly.
"""

from __future__ import annotations

import gc
import os
import sys

for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")
gc.disable()

from scoring.cli import main  # noqa: E402


def run() -> None:
    try:
        status = main()
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:
        status = 1  # as the Python documentation recommends for a closed pipe
    os._exit(status)


if __name__ == "__main__":
    run()
