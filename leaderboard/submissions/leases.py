"""The scoring claim's heartbeat: while a process scores a submission, a thread of its own
renews the claim's short lease (``settings.SCORING_LEASE_SECONDS``) every third of it.

A claim lasts about a minute, so a process that dies (killed, out of memory, its machine gone)
leaves a lease that runs out within a minute and any delivery or the reaper takes the row over
(``Submission.claim``); a live one keeps its claim for as long as it scores. The thread opens
its own database connection for each renewal and closes it, so it shares nothing with the
scoring code's connection and a fault of the database only costs it a renewal or two.
"""

from __future__ import annotations

import datetime as dt
import logging
import threading
from types import TracebackType

from django.db import connection

from leaderboard.submissions.models import Submission

log = logging.getLogger(__name__)


class Heartbeat:
    """``with Heartbeat(pk, held, lease):`` renews the claim holding ``held`` while the block
    runs; ``held`` is then the claim's token as last written (for giving it back), ``lost`` is
    set when another claim took the row over."""

    def __init__(self, pk: int, held: dt.datetime, lease: dt.timedelta) -> None:
        self.pk = pk
        self.held = held
        self.lease = lease
        self.lost = False
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=self._run, name=f"trackboard-lease-{pk}", daemon=True
        )

    def __enter__(self) -> Heartbeat:
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
                renewed = Submission.renew(self.pk, self.held, self.lease)
            except Exception:
                # The lease still runs for two more intervals; the next renewal may work.
                log.warning("could not renew the scoring lease of submission %s", self.pk)
                continue
            finally:
                connection.close()  # this thread's own connection, never kept open
            if renewed is None:
                self.lost = True
                log.warning("the scoring claim of submission %s was taken over", self.pk)
                return
            self.held = renewed
