"""``/livez`` (the process answers), ``/healthz`` (database, broker, storage), ``/readyz/web``
(this process can serve pages) and ``/readyz`` (migrations applied, apps ready, a worker alive,
the scheduler running).

``/livez`` is the liveness probe of an orchestrator: it checks nothing beyond the process
answering, so a Redis or database outage (which restarting the web processes cannot mend, and
which the site rides out: "When a service fails" in docs/operators.md) never gets them
restarted. ``/readyz/web`` is the readiness probe of the web and uploads pools: the database
answers and no migration is pending, nothing else, so workers that are down or a beat being
replaced never take a page-serving process out of the load balancer (reading goes on while
scoring waits). ``/healthz`` is the site's health: the web process and what it talks to
answer; for monitoring. ``/readyz`` is for alerting, not a readiness probe of the web: it also
fails while no Celery worker has sent a heartbeat for ``heartbeat.STALE``
(``operations.heartbeat``), naming ``worker``, and while the scheduler's periodic task has not
run for ``heartbeat.scheduler_stale()``, naming ``scheduler``.

All four answer JSON: 200 with ``"status": "ok"``, or 503 naming each check that failed. The
bodies carry no connection strings or tracebacks (they are public); the reason goes to the log.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from django.apps import apps
from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.migrations.executor import MigrationExecutor
from django.http import HttpRequest, JsonResponse

from leaderboard.operations.heartbeat import alive_workers, scheduler_silence, silence_words
from leaderboard.storage import private_storage, store_whole

log = logging.getLogger(__name__)
BROKER_TIMEOUT = 2  # seconds (kombu takes whole ones)


def check_database() -> None:
    with connections[DEFAULT_DB_ALIAS].cursor() as cursor:
        cursor.execute("SELECT 1")


def check_broker() -> None:
    from leaderboard.celery import app

    with app.connection_for_write() as conn:
        conn.ensure_connection(max_retries=1, timeout=BROKER_TIMEOUT)


def check_storage() -> None:
    """List private storage's root (on disk a folder that is gone, not mounted, fails here:
    a write would create it), then write a probe file and remove it: a full or read-only
    disk, or an object store refusing writes, fails here as an upload would."""
    private_storage().listdir("")
    name = store_whole("health", b"probe\n")
    private_storage().delete(name)


CHECKS: dict[str, Callable[[], None]] = {
    "database": check_database,
    "broker": check_broker,
    "storage": check_storage,
}


def livez(request: HttpRequest) -> JsonResponse:
    """200 whenever this process answers a request; no dependency is checked."""
    return JsonResponse({"status": "ok"})


def healthz(request: HttpRequest) -> JsonResponse:
    """200 when the database, the Celery broker and private storage answer; 503 otherwise."""
    results: dict[str, bool] = {}
    for name, check in CHECKS.items():
        try:
            check()
            results[name] = True
        except Exception:
            log.exception("health check %s failed", name)
            results[name] = False
    failed = [name for name, ok in results.items() if not ok]
    body: dict[str, object] = {"status": "ok" if not failed else "error", **results}
    if failed:
        body["failed"] = failed
    return JsonResponse(body, status=503 if failed else 200)


def pending_migrations() -> list[str]:
    connection = connections[DEFAULT_DB_ALIAS]
    executor = MigrationExecutor(connection)
    plan = executor.migration_plan(executor.loader.graph.leaf_nodes())
    return [f"{migration.app_label}.{migration.name}" for migration, _ in plan]


def readyz_web(request: HttpRequest) -> JsonResponse:
    """200 when this process can answer pages: the database answers and every migration is
    applied. 503 naming ``database`` when it does not answer, or ``migrations`` (with the
    ``pending`` ones) during an upgrade, until the migration has run. Workers, the scheduler,
    the broker and storage are never looked at: the web and uploads pools' readiness probe."""
    problem = _not_serving()
    if problem is not None:
        return JsonResponse(problem, status=503)
    return JsonResponse({"status": "ok"})


def _not_serving() -> dict[str, object] | None:
    """What keeps this process from serving pages, as a probe's body: the database does not
    answer (reading the migration state is a query), or a migration is pending; None when
    nothing does."""
    try:
        pending = pending_migrations()
    except Exception:
        log.exception("readiness: the database did not answer (the migration state)")
        return {"status": "error", "failed": ["database"]}
    if pending or not apps.ready:
        log.warning("readiness: %d migrations not applied", len(pending))
        return {"status": "error", "failed": ["migrations"], "pending": pending}
    return None


def readyz(request: HttpRequest) -> JsonResponse:
    """For alerting, not a readiness probe of the web (that is ``readyz_web``): 200 once every
    migration is applied, the apps are loaded, a worker is alive and the scheduler runs; 503
    before (during an upgrade, until the migrate service has run), while no worker is
    (``"failed": ["worker"]``; ``workers`` counts the live ones) or while the scheduler has
    not run for ``heartbeat.scheduler_stale()`` (``"scheduler"``, with
    ``scheduler_silent_seconds``, null when it never ran)."""
    problem = _not_serving()
    if problem is not None:
        return JsonResponse({**problem, "ready": False}, status=503)
    eager = getattr(settings, "CELERY_TASK_ALWAYS_EAGER", False)
    workers = len(alive_workers())
    failed = []
    if not workers and not eager:
        failed.append("worker")
    body: dict[str, object] = {"workers": workers}
    stopped, silent = (False, None) if eager else scheduler_silence()
    if stopped:
        failed.append("scheduler")
        body["scheduler_silent_seconds"] = None if silent is None else int(silent.total_seconds())
        log.warning("readiness: %s", silence_words(silent))
    if failed:
        return JsonResponse(
            {"status": "error", "ready": False, "failed": failed, **body}, status=503
        )
    return JsonResponse({"status": "ok", "ready": True, **body})
