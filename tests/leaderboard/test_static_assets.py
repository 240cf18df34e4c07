"""Static files as a production site serves them: plotly.js is the vendored basic partial bundle
(the file its provenance note records, drawing every trace type the site builds), and after
``collectstatic`` whitenoise serves hashed names for a year, gzip when the browser accepts it,
from the collected files alone; no brotli copy is written (nginx, which serves them in every
deployment, has no brotli module)."""

from __future__ import annotations

import gzip
import hashlib
import json
import re

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from leaderboard.demo import dstc11, other_tasks
from leaderboard.submissions.models import Submission
from tests.conftest import ROOT
from tests.leaderboard.boards import built

pytestmark = pytest.mark.django_db

VENDOR = ROOT / "static" / "vendor"
BUNDLE = "vendor/plotly-basic.min.js"
#: Served to every page that draws a chart.
SHARED = ("css/trackboard.css", BUNDLE, "js/charts.js")
#: whitenoise's lifetime for files whose name carries their hash: ten years, immutable.
FOREVER = "max-age=315360000, public, immutable"


def test_the_bundle_is_the_file_its_provenance_note_records():
    note = (VENDOR / "README.md").read_text()
    recorded = re.search(r"file SHA-256: `([0-9a-f]{64})`", note).group(1)
    bundle = (VENDOR / "plotly-basic.min.js").read_bytes()
    assert hashlib.sha256(bundle).hexdigest() == recorded
    assert bundle.startswith(b"/**\n* plotly.js (basic - minified) v4.1.1")
    assert "MIT License" in (VENDOR / "plotly.js-LICENSE.txt").read_text()


def _trace_types(page: str) -> set[str]:
    data = re.search(r'<script id="chart-data" type="application/json">(.*?)</script>', page, re.S)
    figures = json.loads(data.group(1)) if data else {}
    return {trace["type"] for figure in figures.values() for trace in figure["data"]}


def test_every_chart_of_every_task_is_drawn_by_the_bundle(client):
    bundle = (VENDOR / "plotly-basic.min.js").read_text()
    registered = set(re.findall(r'moduleType:"trace",name:"(\w+)"', bundle))
    assert registered == {"bar", "pie", "scatter"}
    challenges = [dstc11.build(), *other_tasks.build()]
    client.force_login(User.objects.get(username=dstc11.ORGANISER))
    used: dict[str, set[str]] = {}
    for challenge in challenges:
        phase = built(challenge.phases.order_by("opens_at").first())  # as the demo builds it
        board = client.get(reverse("rankings:leaderboard", args=[challenge.slug, phase.slug]))
        result = client.get(
            reverse("submissions:detail", args=[Submission.objects.filter(phase=phase).first().pk])
        )
        assert board.status_code == result.status_code == 200
        used[challenge.task] = _trace_types(board.text) | _trace_types(result.text)
    assert set(used) == {"dstc11", "multiwoz22", "dvd"}
    # Every task draws bars and lines, and nothing the basic bundle lacks.
    assert all({"bar", "scatter"} <= types <= {"bar", "scatter"} for types in used.values())


@pytest.fixture(scope="module")
def collected(tmp_path_factory):
    """Our static files collected once as the Docker image does (the admin's and the API
    docs' left out: they only make the compression slower)."""
    root = tmp_path_factory.mktemp("static")
    from django.test import override_settings

    with override_settings(STATIC_ROOT=root, STORAGES=_storages()):
        call_command(
            "collectstatic",
            interactive=False,
            verbosity=0,
            ignore_patterns=["admin", "drf_spectacular_sidecar", "rest_framework"],
        )
    return root


def _storages() -> dict[str, dict[str, str]]:
    from django.conf import settings

    manifest = {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"}
    return {**settings.STORAGES, "staticfiles": manifest}


@pytest.fixture
def manifest_site(settings, collected):
    settings.STATIC_ROOT = collected
    settings.STORAGES = _storages()
    settings.WHITENOISE_USE_FINDERS = False
    settings.DEBUG = False
    return json.loads((collected / "staticfiles.json").read_text())["paths"]


def test_collected_files_have_hashed_names_and_compressed_copies(collected, manifest_site):
    for name in SHARED:
        hashed = collected / manifest_site[name]
        assert hashed.name != name.rsplit("/", 1)[1]
        raw = hashed.read_bytes()
        gz = hashed.with_name(hashed.name + ".gz").read_bytes()
        assert gzip.decompress(gz) == raw and len(gz) < len(raw)
    # Only hashed names are kept: a page can link nothing else.
    assert not any((collected / name).exists() for name in SHARED)
    # The bundle compresses to under a third of its size.
    bundle = collected / manifest_site[BUNDLE]
    assert bundle.with_name(bundle.name + ".gz").stat().st_size < bundle.stat().st_size / 3
    # No brotli copy of anything: nothing would serve it.
    assert not list(collected.rglob("*.br"))


def test_pages_link_the_hashed_names_served_compressed_for_a_year(manifest_site):
    phase = dstc11.build().phases.get(slug="test")
    page = Client().get(reverse("rankings:leaderboard", args=[dstc11.SLUG, phase.slug])).text
    # plotly.js by its hashed name too, in charts.js's data-plotly (loaded when a chart nears)
    linked = re.findall(r'(?:src|href|data-plotly)="/static/([^"]+\.(?:js|css))"', page)
    assert {manifest_site[name] for name in SHARED} <= set(linked)
    assert not set(SHARED) & set(linked)
    client = Client()
    for name in linked:
        served = client.get(f"/static/{name}", headers={"Accept-Encoding": "br, gzip"})
        assert served.status_code == 200
        assert served["Content-Encoding"] == "gzip"
        assert served["Cache-Control"] == FOREVER


def test_every_static_file_a_template_names_exists():
    from django.contrib.staticfiles import finders

    named: dict[str, set[str]] = {}
    for template in [
        *ROOT.glob("templates/**/*.html"),
        *ROOT.glob("leaderboard/*/templates/**/*.html"),
    ]:
        for path in re.findall(r"""{%\s*static\s+['"]([^'"]+)['"]""", template.read_text()):
            named.setdefault(path, set()).add(template.name)
    assert BUNDLE in named
    missing = {path: names for path, names in named.items() if finders.find(path) is None}
    assert not missing, f"templates name static files that do not exist: {missing}"
