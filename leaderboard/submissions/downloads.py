"""Organisers' downloads of submitted files: a zip built while it is sent.

The zip is written into a sink that keeps only what was written since the last chunk was
sent, and each file is copied from private storage in chunks, so memory stays bounded by one
chunk whatever the size of the phase. Each download is logged (who, which challenge, which
submissions)."""

from __future__ import annotations

import csv
import io
import logging
import zipfile
from collections.abc import Iterable, Iterator
from typing import Any

from django.db import transaction
from django.http import HttpRequest, StreamingHttpResponse

from leaderboard.challenges import audit
from leaderboard.challenges.models import Phase
from leaderboard.spreadsheets import spreadsheet_safe
from leaderboard.submissions.models import Submission, SubmissionFile

log = logging.getLogger("leaderboard.organisers")

CHUNK = 64 * 1024
#: the manifest's path of a file private storage no longer has
MISSING = "(missing from storage)"
#: the manifest's columns, one line per file
MANIFEST = (
    "submission_id", "team", "method", "status", "baseline", "created_at", "condition",
    "original_name", "sha256", "size", "path",
)  # fmt: skip


class _Sink(io.RawIOBase):
    """A write-only stream that hands out what was written since the last ``take``."""

    def __init__(self) -> None:
        self._parts: list[bytes] = []

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        self._parts.append(bytes(data))
        return len(data)

    def take(self) -> bytes:
        out = b"".join(self._parts)
        self._parts.clear()
        return out


def path_in_zip(file: SubmissionFile) -> str:
    """``<submission id>/<condition key>.<extension of the uploaded name>``: unique per file
    and safe whatever the team named its upload."""
    name = file.original_name.rsplit("/", 1)[-1]
    extension = name.rsplit(".", 1)[-1] if "." in name else "bin"
    extension = "".join(ch for ch in extension if ch.isalnum())[:10] or "bin"
    return f"{file.submission_id}/{file.condition.key}.{extension}"


def stream(submissions: Iterable[Submission]) -> Iterator[bytes]:
    """The zip of every file of ``submissions``, with ``manifest.csv``, chunk by chunk."""
    sink = _Sink()
    manifest = io.StringIO()
    writer = csv.writer(manifest)
    writer.writerow(MANIFEST)
    with zipfile.ZipFile(sink, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for submission in submissions:
            files = submission.files.select_related("condition").order_by(
                "condition__order", "condition__key"
            )
            for file in files:
                path = path_in_zip(file)
                try:
                    source = file.file.open("rb")
                except OSError:
                    # storage lost it: the manifest says so, the other files still come
                    log.warning("submitted file missing from storage", extra={"file": file.pk})
                    path = MISSING
                else:
                    with source, archive.open(path, "w") as out:
                        while chunk := source.read(CHUNK):
                            out.write(chunk)
                            yield sink.take()
                writer.writerow(
                    [submission.pk, spreadsheet_safe(submission.team.name),
                     spreadsheet_safe(submission.method_name), submission.status,
                     submission.is_baseline, submission.created_at.isoformat(),
                     file.condition.key, spreadsheet_safe(file.original_name), file.sha256,
                     file.size, path]
                )  # fmt: skip
                yield sink.take()
        archive.writestr("manifest.csv", manifest.getvalue())
    yield sink.take()


def zip_response(
    request: HttpRequest, submissions: Iterable[Submission], filename: str, phase: Any = None
) -> StreamingHttpResponse:
    """The streamed zip of ``submissions``' files as an attachment; logs the download, and
    records it in the challenge's audit log (``phase``: the phase downloaded whole)."""
    rows = list(submissions)
    if rows:
        first = Phase.objects.get(pk=rows[0].phase_id)
        with transaction.atomic():
            audit.record(
                first.challenge_id, "files-downloaded", actor=request.user,
                phase=phase or first, subject=filename,
                after={"submissions": [s.pk for s in rows]},
            )  # fmt: skip
    log.info(
        "organiser download",
        extra={
            "user": request.user.get_username(),
            "download": filename,
            "submissions": [s.pk for s in rows],
        },
    )
    response = StreamingHttpResponse(
        (chunk for chunk in stream(rows) if chunk), content_type="application/zip"
    )
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    response["Cache-Control"] = "private, no-store"
    return response
