"""A corpus of malformed and adversarial prediction files, uploaded through the web form and
the API. The request takes each one without reading it (201, or the web form's redirect to the
submission's page) and queues it once; its worker reads it and refuses the upload (``invalid``)
with a participant-safe message naming the file and what is wrong, shown on the submission's
page and in the API; nothing is charged, scored or left in private storage, and the worker
never fails or crashes on it. The form's own checks (an empty file) and the size limit refuse
before anything is stored or read.

The corpus is generated here (large entries in code). Compressed uploads are not accepted:
a gzip or zip file is refused as a file that is not UTF-8 text.
"""

from __future__ import annotations

import gzip
import io
import json
import sys
import zipfile

import pytest
from django.conf import settings
from django.urls import reverse
from django.utils.html import escape

from leaderboard.background import SCORE_SUBMISSION
from leaderboard.submissions import services
from leaderboard.submissions.models import Submission, SubmissionFile
from scoring import Task
from tests.leaderboard.api.conftest import token_client
from tests.leaderboard.factories import KEYS, UserFactory, approved_team, phase_with_references
from tests.leaderboard.web import GOLD, GOLD_BYTES, PREDICTION, log_in, prediction_file

pytestmark = pytest.mark.django_db

GOOD = json.dumps(PREDICTION).encode()
D1, D2 = list(GOLD)


def _with(first_turn: object) -> bytes:
    """The prediction with the first user turn of the first dialogue replaced."""
    return json.dumps({**PREDICTION, D1: [first_turn, *PREDICTION[D1][1:]]}).encode()


def _wrapper(states: object) -> bytes:
    return json.dumps({d: [{"state": states} for _ in t] for d, t in PREDICTION.items()}).encode()


def _manifest(lines: list[str]) -> bytes:
    return "\n".join(lines).encode()


def _zip(data: bytes) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("run.json", data)
    return buffer.getvalue()


