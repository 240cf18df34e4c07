"""Private storage on a real file system that fills up, then turns read-only: a tmpfs of its
own, mounted for the test (it needs the right to mount; elsewhere the test says so).

Every upload it refuses answers 503 with ``Retry-After`` and the participant-safe "try again
later" (the API's JSON and the form's page), leaves no file behind (neither an empty one nor
a partial one), no row, and charges nothing; ``/healthz`` names ``storage``. Once space is
freed, and once the file system is writable again, the same upload is accepted.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.test import Client
from django.urls import reverse

from leaderboard.submissions import services
from leaderboard.submissions.models import Submission
from scoring.synth import make_gold, make_prediction
from tests.conftest import require
from tests.leaderboard.api.conftest import token_client
from tests.leaderboard.factories import approved_team, phase_with_references, upload

pytestmark = [pytest.mark.slow, pytest.mark.django_db]

KEYS = ("tts-verbatim",)
GOLD = make_gold(40, seed=31)
#: about 20 KB: larger than what is left on the full disk below
PREDICTION = json.dumps(make_prediction(GOLD, 0.2, seed=2), indent=1).encode()
SIZE_KB = 512


def _mount(*args: str) -> bool:
    return subprocess.run(["mount", *args], capture_output=True).returncode == 0


@pytest.fixture
def small_disk(tmp_path, settings) -> Iterator[Path]:
    root = tmp_path / "disk"
    root.mkdir()
    mounted = _mount("-t", "tmpfs", "-o", f"size={SIZE_KB}k", "tmpfs", str(root))
    require("a tmpfs mount", mounted, "run as root (or in a container allowed to mount)")
    settings.STORAGES = {
        **settings.STORAGES,
        "private": {
            "BACKEND": "leaderboard.storage.PrivateStorage",
            "OPTIONS": {"location": str(root)},
        },
    }
    yield root
    subprocess.run(["umount", "-l", str(root)], check=False)


def _fill(root: Path, leave: int) -> Path:
    """Fill the disk until fewer than ``leave`` bytes are free."""
    filler = root / f"filler-{leave}"
    with filler.open("wb", buffering=0) as out:
        try:
            while True:
                out.write(b"\0" * 4096)
        except OSError:
            pass
    with filler.open("r+b") as out:
        out.truncate(max(filler.stat().st_size - leave, 0))
    return filler


def _submission_files(root: Path) -> list[Path]:
    folder = root / "submissions"
    return sorted(folder.iterdir()) if folder.exists() else []


def test_uploads_to_a_full_or_read_only_disk_answer_503_and_leave_nothing_behind(
    small_disk, client, enqueued, tally
):
    phase = phase_with_references(json.dumps(GOLD).encode(), keys=KEYS)
    team = approved_team(phase)
    api = token_client(team.created_by)
    api.raise_request_exception = False
    web = Client(raise_request_exception=False)
    web.force_login(team.created_by)
    form = reverse("submissions:submit", args=[phase.challenge.slug, phase.slug])
    endpoint = f"/api/v1/phases/{phase.pk}/submissions/"

    def send(kind: str, n: int):
        if kind == "api":
            return api.post(
                endpoint,
                {"method_name": f"api {n}", "tts-verbatim": upload(PREDICTION)},
                format="multipart",
            )
        return web.post(form, {"method_name": f"web {n}", "file_tts-verbatim": upload(PREDICTION)})

    def refused(response, kind: str) -> None:
        tally.saw(response.status_code)
        assert response.status_code == 503, response.content[:300]
        assert int(response["Retry-After"]) > 0
        text = response.content.decode()
        assert "please try again later" in text
        assert "does not count against your quota" in text
        assert "Traceback" not in text and "No space" not in text and "Errno" not in text
        if kind == "api":
            assert response.json()["error"]["code"] == "unavailable"

    filler = _fill(small_disk, leave=4096)  # a write starts, then the disk is full
    for n, kind in enumerate(["api", "web"]):
        refused(send(kind, n), kind)
        assert _submission_files(small_disk) == []  # no partial file left
    assert client.get("/healthz").status_code == 200  # its probe still fits
    rest = _fill(small_disk, leave=0)  # not a byte left: a new file is created empty
    for n, kind in enumerate(["api", "web"], start=2):
        refused(send(kind, n), kind)
        assert _submission_files(small_disk) == []  # no empty file left
    health = client.get("/healthz")
    assert health.status_code == 503 and health.json()["failed"] == ["storage"]
    assert not Submission.objects.exists()
    assert services.quota_usage(team, phase) == (0, 0)
    assert enqueued == []

    filler.unlink()  # space freed: the same upload goes through
    rest.unlink()
    assert tally.saw(send("api", 10).status_code) == 201
    assert len(_submission_files(small_disk)) == 1
    assert client.get("/healthz").status_code == 200

    assert _mount("-o", "remount,ro", str(small_disk))
    for n, kind in enumerate(["api", "web"], start=20):
        refused(send(kind, n), kind)
    assert len(_submission_files(small_disk)) == 1  # only the accepted upload's
    health = client.get("/healthz")
    assert health.status_code == 503 and health.json()["failed"] == ["storage"]
    assert Submission.objects.count() == 1
    assert services.quota_usage(team, phase) == (1, 1)

    assert _mount("-o", "remount,rw", str(small_disk))
    assert tally.saw(send("web", 30).status_code) == 302
    assert Submission.objects.filter(status="queued").count() == 2
    assert len(_submission_files(small_disk)) == 2
    assert list((small_disk / "health").iterdir()) == []  # the probes removed themselves
    assert tally.server_errors == 0
    tally.figures["refused_503"] = tally.statuses[503]
    tally.figures["files_left_by_refused_uploads"] = len(_submission_files(small_disk)) - 2
