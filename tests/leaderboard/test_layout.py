"""The base layout: navigation, accessibility hooks, and assets served locally (no CDN)."""

from __future__ import annotations

import re

import pytest
from django.contrib.staticfiles import finders
from django.urls import reverse

from tests.leaderboard.factories import phase_with_references
from tests.leaderboard.web import GOLD_BYTES

pytestmark = pytest.mark.django_db


def test_pages_use_only_local_assets_and_have_a_phone_viewport(client):
    phase = phase_with_references(GOLD_BYTES)
    page = client.get(reverse("rankings:leaderboard", args=[phase.challenge.slug, phase.slug])).text
    # plotly.js is named by charts.js's data-plotly, which loads it once a chart nears the view
    assets = re.findall(r'(?:src|href|data-plotly)="([^"]+\.(?:js|css))"', page)
    assert assets == [
        "/static/css/trackboard.css",
        "/static/js/tables.js",
        "/static/js/times.js",
        "/static/js/charts.js",
        "/static/vendor/plotly-basic.min.js",
        "/static/js/leaderboard.js",
    ]
    for asset in assets:
        assert finders.find(asset.removeprefix("/static/")) is not None
    assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in page
    assert '<a class="skip" href="#main">' in page
    assert '<html lang="en">' in page
    assert '<nav aria-label="Main">' in page


def test_static_assets_are_served_with_debug_off(client, settings):
    settings.DEBUG = False
    response = client.get("/static/css/trackboard.css")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/css")
