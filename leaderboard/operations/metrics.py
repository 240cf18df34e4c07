"""``/metrics``: the figures an operator scales by, in Prometheus's text format.

The site's state is read from where its one writer keeps it, at the moment of the scrape: queue
lengths from the broker, submissions and their timings from the database (``created_at``,
``started_at`` and ``scored_at`` of each submission), board builds from the stored boards,
worker and scheduler liveness from their heartbeats; every web process answers the same.

The web processes' own figures (requests by view and status, their latencies, each process's
memory and CPU) are counted by ``RequestMetricsMiddleware`` with prometheus-client, in memory,
or under gunicorn in files that every process of the pool writes and any of them reads at the
scrape (prometheus-client's multiprocess mode: ``PROMETHEUS_MULTIPROC_DIR``, set up by
leaderboard/gunicorn.py). About forty lines on the library itself rather than
django-prometheus: that one adds a pair of middlewares and a dozen families (database, cache,
models) nobody here reads, and its own export view, where this endpoint has its token.

The endpoint is off until ``TRACKBOARD_METRICS_TOKEN`` is set; a scrape then sends it as
``Authorization: Bearer <token>``. Anything else is 404 (off) or 401 (a wrong token).
"""

from __future__ import annotations

import datetime as dt
import hmac
import logging
import os
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from django.conf import settings
from django.db.models import Count, DurationField, ExpressionWrapper, F, Q, Sum
from django.http import Http404, HttpRequest, HttpResponse
from django.utils import timezone
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    ProcessCollector,
    generate_latest,
    multiprocess,
)
from prometheus_client.core import GaugeMetricFamily, HistogramMetricFamily, Metric

from leaderboard import background

log = logging.getLogger(__name__)

#: upper bounds (seconds) of the upload-to-scored histogram's buckets
LATENCY_BUCKETS = (1, 2, 5, 10, 30, 60, 120, 300, 600, 1800, 3600)
#: upper bounds (seconds) of the scoring-time histogram's buckets
SCORING_BUCKETS = (0.5, 1, 2, 5, 10, 30, 60, 120, 300, 600)
#: upper bounds (seconds) of the requests' latency histogram's buckets
REQUEST_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30)
#: the view label of a request no URL matched (or answered before its URL was resolved)
UNMATCHED = "unmatched"
#: the methods counted by name; any other a client sends is counted as ``other``, so that no
#: client can make series without end
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})

# Registered in no registry: the scrape reads them (or, under gunicorn, every process's files).
REQUESTS = Counter(
    "trackboard_http_requests",
    "Requests answered, by view (its URL's name), method and status.",
    ["view", "method", "status"],
    registry=None,
)
LATENCY = Histogram(
    "trackboard_http_request_duration_seconds",
    "Time from a request's arrival in the app to its answer, by view.",
    ["view"],
    buckets=REQUEST_BUCKETS,
    registry=None,
)
#: each web process's figures, read at an answer at most once a second ("liveall": one series per
#: live process)
PROCESS = {
    name: Gauge(f"trackboard_{name}", documentation, registry=None, multiprocess_mode="liveall")
    for name, documentation in {
        "process_resident_memory_bytes": "Resident memory of a web process.",
        "process_cpu_seconds": "CPU time a web process has used.",
        "process_open_fds": "File descriptors a web process holds open.",
        "process_start_time_seconds": "When a web process started (Unix time).",
    }.items()
}
_THIS_PROCESS = ProcessCollector(registry=None)


def queue_lengths() -> dict[str, int | None]:
    """Messages waiting in each queue (None: the broker did not answer)."""
    from leaderboard.celery import app

    found: dict[str, int | None] = {}
    try:
        with app.connection_for_read() as conn:
            conn.ensure_connection(max_retries=1, timeout=2)
            channel = conn.default_channel
            for name in background.queues():
                try:
                    found[name] = int(channel.queue_declare(name, passive=True).message_count)  # type: ignore[attr-defined]  # the transport's Channel has it; the stubs say StdChannel
                except Exception:  # a queue nothing was ever sent to does not exist yet
                    found[name] = 0
    except Exception:
        log.warning("metrics: the broker did not answer", exc_info=True)
        return {name: None for name in background.queues()}
    return found