CORPUS: dict[str, bytes] = {
    # syntax and encoding
    "truncated-json": GOOD[: len(GOOD) // 2],
    "truncated-after-key": b'{"mul0001"',
    "nan-value": GOOD.replace(b'"north"', b"NaN", 1),
    "infinity-value": GOOD.replace(b'"north"', b"Infinity", 1),
    "negative-infinity": GOOD.replace(b'"north"', b"-Infinity", 1),
    "deep-arrays-10000": b"[" * 10_000 + b"]" * 10_000,
    "deep-objects-10000": b'{"a":' * 10_000 + b"1" + b"}" * 10_000,
    "deep-inside-a-turn": json.dumps({D1: []}).encode()[:-2] + b"[" * 10_000 + b"]" * 10_000 + b"}",
    "unclosed-deep-100000": b"[" * 100_000,
    "bom-then-garbage": b"\xef\xbb\xbf{garbage",
    "bom-only": b"\xef\xbb\xbf",
    "utf-16-le-bom": GOOD.decode().encode("utf-16"),
    "utf-16-be-bom": b"\xfe\xff" + GOOD.decode().encode("utf-16-be"),
    "utf-16-no-bom": GOOD.decode().encode("utf-16-le"),
    "latin-1": GOOD.replace(b"north", "nörth".encode("latin-1")),
    "nul-bytes": GOOD[:5] + b"\x00" * 16 + GOOD[5:],
    "escaped-nul-in-id": b'{"mul\\u0000001": []}',
    "lone-surrogate-id": b'{"\\ud800": [], "mul0001": []}',
    "control-character": b'{"mul0001\x01": []}',
    "escaped-nul-in-slot": _with({"hotel": {"ar\u0000ea": "north"}}),
    "lone-surrogate-in-domain": _with({"\udc00hotel": {"area": "north"}}),
    "lone-surrogate-in-value": _with({"hotel": {"area": "north\ud800"}}),
    "padded-huge-id": json.dumps({**PREDICTION, " " * 1_000_000 + D1.upper(): []}).encode(),
    "too-many-unknown-slots": _with({"hotel": {f"s{i}": "x" for i in range(500)}}),
    "tiny-turns": b'{"' + D1.encode() + b'": [' + b"{}," * 300_000 + b"{}]}",
    "empty": b"",
    "whitespace": b" \n\t\r\n ",
    "huge-integer": b'{"mul0001": [' + b"9" * 100_000 + b"]}",
    "huge-exponent": b'{"mul0001": 1e999999}',
    "huge-string-for-turns": json.dumps({**PREDICTION, D1: "x" * 5_000_000}).encode(),
    "huge-dialogue-id": json.dumps({"d" * 1_000_000: []}).encode(),
    "many-unknown-dialogues": json.dumps({f"x{i}": [] for i in range(50_000)}).encode(),
    "duplicate-dialogue": GOOD[:-1] + b', "mul0001": []}',
    "duplicate-slot": _with({"hotel": {"area": "north"}})[:0]
    + b'{"mul0001": [{"hotel": {"area": "north", "area": "south"}}, {"hotel": {}}], "sng0002": []}',
    "gzip": gzip.compress(GOOD),
    "gzip-bomb-header": gzip.compress(b"{" + b" " * 10_000_000),
    "zip": _zip(GOOD),
    "binary-noise": bytes(range(256)) * 64,
    # gold-json shapes
    "top-level-array": b"[1, 2, 3]",
    "top-level-string": b'"mul0001"',
    "top-level-null": b"null",
    "turns-not-a-list": json.dumps({**PREDICTION, D1: {"0": {}}}).encode(),
    "turn-not-an-object": _with("hotel-area=north"),
    "domain-not-an-object": _with({"hotel": ["north"]}),
    "value-a-number": _with({"hotel": {"area": 5}}),
    "value-null": _with({"hotel": {"area": None}}),
    "value-a-list": _with({"hotel": {"area": ["north"]}}),
    "too-many-turns": json.dumps({**PREDICTION, D1: PREDICTION[D1] * 50}).encode(),
    "missing-dialogue": json.dumps({D1: PREDICTION[D1]}).encode(),
    # mwz-wrapper shapes
    "wrapper-state-a-list": _wrapper([["hotel", "area", "north"]]),
    "wrapper-state-a-string": _wrapper("hotel-area=north"),
    "wrapper-state-values-numbers": _wrapper({"hotel": {"area": 1}}),
    # manifest shapes
    "manifest-no-state": _manifest([f"line_nr: 1 dialog_id: {D1}.json turn_id: 0 text: user: hi"]),
    "manifest-bad-pair": _manifest(
        [f"line_nr: 1 dialog_id: {D1}.json turn_id: 0 text: user: hi state: hotel-area"]
    ),
    "manifest-huge-turn-id": _manifest(
        [f"line_nr: 1 dialog_id: {D1}.json turn_id: {'9' * 50} text: user: hi state: "]
    ),
    "manifest-no-dialog-id": _manifest(["line_nr: 1 turn_id: 0 text: user: hi state: "]),
    "manifest-long-line": _manifest(
        [f"line_nr: 1 dialog_id: {D1}.json turn_id: 0 text: user: {'a' * 3_000_000} state: "]
    ),
}


#: Refused by the web form's own check, by its field, before the upload reaches the service.
REFUSED_BY_THE_FORM = {"empty": "The submitted file is empty"}
#: What the scorer may call a file it refuses (``Submission.verdicts``).
REFUSED_KINDS = {"incomplete", "mismatched", "unreadable"}
HOSTILE = "human-verbatim"


@pytest.fixture
def world(db, isolation):
    phase = phase_with_references(GOLD_BYTES)
    team = approved_team(phase)
    return phase, team, isolation["private"]


def _stored(private) -> list[str]:
    return [str(p) for p in private.rglob("*") if p.is_file() and "references" not in p.parts]


def _assert_nothing_kept(phase, team, private) -> None:
    assert not Submission.objects.exclude(status=Submission.Status.INVALID).exists()
    assert not SubmissionFile.objects.exists()
    assert _stored(private) == []
    assert services.quota_usage(team, phase) == (0, 0)
    for row in Submission.objects.all():
        assert row.error.strip(), "an invalid row without a message"
        assert not row.charged


def _scoring_tasks(published) -> list[object]:
    """The submissions whose scoring task the site sent, in order."""
    return [args[0] for name, args, _ in published if name == SCORE_SUBMISSION]


def _assert_participant_safe(text: str, private) -> None:
    """No traceback, no path of the server's file system or of private storage."""
    assert "Traceback" not in text and 'File "' not in text and ".py:" not in text
    for path in (str(private), str(settings.BASE_DIR), sys.prefix, "submissions/"):
        assert path not in text, f"{path!r} in {text[:300]!r}"


def _assert_refused_by_its_worker(row: Submission, kind: str, private) -> None:
    """The upload is invalid for its hostile file alone, with the scorer's message for it."""
    row.refresh_from_db()
    assert row.status == Submission.Status.INVALID and not row.charged
    assert not row.results.exists()
    verdict = row.verdicts[HOSTILE]
    assert verdict == {"kind": verdict["kind"], "name": f"{kind}.json"}
    assert verdict["kind"] in REFUSED_KINDS
    others = {key: v["kind"] for key, v in row.verdicts.items() if key != HOSTILE}
    assert others == {key: "valid" for key in KEYS if key != HOSTILE}
    # one line per refused file, "key: message"; a message cut to a size a page can show
    assert row.error.startswith(f"{HOSTILE}: ") and row.error[len(HOSTILE) + 2 :].strip()
    assert len(row.error) <= len(HOSTILE) + 2 + settings.MAX_ERROR_CHARS
    _assert_participant_safe(row.error, private)


def test_the_corpus_is_large_enough():
    assert len(CORPUS) >= 30


@pytest.mark.parametrize("kind", list(CORPUS))
def test_the_web_form_takes_each_hostile_file_and_its_worker_refuses_it_with_a_message(
    client, world, worker, published, kind
):
    phase, team, private = world
    log_in(client, team.created_by)
    files = {f"file_{key}": prediction_file() for key in KEYS}
    files[f"file_{HOSTILE}"] = prediction_file(CORPUS[kind], f"{kind}.json")
    url = reverse("submissions:submit", args=[phase.challenge.slug, phase.slug])

    with worker():
        response = client.post(url, {"method_name": "hostile", **files})

    if kind in REFUSED_BY_THE_FORM:
        # the form's own check, by its field: nothing stored, recorded or sent
        assert response.status_code == 200
        assert REFUSED_BY_THE_FORM[kind] in response.text
        assert not Submission.objects.exists()
        assert _scoring_tasks(published) == [] and worker.outcomes == []
    else:
        (row,) = Submission.objects.all()
        assert response.status_code == 302 and response["Location"] == f"/submissions/{row.pk}/"
        assert _scoring_tasks(published) == [row.pk]  # sent once, after the commit
        assert worker.outcomes == ["invalid"]
        _assert_refused_by_its_worker(row, kind, private)
        page = client.get(response["Location"])
        assert page.status_code == 200
        text = page.text
        assert "Why the upload was not accepted" in text
        assert "it does not count against your quota" in text
        assert escape(row.error) in text
        assert (
            f"(<code>{kind}.json</code>): <strong>{row.verdicts[HOSTILE]['kind']}</strong>" in text
        )
        assert "none stored" in text
        shown = text.split('id="error-heading"')[1].split("</section>")[0]
        _assert_participant_safe(shown, private)
    _assert_nothing_kept(phase, team, private)


@pytest.mark.parametrize("kind", list(CORPUS))
def test_the_api_takes_each_hostile_file_and_its_worker_refuses_it_with_a_message(
    world, worker, published, kind
):
    phase, team, private = world
    api = token_client(team.created_by)
    files = {key: prediction_file() for key in KEYS}
    files[HOSTILE] = prediction_file(CORPUS[kind], f"{kind}.json")

    with worker():
        response = api.post(
            f"/api/v1/phases/{phase.pk}/submissions/", {"method_name": "hostile", **files}
        )

    assert response.status_code == 201, response.content[:500]
    accepted = response.json()
    assert accepted["status"] == "queued"
    assert _scoring_tasks(published) == [accepted["id"]]  # sent once, after the commit
    assert worker.outcomes == ["invalid"]
    row = Submission.objects.get(pk=accepted["id"])
    _assert_refused_by_its_worker(row, kind, private)
    found = api.get(f"/api/v1/submissions/{row.pk}/")
    assert found.status_code == 200
    detail = found.json()
    assert detail["status"] == "invalid"
    assert detail["error"] == row.error and detail["verdicts"] == row.verdicts
    assert detail["files"] == []
    _assert_participant_safe(json.dumps(detail["verdicts"]), private)
    _assert_nothing_kept(phase, team, private)


def test_a_file_over_the_size_limit_is_refused_before_it_is_read(
    world, worker, published, settings, monkeypatch
):
    phase, team, private = world
    settings.MAX_UPLOAD_BYTES = 1_000
    parsed: list[str] = []
    monkeypatch.setattr(
        Task, "load_prediction", lambda task, source, *a, **k: parsed.append(source.name)
    )
    api = token_client(team.created_by)
    files = {key: prediction_file() for key in KEYS}
    files[HOSTILE] = prediction_file(b" " * 2_000 + GOOD, "big.json")

    with worker():
        response = api.post(
            f"/api/v1/phases/{phase.pk}/submissions/", {"method_name": "x", **files}
        )

    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "submission_rejected"
    message = error["details"]["conditions"][HOSTILE]
    assert "largest accepted is 1,000 bytes" in message
    assert error["details"]["kinds"] == {HOSTILE: "too large"}
    # Refused by the request on its size alone: no file of the upload was read, stored or sent
    # to a worker.
    assert parsed == []
    assert _scoring_tasks(published) == [] and worker.outcomes == []
    (row,) = Submission.objects.all()
    assert row.verdicts[HOSTILE] == {"kind": "too large", "name": "big.json"}
    assert {v["kind"] for key, v in row.verdicts.items() if key != HOSTILE} == {"unchecked"}
    _assert_nothing_kept(phase, team, private)


@pytest.mark.parametrize("path", ["api", "page"])
def test_a_declared_two_gigabyte_body_gets_413_without_being_read(client, world, enqueued, path):
    phase, team, private = world
    user = team.created_by
    if path == "api":
        api = token_client(user)
        url = f"/api/v1/phases/{phase.pk}/submissions/"
        response = api.generic(
            "POST",
            url,
            b"x" * 100,
            content_type="multipart/form-data; boundary=zz",
            CONTENT_LENGTH=str(2 * 1024**3),
        )
        assert response.status_code == 413
        assert response.json()["error"]["code"] == "request_too_large"
    else:
        log_in(client, user)
        url = reverse("submissions:submit", args=[phase.challenge.slug, phase.slug])
        response = client.generic(
            "POST",
            url,
            b"x" * 100,
            content_type="multipart/form-data; boundary=zz",
            CONTENT_LENGTH=str(2 * 1024**3),
        )
        assert response.status_code == 413
        assert "largest accepted" in response.text
    _assert_nothing_kept(phase, team, private)


@pytest.mark.parametrize("path", ["api", "page"])
def test_a_chunked_body_without_a_length_is_told_to_send_one(client, world, enqueued, path):
    # what a WSGI server hands over for "Transfer-Encoding: chunked": no CONTENT_LENGTH, which
    # Django reads as an empty body ("method_name: This field is required.")
    phase, team, private = world
    body = b'--zz\r\nContent-Disposition: form-data; name="method_name"\r\n\r\nm\r\n--zz--\r\n'
    chunked = {
        "content_type": "multipart/form-data; boundary=zz",
        "CONTENT_LENGTH": "",
        "HTTP_TRANSFER_ENCODING": "chunked",
    }
    if path == "api":
        url = f"/api/v1/phases/{phase.pk}/submissions/"
        response = token_client(team.created_by).generic("POST", url, body, **chunked)
        assert response.status_code == 411
        error = response.json()["error"]
        assert error["code"] == "length_required"
        text = error["message"]
    else:
        log_in(client, team.created_by)
        url = reverse("submissions:submit", args=[phase.challenge.slug, phase.slug])
        response = client.generic("POST", url, body, **chunked)
        assert response.status_code == 411
        text = response.text
    assert "without a Content-Length header" in text and "send the request again with" in text
    assert "This field is required" not in text
    _assert_nothing_kept(phase, team, private)


def test_a_deeply_nested_json_body_to_the_api_is_a_client_error(world):
    phase, team, _ = world
    api = token_client(team.created_by)
    body = b'{"method_name":' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    response = api.generic(
        "POST", f"/api/v1/phases/{phase.pk}/submissions/", body, content_type="application/json"
    )
    assert 400 <= response.status_code < 500
    assert response.json()["error"]["message"]


def test_a_lone_surrogate_in_the_method_name_is_a_client_error(world, enqueued):
    phase, team, _ = world
    api = token_client(team.created_by)
    body = b'{"method_name": "\\ud800"}'
    response = api.generic(
        "POST", f"/api/v1/phases/{phase.pk}/submissions/", body, content_type="application/json"
    )
    assert 400 <= response.status_code < 500


def test_an_outsider_sending_hostile_files_is_refused_before_parsing(world, enqueued):
    phase, _, private = world
    api = token_client(UserFactory())
    response = api.post(
        f"/api/v1/phases/{phase.pk}/submissions/",
        {"method_name": "x", "human-verbatim": prediction_file(CORPUS["deep-arrays-10000"])},
    )
    assert response.status_code == 403
    assert _stored(private) == []
