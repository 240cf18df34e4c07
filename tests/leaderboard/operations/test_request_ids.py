"""The request id in the app: taken from ``X-Request-ID`` only behind a trusted proxy and only
when it looks like an id, made otherwise, answered in the header and on the log lines of the
request (Django's own "Not Found", written after the middlewares have returned, included);
and the requests' counts by view on ``/metrics`` in a single process (without gunicorn).
The stack's own test (test_following_requests.py) follows one through nginx and a task."""

from __future__ import annotations

import logging
import re

import pytest
from prometheus_client.parser import text_string_to_metric_families

from leaderboard.requestids import RequestIdFilter

pytestmark = pytest.mark.django_db

TOKEN = "metrics-token-of-this-test"


def _id(client, sent: str | None = None) -> str:
    headers = {} if sent is None else {"HTTP_X_REQUEST_ID": sent}
    return client.get("/livez", **headers)["X-Request-ID"]


def test_a_clients_id_is_taken_only_behind_a_trusted_proxy(client, settings):
    settings.TRUSTED_PROXIES = 0
    made = _id(client, "chosen-by-the-client")
    assert re.fullmatch(r"[0-9a-f]{32}", made)
    assert _id(client) != made  # one per request
    settings.TRUSTED_PROXIES = 1
    assert _id(client, "0f3c-proxy.id:7") == "0f3c-proxy.id:7"
    for unlike in ("two words", "x" * 129, "line\nbreak", ""):
        assert re.fullmatch(r"[0-9a-f]{32}", _id(client, unlike)), unlike


class _Kept(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.addFilter(RequestIdFilter())
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


def test_djangos_lines_about_a_request_carry_its_id(client):
    kept = _Kept()
    logger = logging.getLogger("django.request")
    logger.addHandler(kept)
    try:
        response = client.get("/no-such-page/")
    finally:
        logger.removeHandler(kept)
    assert response.status_code == 404
    [record] = [r for r in kept.records if "Not Found" in r.getMessage()]
    assert record.request_id == response["X-Request-ID"]
    # and nothing after it: the id is dropped with the request
    outside = logging.LogRecord("x", logging.INFO, __file__, 1, "after", (), None)
    assert RequestIdFilter().filter(outside) and not hasattr(outside, "request_id")


def _requests(client) -> dict[tuple, float]:
    response = client.get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
    assert response.status_code == 200
    for family in text_string_to_metric_families(response.content.decode()):
        if family.name == "trackboard_http_requests":
            return {
                tuple(sorted(s.labels.items())): s.value
                for s in family.samples
                if s.name.endswith("_total")
            }
    return {}


def test_requests_are_counted_by_the_name_of_their_view_not_their_path(client, settings):
    settings.TRACKBOARD_METRICS_TOKEN = TOKEN
    unmatched = (("method", "GET"), ("status", "404"), ("view", "unmatched"))
    health = (("method", "GET"), ("status", "200"), ("view", "livez"))
    before = _requests(client)
    for path in ("/no-such-page/", "/another/missing/page/"):
        assert client.get(path).status_code == 404
    client.get("/livez")
    client.generic("BREW", "/livez")  # a method of the client's own making
    after = _requests(client)
    assert after[unmatched] - before.get(unmatched, 0) == 2
    assert after[health] - before.get(health, 0) == 1
    assert not [labels for labels in after if ("method", "BREW") in labels]
    brewed = [value for labels, value in after.items() if ("method", "other") in labels]
    assert sum(brewed) - sum(v for k, v in before.items() if ("method", "other") in k) == 1
    assert not [labels for labels in after if "no-such-page" in str(labels)]