def _histogram(
    name: str, documentation: str, rows: Any, duration: Any, bounds: Sequence[float]
) -> HistogramMetricFamily:
    """A histogram of ``duration`` over ``rows``, counted in one query."""
    counts = rows.annotate(took=duration).aggregate(
        total=Count("pk"),
        seconds=Sum("took"),
        **{f"le{i}": Count("pk", filter=Q(took__lte=dt.timedelta(seconds=b))) for i, b in
           enumerate(bounds)},
    )  # fmt: skip
    buckets = [(str(float(b)), counts[f"le{i}"]) for i, b in enumerate(bounds)]
    buckets.append(("+Inf", counts["total"]))
    took = counts["seconds"]
    total = took.total_seconds() if isinstance(took, dt.timedelta) else float(took or 0)
    return HistogramMetricFamily(name, documentation, buckets=buckets, sum_value=total)


class Collector:
    """Reads every series anew on each scrape."""

    def collect(self) -> Iterator[Metric]:
        yield from self._queues()
        yield from self._submissions()
        yield from self._boards()
        yield from self._workers()

    def _queues(self) -> Iterable[Metric]:
        waiting = GaugeMetricFamily(
            "trackboard_queue_messages", "Tasks waiting in a broker queue.", labels=["queue"]
        )
        up = GaugeMetricFamily("trackboard_broker_up", "1 when the broker answered the scrape.")
        lengths = queue_lengths()
        for name, count in lengths.items():
            if count is not None:
                waiting.add_metric([name], count)
        up.add_metric([], 0 if any(c is None for c in lengths.values()) else 1)
        return [waiting, up]

    def _submissions(self) -> Iterable[Metric]:
        from leaderboard.submissions.models import Submission

        by_status = GaugeMetricFamily(
            "trackboard_submissions", "Submissions by status.", labels=["status"]
        )
        counted = dict(
            Submission.objects.values_list("status")
            .annotate(n=Count("pk"))
            .values_list("status", "n")
        )
        for status in Submission.Status.values:
            by_status.add_metric([status], counted.get(status, 0))
        scored = Submission.objects.filter(status=Submission.Status.SCORED, scored_at__isnull=False)
        latency = _histogram(
            "trackboard_upload_to_scored_seconds",
            "From upload to scored, per scored submission.",
            scored,
            ExpressionWrapper(F("scored_at") - F("created_at"), output_field=DurationField()),
            LATENCY_BUCKETS,
        )
        scoring = _histogram(
            "trackboard_scoring_seconds",
            "From the claim of the last attempt to scored, per scored submission.",
            scored.filter(started_at__isnull=False),
            ExpressionWrapper(F("scored_at") - F("started_at"), output_field=DurationField()),
            SCORING_BUCKETS,
        )
        return [by_status, latency, scoring]

    def _boards(self) -> Iterable[Metric]:
        from leaderboard.rankings.models import Board

        age = GaugeMetricFamily(
            "trackboard_board_age_seconds",
            "Seconds since a stored board was built.",
            labels=["phase", "kind"],
        )
        behind = GaugeMetricFamily(
            "trackboard_board_behind",
            "1 while a stored board is older than its phase's latest change.",
            labels=["phase", "kind"],
        )
        took = GaugeMetricFamily(
            "trackboard_board_build_seconds",
            "How long the last build of a stored board took.",
            labels=["phase", "kind"],
        )
        now = timezone.now()
        rows = Board.objects.select_related("phase__challenge").only(
            "kind", "version", "built_at", "build_seconds", "phase__slug",
            "phase__board_version", "phase__challenge__slug",
        )  # fmt: skip
        for board in rows:
            labels = [f"{board.phase.challenge.slug}/{board.phase.slug}", board.kind]
            if board.built_at is not None:
                age.add_metric(labels, (now - board.built_at).total_seconds())
            if board.build_seconds is not None:
                took.add_metric(labels, board.build_seconds)
            late = board.version is None or board.version < board.phase.board_version
            behind.add_metric(labels, 1 if late else 0)
        return [age, behind, took]

    def _workers(self) -> Iterable[Metric]:
        from leaderboard.operations import heartbeat
        from leaderboard.operations.models import SchedulerHeartbeat, WorkerHeartbeat

        seen = GaugeMetricFamily(
            "trackboard_worker_heartbeat_age_seconds",
            "Seconds since a worker last wrote its heartbeat.",
            labels=["worker"],
        )
        now = timezone.now()
        for row in WorkerHeartbeat.objects.all():
            seen.add_metric([row.hostname], (now - row.seen_at).total_seconds())
        alive = GaugeMetricFamily("trackboard_workers_alive", "Workers whose heartbeat is recent.")
        alive.add_metric([], len(heartbeat.alive_workers(now)))
        scheduler = GaugeMetricFamily(
            "trackboard_scheduler_heartbeat_age_seconds",
            "Seconds since beat's own periodic task last ran (absent: it never has).",
        )
        last = SchedulerHeartbeat.objects.order_by("-seen_at").first()
        if last is not None:
            scheduler.add_metric([], (now - last.seen_at).total_seconds())
        return [seen, alive, scheduler]


