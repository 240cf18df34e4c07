"""``/api/v1/organise/``: what organisers read of their phases, with a token.

Every endpoint answers only the organisers of the phase's challenge (anyone else, superusers
included, gets ``404 not_found`` as for a phase that does not exist) and shows hidden results
too: a phase's submissions, every Result, the archive (``analyses.exports.archive``), the
published snapshots as stored, every submission's files as a streamed zip, and the audit
log (``challenges.audit``) of the phase and of its challenge as a whole. A token needs the
"organise" scope for any of them (``leaderboard.api.scopes``); an organiser without a second
factor gets ``403 second_factor_required`` until they set one up (``challenges.factors``)."""

from __future__ import annotations

from typing import Any

from django.http import Http404, StreamingHttpResponse
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from leaderboard.analyses.exports import archive
from leaderboard.api.errors import ApiError
from leaderboard.api.models import Scope
from leaderboard.challenges import audit, factors
from leaderboard.challenges.models import Phase
from leaderboard.submissions import downloads
from leaderboard.submissions.models import Submission


# The endpoints of the organiser API (no docstring: the schema would show it for each).
class Organising(APIView):
    token_scope = Scope.ORGANISE


def organised_phase(request: Request, pk: int) -> Phase:
    """The phase, when ``request``'s user organises it (else 404) and has a second factor
    (else 403 ``second_factor_required``, saying where to set one up: ``factors``)."""
    phase = get_object_or_404(Phase.objects.select_related("challenge"), pk=pk)
    if not phase.challenge.is_organised_by(request.user):
        raise Http404
    refusal = factors.api_refusal(request.user)
    if refusal:
        raise ApiError("second_factor_required", refusal, status_code=403)
    return phase


def submission_row(submission: Submission) -> dict[str, Any]:
    return {
        "id": submission.pk,
        "team": {
            "name": submission.team.name,
            "slug": submission.team.slug,
            "anonymous": submission.team.anonymous,
            "shown_as": submission.team.anonymous_label
            if submission.team.anonymous
            else submission.team.name,
        },
        "method_name": submission.method_name,
        "method_description": submission.method_description,
        "url": submission.url,
        "status": submission.status,
        "error": submission.error,
        "is_baseline": submission.is_baseline,
        "selected_for_final": submission.selected_for_final,
        "shown_on_public": submission.shown_on_public,
        "attempts": submission.attempts,
        "created_at": submission.created_at,
        "scored_at": submission.scored_at,
        "files": [
            {
                "condition": f.condition.key,
                "original_name": f.original_name,
                "sha256": f.sha256,
                "size": f.size,
            }
            for f in submission.files.all()
        ],
    }


@extend_schema(
    summary="Organisers: every submission of a phase, hidden or not",
    tags=["organisers"],
    responses={200: OpenApiTypes.OBJECT},
)
class PhaseSubmissions(Organising):
    def get(self, request: Request, pk: int) -> Response:
        phase = organised_phase(request, pk)
        rows = (
            phase.submissions.select_related("team")
            .prefetch_related("files__condition")
            .order_by("pk")
        )
        return Response({"phase": pk, "submissions": [submission_row(s) for s in rows]})


@extend_schema(
    summary="Organisers: every Result of a phase, hidden figures and superseded rows included",
    tags=["organisers"],
    responses={200: OpenApiTypes.OBJECT},
)
class PhaseResults(Organising):
    def get(self, request: Request, pk: int) -> Response:
        data = archive(organised_phase(request, pk))
        return Response({"phase": pk, "results": data["results"]})


@extend_schema(
    summary="Organisers: the phase's archive (as archive.json)",
    tags=["organisers"],
    responses={200: OpenApiTypes.OBJECT},
)
class PhaseArchive(Organising):
    def get(self, request: Request, pk: int) -> Response:
        return Response(archive(organised_phase(request, pk)))


@extend_schema(
    summary="Organisers: the phase's published snapshots, as stored",
    tags=["organisers"],
    responses={200: OpenApiTypes.OBJECT},
)
class PhaseSnapshots(Organising):
    def get(self, request: Request, pk: int) -> Response:
        phase = organised_phase(request, pk)
        snapshots = [
            {
                "number": s.number,
                "published_at": s.published_at,
                "published_by": s.published_by.get_username() if s.published_by else None,
                "data": s.data,
            }
            for s in phase.snapshots.select_related("published_by").order_by("number")
        ]
        return Response({"phase": pk, "snapshots": snapshots})


@extend_schema(
    summary="Organisers: the audit log of a phase and of its challenge as a whole",
    tags=["organisers"],
    responses={200: OpenApiTypes.OBJECT},
)
class PhaseAudit(Organising):
    def get(self, request: Request, pk: int) -> Response:
        phase = organised_phase(request, pk)
        rows = audit.entries(phase.challenge, phase)
        return Response({"phase": pk, "entries": [e.describe() for e in rows]})


@extend_schema(
    summary="Organisers: every submission's files of a phase as a zip (streamed)",
    tags=["organisers"],
    responses={(200, "application/zip"): OpenApiTypes.BINARY},
)
class PhaseFiles(Organising):
    def get(self, request: Request, pk: int) -> StreamingHttpResponse:
        phase = organised_phase(request, pk)
        rows = phase.submissions.select_related("team").order_by("pk")
        name = f"{phase.challenge.slug}-{phase.slug}-files.zip"
        return downloads.zip_response(request, rows, name, phase=phase)
