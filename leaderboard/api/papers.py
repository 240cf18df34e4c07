"""A phase's paper table and the readers' analyses, on the board the query asks for: the live
public board, or a published snapshot once the reader may see it (``board=public|final``,
``snapshot=N``; default: the latest visible snapshot, else the public board), read through the
pages' own ``requested_board``. Whatever the reader may not see (a hidden phase before the
reveal) is a 404, as on the pages.

``GET /api/v1/phases/<pk>/pairwise/?a=ID&b=ID``: two entries of the board compared per
condition (``analyses.pairwise``), aggregates only.

``GET /api/v1/phases/<pk>/robustness/``: each entry's change from the first condition, tested
(``analyses.robustness``).

``GET /api/v1/phases/<pk>/errors/``: the cross-team error analysis (``analyses.crossteam``).

``GET /api/v1/phases/<pk>/shakeup/``: the shake-up of a published snapshot (``snapshot=N``,
default the latest; ``analyses.shakeups``); a 404 before the reveal, when the private board it
comes from is the organisers' alone.

``GET /api/v1/phases/<pk>/table/``: a phase's paper table (see ``analyses.papers``) as
JSON, for ``trackboard table``: ``{"format", "table"}``. Query: ``as=latex|markdown``,
``conditions=a,b``, ``metrics=x,y``, ``rank_intervals=yes|no``.

The analyses say which board they are on: ``board`` (``public`` or ``final``) and
``snapshot`` (its number, or null)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from django.http import Http404
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.permissions import AllowAny
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from leaderboard.analyses.crossteam import analyse
from leaderboard.analyses.pairwise import PairError, compare, requested_pair
from leaderboard.analyses.papers import FORMATS, TableError
from leaderboard.analyses.robustness import changes
from leaderboard.analyses.shakeups import described
from leaderboard.analyses.views import (
    Shown,
    requested_board,
    requested_errors,
    requested_final,
    requested_table,
)
from leaderboard.api.errors import ApiError
from leaderboard.challenges.models import Phase

BOARD_PARAMETERS = [
    OpenApiParameter(
        "board",
        str,
        enum=["public", "final"],
        description="default: the latest published snapshot if any, else the public board",
    ),
    OpenApiParameter("snapshot", int, description="a published snapshot's number"),
]


class _Open(APIView):
    """Read by anyone: each view answers 404 for what the reader may not see."""

    permission_classes = [AllowAny]
    renderer_classes = [JSONRenderer]


def _phase(request: Request, pk: int) -> Phase:
    return get_object_or_404(Phase.objects.read_by(request.user), pk=pk)


def _board(
    request: Request,
    pk: int,
    choose: Callable[[Phase, Any, Any], Shown] = requested_board,
) -> tuple[Phase, Shown]:
    """The phase and the board the query asks for (``choose``: the pages' own choice); a 404
    for whatever this reader may not see."""
    phase = _phase(request, pk)
    try:
        return phase, choose(phase, request.user, request.query_params)
    except Http404:
        raise ApiError(
            "not_found", "There is no board of this phase you may see.", status_code=404
        ) from None


def _which(shown: Shown) -> dict[str, Any]:
    return {
        "board": "public" if shown.snapshot is None else "final",
        "snapshot": None if shown.snapshot is None else shown.snapshot.number,
    }


@extend_schema(
    summary="A phase's results as a LaTeX (booktabs) or Markdown table, for papers",
    tags=["leaderboards"],
    parameters=[
        OpenApiParameter("as", str, enum=list(FORMATS), description="default: latex"),
        *BOARD_PARAMETERS,
        OpenApiParameter("conditions", str, description="condition keys, comma-separated"),
        OpenApiParameter("metrics", str, description="metric names, comma-separated"),
        OpenApiParameter(
            "rank_intervals",
            str,
            enum=["yes", "no"],
            description="yes: each condition starts with the rank and its 95% interval",
        ),
        OpenApiParameter(
            "view",
            str,
            enum=["system", "per-condition"],
            description="system (default): one line per team's overview submission on every "
            "condition; per-condition: each condition's column is the team's best there",
        ),
    ],
    responses={200: OpenApiTypes.OBJECT},
)
class PhaseTable(_Open):
    def get(self, request: Request, pk: int) -> Response:
        phase = _phase(request, pk)
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
    summary="Two entries of a phase's leaderboard compared per condition (paired test)",
    tags=["leaderboards"],
    parameters=[
        OpenApiParameter("a", int, required=True, description="an entry's submission id"),
        OpenApiParameter("b", int, required=True, description="another entry's submission id"),
        *BOARD_PARAMETERS,
    ],
    responses={200: OpenApiTypes.OBJECT},
)
class PhasePairwise(_Open):
    def get(self, request: Request, pk: int) -> Response:
        phase, shown = _board(request, pk)
        try:
            a, b = requested_pair(request.query_params)
            rows = compare(phase, shown.board, a, b)
        except PairError as exc:
            raise ApiError(
                "invalid", "The request is invalid; see details.", details={"a": [str(exc)]}
            ) from None
        return Response(
            {
                **_which(shown),
                "a": a,
                "b": b,
                "conditions": [dataclasses.asdict(r) for r in rows],
            }
        )


@extend_schema(
    summary="Each entry's change from the first condition to every other, with paired tests",
    tags=["leaderboards"],
    parameters=BOARD_PARAMETERS,
    responses={200: OpenApiTypes.OBJECT},
)
class PhaseRobustness(_Open):
    def get(self, request: Request, pk: int) -> Response:
        phase, shown = _board(request, pk)
        first, entries = changes(phase, shown.board)
        return Response(
            {
                **_which(shown),
                "metric": phase.challenge.primary,
                "first": first,
                "entries": [dataclasses.asdict(e) for e in entries],
            }
        )


@extend_schema(
    summary="Cross-team error analysis: slots and domains by share of the entries' errors",
    tags=["leaderboards"],
    parameters=BOARD_PARAMETERS,
    responses={200: OpenApiTypes.OBJECT},
)
class PhaseErrors(_Open):
    def get(self, request: Request, pk: int) -> Response:
        phase, shown = _board(request, pk, requested_errors)
        return Response({**_which(shown), **dataclasses.asdict(analyse(phase, shown.board))})


@extend_schema(
    summary="The shake-up of a published final ranking: how far the public part predicted it",
    tags=["leaderboards"],
    parameters=[
        OpenApiParameter("snapshot", int, description="a published snapshot (default: latest)")
    ],
    responses={200: OpenApiTypes.OBJECT},
)
class PhaseShakeup(_Open):
    def get(self, request: Request, pk: int) -> Response:
        _, shown = _board(request, pk, requested_final)
        return Response({**_which(shown), **described(shown.board)})
