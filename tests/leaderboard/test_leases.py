"""The one lease mechanism (``leaderboard.leases.Heartbeat``), apart from any row: it renews a
claim every third of its lease from a thread of its own, keeps the claim as last renewed, goes
on after a renewal that failed, and stops once the claim was taken over. The scoring's claim
(``submissions/test_leases.py``) and the board's builder (``rankings/test_board_builds.py``)
use it on their rows."""

from __future__ import annotations

import datetime as dt
import logging
import threading

from django.db import OperationalError

from leaderboard.leases import Heartbeat

LEASE = dt.timedelta(seconds=0.15)  # renewed every 0.05 s


def test_the_heartbeat_renews_the_claim_and_keeps_the_claim_as_last_renewed():
    calls: list[int] = []
    third = threading.Event()

    def renew(held: int) -> int:
        calls.append(held)
        if len(calls) == 3:
            third.set()
        return held + 1

    with Heartbeat(renew, 0, LEASE, "a row") as heartbeat:
        assert third.wait(10)
    assert calls[:3] == [0, 1, 2]  # each renewal from the claim the last one returned
    assert heartbeat.held == calls[-1] + 1 and not heartbeat.lost
    # stopped with the block: its thread has ended
    assert "trackboard-lease-a row" not in {thread.name for thread in threading.enumerate()}


def test_a_failed_renewal_is_retried_and_a_claim_taken_over_stops_the_heartbeat(caplog):
    calls: list[str] = []
    taken = threading.Event()

    def renew(held: str) -> str | None:
        calls.append(held)
        if len(calls) == 1:
            raise OperationalError("the database went away")
        if len(calls) == 2:
            return "renewed"
        taken.set()
        return None  # another claim holds the row

    caplog.set_level(logging.WARNING, logger="leaderboard.leases")
    with Heartbeat(renew, "claimed", LEASE, "the board of phase 7") as heartbeat:
        assert taken.wait(10)
    assert calls == ["claimed", "claimed", "renewed"]  # no renewal after the row was lost
    assert heartbeat.lost and heartbeat.held == "renewed"
    assert [r.getMessage() for r in caplog.records] == [
        "could not renew the lease of the board of phase 7",
        "the claim on the board of phase 7 was taken over",
    ]
