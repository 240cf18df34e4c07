"""Helpers for the page tests: a hand-worked gold and prediction, and form payloads.

The expected numbers are worked out by hand from the dstc11 rules (docs/scoring.md):
4 user turns; the prediction differs in one turn (sng0002, turn 1: ``leaveat`` 10:30 instead of
10:15), so 3 of 4 turns match: JGA = 75.00. Gold slot values: 1 + 2 + 1 + 2 = 6; one
substitution, no deletion or insertion: SER = 1 / 6 = 16.67.
"""

from __future__ import annotations

import json
import re

from django.core.files.uploadedfile import SimpleUploadedFile

from tests.leaderboard.factories import KEYS

GOLD = {
    "mul0001": [
        {"hotel": {"area": "north"}},
        {"hotel": {"area": "north", "bookday": "monday"}},
    ],
    "sng0002": [
        {"train": {"day": "friday"}},
        {"train": {"day": "friday", "leaveat": "10:15"}},
    ],
}
PREDICTION = {
    "mul0001": GOLD["mul0001"],
    "sng0002": [
        {"train": {"day": "friday"}},
        {"train": {"day": "friday", "leaveat": "10:30"}},
    ],
}
GOLD_BYTES = json.dumps(GOLD).encode()
JGA, SER = "75.00", "16.67"
#: The figures above in any precision ("75.0", "16.666666666666668"), as ``figures`` finds them.
HAND_WORKED = ("75.0", "16.66", "16.67")

#: A decimal number standing on its own: not the seconds of a time ("23:58:16.679848Z"), part of
#: an address or a version ("10.0.0.9") or of an id or a hash.
_FIGURE = re.compile(r"(?<![\w.:])\d+\.\d+(?![\w.:])")


def figures(text: str) -> list[str]:
    """Every figure ``text`` writes (a page, an export, an API answer, a mail), as written and
    in order: a figure is looked for among these, never among the digits of a time, an id or a
    hash, which a page also carries."""
    return _FIGURE.findall(text)


def shows_hand_worked(text: str) -> bool:
    """Whether ``text`` writes the hand-worked JGA or SER (``HAND_WORKED``) as a figure."""
    return any(figure.startswith(HAND_WORKED) for figure in figures(text))


#: (file content, a phrase of the scorer's message) for each kind of malformed upload.
MALFORMED = {
    "bad-json": (b'{"mul0001": [', "invalid JSON"),
    "missing-dialogue": (json.dumps({"mul0001": GOLD["mul0001"]}).encode(), "sng0002"),
    "wrong-value-type": (
        json.dumps({**GOLD, "mul0001": [{"hotel": {"area": 5}}, {"hotel": {"area": 5}}]}).encode(),
        "must be a string",
    ),
}


def tight(html: str) -> str:
    """``html`` without its layout (the templates' line breaks and indents): a run of
    whitespace as one space, and none next to a tag's brackets."""
    return re.sub(r"\s*([<>])\s*", r"\1", re.sub(r"\s+", " ", html))


def prediction_file(content: bytes | dict = PREDICTION, name: str = "run.json"):
    raw = content if isinstance(content, bytes) else json.dumps(content).encode()
    return SimpleUploadedFile(name, raw, content_type="application/json")


def submit_payload(method: str = "My tracker", files: dict | None = None, **extra) -> dict:
    """POST data for the submit page: a file per condition plus the method fields."""
    files = files if files is not None else {key: prediction_file() for key in KEYS}
    data = {"method_name": method, "method_description": "", "url": "", **extra}
    data.update({f"file_{key}": upload for key, upload in files.items()})
    return data


def log_in(client, user) -> None:
    """``force_login`` with the stored row: the factory sets a password without saving it, and
    a session made from the unsaved hash would be dropped on the next request."""
    client.force_login(type(user).objects.get(pk=user.pk))


def scored_submission(
    team,
    phase,
    method: str = "My tracker",
    *,
    content: bytes | dict = PREDICTION,
    score: bool = True,
    build: bool = True,
    **kwargs,
):
    """A submission of ``content`` for every condition, made through the service and, unless
    ``score=False``, scored by the task's body; then, unless ``build=False``, the phase's
    boards are built, as the board's worker builds them after each change."""
    from leaderboard.submissions import services
    from tests.leaderboard.boards import built

    submission = services.submit(
        team=team,
        phase=phase,
        user=team.created_by,
        files={key: prediction_file(content) for key in KEYS},
        method_name=method,
        enqueue=False,
        **kwargs,
    )
    if score:
        assert services.run_scoring(submission.pk) == "scored"
        submission.refresh_from_db()
    if build:
        built(phase)
    return submission