def view_name(request: HttpRequest) -> str:
    """The name of the URL ``request`` matched (``rankings:leaderboard``), not its path, so
    there is one series per view whatever its arguments; ``UNMATCHED`` for none."""
    match = getattr(request, "resolver_match", None)
    return (match.view_name if match is not None else None) or UNMATCHED


#: Seconds between two readings of a process's memory and CPU (reading /proc costs a request
#: as much as the counting itself; a scrape every 15 s or more sees the same figures).
PROCESS_SAMPLE_SECONDS = 1.0
_sampled_at = -PROCESS_SAMPLE_SECONDS


def _note_process() -> None:
    """This process's figures into its gauges, at most every ``PROCESS_SAMPLE_SECONDS``."""
    global _sampled_at
    now = time.monotonic()
    if now - _sampled_at < PROCESS_SAMPLE_SECONDS:
        return
    _sampled_at = now
    for family in _THIS_PROCESS.collect():
        for sample in family.samples:
            gauge = PROCESS.get(sample.name.removesuffix("_total"))
            if gauge is not None:
                gauge.set(sample.value)


class RequestMetricsMiddleware:
    """Counts every answer by view, method (``METHODS``) and status, and its latency by
    view."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        started = time.perf_counter()
        response = self.get_response(request)
        view = view_name(request)
        LATENCY.labels(view).observe(time.perf_counter() - started)
        method = request.method if request.method in METHODS else "other"
        REQUESTS.labels(view, method, str(response.status_code)).inc()
        _note_process()
        return response


#: Whether this process counts in the pool's files: prometheus-client chose where its values
#: live when it was imported (above), by the environment of that moment, so that is asked here
#: once too, never again at a scrape.
MULTIPROCESS = bool(os.environ.get("PROMETHEUS_MULTIPROC_DIR"))


def _registry() -> CollectorRegistry:
    """The site's state, and the web processes' figures: every process's under gunicorn."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(Collector())
    if MULTIPROCESS:
        multiprocess.MultiProcessCollector(registry)
    else:
        for metric in (REQUESTS, LATENCY, *PROCESS.values()):
            registry.register(metric)
    return registry


def _authorised(request: HttpRequest, token: str) -> bool:
    sent = request.headers.get("Authorization", "")
    scheme, _, credential = sent.partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(credential.strip(), token)


def metrics(request: HttpRequest) -> HttpResponse:
    """The series in Prometheus's text format, for a scraper sending the metrics token."""
    token = settings.TRACKBOARD_METRICS_TOKEN
    if not token:
        raise Http404("metrics are not enabled on this site")
    if not _authorised(request, token):
        response = HttpResponse(
            "Send the metrics token as 'Authorization: Bearer <token>'.\n",
            status=401,
            content_type="text/plain; charset=utf-8",
        )
        response["WWW-Authenticate"] = 'Bearer realm="metrics"'
        return response
    response = HttpResponse(generate_latest(_registry()), content_type=CONTENT_TYPE_LATEST)
    response["Cache-Control"] = "no-store"
    return response
