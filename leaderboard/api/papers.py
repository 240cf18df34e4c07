"""``GET /api/v1/phases/<pk>/pairwise/?a=ID&b=ID``: two entries of the public board compared
per condition (``rankings.pairwise``), aggregates only.

``GET /api/v1/phases/<pk>/robustness/``: each entry's change from the first condition, tested
(``rankings.robustness``).

``GET /api/v1/phases/<pk>/errors/``: the cross-team error analysis (``rankings.crossteam``).

``GET /api/v1/phases/<pk>/table/``: a phase's paper table (see ``rankings.papers``) as
JSON, for ``trackboard table``: ``{"format", "table"}``. Query: ``as=latex|markdown``,
``board=public|final``, ``snapshot=N``, ``conditions=a,b``, ``metrics=x,y``. Whatever the
reader may not see (a hidden phase before the reveal) is a 404, as on the pages."""

from __future__ import annotations

import dataclasses

from django.http import Http404
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.permissions import AllowAny
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from leaderboard.api.errors import ApiError
from leaderboard.challenges.models import Phase
from leaderboard.challenges.visibility import access
from leaderboard.rankings.crossteam import analyse, may_see
from leaderboard.rankings.pairwise import PairError, compare
from leaderboard.rankings.paper_views import requested_table
from leaderboard.rankings.papers import FORMATS, TableError
from leaderboard.rankings.robustness import changes
from leaderboard.rankings.services import leaderboard


class _Open(APIView):
    """Read by anyone: each view answers 404 for what the reader may not see."""

    permission_classes = [AllowAny]
    renderer_classes = [JSONRenderer]


def _public_phase(request: Request, pk: int) -> Phase:
    """The phase, when its public leaderboard is open to this reader; else a 404."""
    phase = get_object_or_404(Phase.objects.select_related("challenge"), pk=pk)
    if not access(phase, request.user).board:
        raise ApiError("not_found", "This phase's leaderboard is not public.", status_code=404)
    return phase


@extend_schema(
    summary="A phase's results as a LaTeX (booktabs) or Markdown table, for papers",
    tags=["leaderboards"],
    parameters=[
        OpenApiParameter("as", str, enum=list(FORMATS), description="default: latex"),
        OpenApiParameter(
            "board",
            str,
            enum=["public", "final"],
            description="default: the latest published snapshot if any, else the public board",
        ),
        OpenApiParameter("snapshot", int, description="a published snapshot's number"),
        OpenApiParameter("conditions", str, description="condition keys, comma-separated"),
        OpenApiParameter("metrics", str, description="metric names, comma-separated"),
    ],
    responses={200: OpenApiTypes.OBJECT},
)
class PhaseTable(_Open):
    def get(self, request: Request, pk: int) -> Response:
        phase = get_object_or_404(Phase.objects.select_related("challenge"), pk=pk)
        fmt = request.query_params.get("as") or "latex"
        try:
            text = requested_table(phase, request.user, request.query_params, fmt)
        except Http404:
            raise ApiError(
                "not_found", "There is no table of this phase you may see.", status_code=404
            ) from None
        except TableError as exc:
            raise ApiError(
                "invalid", "The request is invalid; see details.", details={"table": [str(exc)]}
            ) from None
        return Response({"format": fmt, "formats": list(FORMATS), "table": text})


@extend_schema(
    summary="Two entries of a phase's public leaderboard compared per condition (paired test)",
    tags=["leaderboards"],
    parameters=[
        OpenApiParameter("a", int, required=True, description="an entry's submission id"),
        OpenApiParameter("b", int, required=True, description="another entry's submission id"),
    ],
    responses={200: OpenApiTypes.OBJECT},
)
class PhasePairwise(_Open):
    def get(self, request: Request, pk: int) -> Response:
        phase = _public_phase(request, pk)
        board = leaderboard(phase, "public")
        a, b = request.query_params.get("a", ""), request.query_params.get("b", "")
        try:
            if not (a.isdigit() and b.isdigit()):
                raise PairError("Pick two entries of this leaderboard to compare.")
            rows = compare(phase, board, int(a), int(b))
        except PairError as exc:
            raise ApiError(
                "invalid", "The request is invalid; see details.", details={"a": [str(exc)]}
            ) from None
        return Response(
            {"a": int(a), "b": int(b), "conditions": [dataclasses.asdict(r) for r in rows]}
        )


@extend_schema(
    summary="Each entry's change from the first condition to every other, with paired tests",
    tags=["leaderboards"],
    responses={200: OpenApiTypes.OBJECT},
)
class PhaseRobustness(_Open):
    def get(self, request: Request, pk: int) -> Response:
        phase = _public_phase(request, pk)
        first, entries = changes(phase, leaderboard(phase, "public"))
        return Response(
            {
                "metric": phase.challenge.primary,
                "first": first,
                "entries": [dataclasses.asdict(e) for e in entries],
            }
        )


@extend_schema(
    summary="Cross-team error analysis: slots and domains by share of the entries' errors",
    tags=["leaderboards"],
    responses={200: OpenApiTypes.OBJECT},
)
class PhaseErrors(_Open):
    def get(self, request: Request, pk: int) -> Response:
        phase = get_object_or_404(Phase.objects.select_related("challenge"), pk=pk)
        if not may_see(phase, request.user):
            raise ApiError(
                "not_found", "This phase's error analysis is not public.", status_code=404
            )
        return Response(dataclasses.asdict(analyse(phase, leaderboard(phase, "public"))))
