"""The leaderboard as a production site serves it (static files collected with hashed names and
compressed copies, served by whitenoise from the collected files alone): a first visit
transfers under 800 KB, compressed, and a repeat visit fetches no static file again.

Both are read from Chromium's network log (the DevTools protocol's ``encodedDataLength``: what
came over the wire, headers and compressed body, for every response of the page). The live
server here hands ``/static/`` to the site's own middleware, as gunicorn does, rather than to
Django's development handler, which would serve the source files uncompressed.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.core.management import call_command
from django.db import connections
from django.test.testcases import LiveServerThread

from leaderboard.demo import dstc11
from tests.browser.conftest import draw_charts
from tests.leaderboard.boards import built

pytestmark = pytest.mark.django_db(transaction=True)

#: the issue's budget for a first visit of the leaderboard, compressed, in bytes
FIRST_VISIT = 800_000


@pytest.fixture
def production_site(settings, tmp_path) -> Iterator[str]:
    """A live server whose static files are collected, hashed and compressed (the admin's
    and the API docs' are left out: no leaderboard uses them, and compressing them is slow)."""
    manifest = {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"}
    settings.STORAGES = {**settings.STORAGES, "staticfiles": manifest}
    settings.STATIC_ROOT = tmp_path
    settings.WHITENOISE_USE_FINDERS = False
    settings.DEBUG = False
    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "127.0.0.1"]
    call_command(
        "collectstatic",
        interactive=False,
        verbosity=0,
        ignore_patterns=["admin", "drf_spectacular_sidecar", "rest_framework"],
    )
    shared = {c.alias: c for c in connections.all() if c.vendor == "sqlite" and c.is_in_memory_db()}
    # static_handler: nothing in front of the site; whitenoise answers /static/ itself
    thread = LiveServerThread(
        "127.0.0.1", static_handler=lambda app: app, connections_override=shared, port=0
    )
    thread.daemon = True
    for connection in shared.values():
        connection.inc_thread_sharing()
    thread.start()
    thread.is_ready.wait()
    try:
        if thread.error:
            raise thread.error
        yield f"http://127.0.0.1:{thread.port}"
    finally:
        thread.terminate()
        for connection in shared.values():
            connection.dec_thread_sharing()


class NetworkLog:
    """Every response of a page as the browser's network layer saw it."""

    def __init__(self, context: Any, page: Any) -> None:
        self.entries: dict[str, dict[str, Any]] = {}
        cdp = context.new_cdp_session(page)
        cdp.send("Network.enable")
        cdp.on("Network.responseReceived", self._response)
        cdp.on("Network.requestServedFromCache", self._cached)
        cdp.on("Network.loadingFinished", self._finished)

    def _entry(self, event: dict[str, Any]) -> dict[str, Any]:
        return self.entries.setdefault(event["requestId"], {"cached": False, "bytes": 0})

    def _response(self, event: dict[str, Any]) -> None:
        response = event["response"]
        headers = {k.lower(): v for k, v in response["headers"].items()}
        self._entry(event).update(
            url=response["url"],
            status=response["status"],
            encoding=headers.get("content-encoding", ""),
        )
        if response.get("fromDiskCache"):
            self._entry(event)["cached"] = True

    def _cached(self, event: dict[str, Any]) -> None:
        self._entry(event)["cached"] = True

    def _finished(self, event: dict[str, Any]) -> None:
        self._entry(event)["bytes"] = event["encodedDataLength"]

    def static(self) -> list[dict[str, Any]]:
        return [e for e in self.entries.values() if "/static/" in e.get("url", "")]


def _load(page: Any, url: str, log: NetworkLog) -> None:
    """Open ``url`` and wait for its charts and for every response to have arrived, the
    favicon's included (the browser asks for it on its own, after the page's load)."""
    page.goto(url)
    draw_charts(page)  # Plotly's bundle loads once a chart is scrolled near
    page.wait_for_load_state("networkidle")
    for _ in range(50):
        icon = [e for e in log.static() if "/favicon." in e.get("url", "")]
        if icon and all(e["bytes"] or e["cached"] for e in icon):
            return
        page.wait_for_timeout(100)


def test_the_leaderboard_weighs_under_800_kb_and_a_second_visit_fetches_no_static_file(
    browser, production_site
):
    phase = built(dstc11.build().phases.get(slug="test"))  # as the demo command builds it
    url = f"{production_site}/challenges/{dstc11.SLUG}/{phase.slug}/leaderboard/"
    context = browser.new_context()
    page = context.new_page()
    log = NetworkLog(context, page)
    try:
        _load(page, url, log)
        first = log.static()
        names = {e["url"].rsplit("/", 1)[1] for e in first}
        # the page's CSS and scripts, Plotly's bundle among them, under hashed names
        assert any(n.startswith("plotly-basic.min.") and n.endswith(".js") for n in names)
        assert len(names) >= 5 and all(e["status"] == 200 for e in first)
        assert all(e["encoding"] == "gzip" for e in first if e["bytes"] > 1024), first
        total = sum(e["bytes"] for e in log.entries.values())
        assert 0 < total < FIRST_VISIT, f"first visit transferred {total} bytes"

        log.entries.clear()
        _load(page, url, log)
        again = log.static()
        fetched = [e for e in again if not e["cached"] or e.get("status") == 304]
        assert fetched == [], f"fetched again: {fetched}"
        assert sum(e["bytes"] for e in again) == 0
    finally:
        context.close()
