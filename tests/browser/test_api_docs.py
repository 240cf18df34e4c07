"""The API's reference pages (Swagger UI and Redoc) load only what the site serves itself,
render the operations, and log no console error (the ``page`` fixture fails on one)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize(
    ("path", "rendered"),
    [
        ("/api/v1/docs/", ".opblock-summary"),  # Swagger UI: one block per operation
        ("/api/v1/redoc/", 'h2:has-text("List challenges")'),  # Redoc: an operation heading
    ],
)
def test_the_api_reference_loads_only_the_sites_own_assets(page, live_server, path, rendered):
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    violations: list[str] = []
    page.add_init_script(
        "document.addEventListener('securitypolicyviolation',"
        " e => console.error('CSP violation: ' + e.violatedDirective + ' ' + e.blockedURI));"
    )
    page.on("console", lambda m: violations.append(m.text) if "CSP" in m.text else None)
    page.goto(path)
    page.wait_for_selector(rendered, timeout=30_000)
    page.wait_for_load_state("networkidle")
    foreign = [url for url in requested if not url.startswith((live_server.url, "data:", "blob:"))]
    assert foreign == []
    assert violations == []
    assert any("/api/v1/schema/" in url for url in requested)
