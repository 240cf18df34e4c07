"""The one lease mechanism: while a process works on a row it claimed (a submission it scores,
a board it builds), a thread of its own renews the claim's short lease every third of it.

A claim is a conditional UPDATE that writes a lease's end (and a token) on the row; another
process may take the row over once the lease has run out. A lease is short (a minute for a
submission, ``SCORING_LEASE_SECONDS``; 30 s for a board, ``rankings.builds.LEASE_SECONDS``),
so a process that dies (killed, out of memory, its machine gone) leaves a row that is taken
over soon after; a live one keeps its claim for as long as it works, however long that is.

The row's own conditional UPDATE renews it (the ``renew`` callable given to ``Heartbeat``:
``Submission.renew``, ``Board.renew``): it moves the lease on only while the row still holds
this claim, and returns the claim as now held, or None when it was taken over. The thread
opens its own database connection for each renewal and closes it, so it shares nothing with
the working code's connection and a fault of the database only costs it a renewal or two.
"""

from __future__ import annotations

import datetime as dt
import logging
import threading
from collections.abc import Callable
from types import TracebackType
from typing import Generic, TypeVar

from django.db import connection

log = logging.getLogger(__name__)

Held = TypeVar("Held")


class Heartbeat(Generic[Held]):
    """``with Heartbeat(renew, held, lease, name):`` renews the claim holding ``held`` every
    third of ``lease`` while the block runs, calling ``renew(held)``: the claim as renewed, or
    None when another claim took the row over. ``held`` is then the claim as last renewed (for
    giving it back); ``lost`` is set (and the renewals stop) once the row was taken over.
    ``name`` says whose claim it is, in the thread's name and the log."""

    def __init__(
        self,
        renew: Callable[[Held], Held | None],
        held: Held,
        lease: dt.timedelta,
        name: str,
    ) -> None:
        self.renew = renew
        self.held = held
        self.lease = lease
        self.name = name
        self.lost = False
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=self._run, name=f"trackboard-lease-{name}", daemon=True
        )

    def __enter__(self) -> Heartbeat[Held]:
        self._thread.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        interval = self.lease.total_seconds() / 3
        while not self._stop.wait(interval):
            try:
                renewed = self.renew(self.held)
            except Exception:
                # The lease still runs for two more intervals; the next renewal may work.
                log.warning("could not renew the lease of %s", self.name)
                continue
            finally:
                connection.close()  # this thread's own connection, never kept open
            if renewed is None:
                self.lost = True
                log.warning("the claim on %s was taken over", self.name)
                return
            self.held = renewed
