"""REST API views (``/api/v1/``). Each one is a thin shell over the services and selectors the
pages use, so a rule (404 for another team's submission, hidden results, quotas) holds in
both places by construction."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, cast

from django.contrib.auth.models import User
from django.contrib.staticfiles import finders
from django.db import DatabaseError, connection
from django.db.models import Prefetch, QuerySet
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import exceptions, generics, status
from rest_framework.fields import DateTimeField
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.permissions import AllowAny
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from leaderboard.accounts.export import personal_data
from leaderboard.accounts.requests import AuthenticatedRequest
from leaderboard.addresses import client_address
from leaderboard.api import serializers as s
from leaderboard.api.errors import ApiError
from leaderboard.api.models import Scope
from leaderboard.api.pagination import Pagination
from leaderboard.api.permissions import require_results_visible, submitting_team
from leaderboard.api.renderers import CSVRenderer
from leaderboard.api.schema import ERROR_CODES, ErrorSerializer
from leaderboard.challenges import announcements, data
from leaderboard.challenges.announcements import Announcement
from leaderboard.challenges.facts import Fact
from leaderboard.challenges.facts import shown as fact_cell
from leaderboard.challenges.models import Challenge, Phase
from leaderboard.challenges.visibility import access
from leaderboard.ids import row_id
from leaderboard.rankings import caching, history
from leaderboard.rankings.board import split_part
from leaderboard.rankings.boards import Stored
from leaderboard.rankings.facts import fact_points, filtered, stored_facts
from leaderboard.rankings.facts import filters as fact_filters
from leaderboard.submissions import selectors, services
from leaderboard.submissions.models import Result, Submission
from leaderboard.teams import services as teams
from leaderboard.teams.models import Membership, Participation, Team
from leaderboard.teams.services import UNCONFIRMED, address_confirmed, is_member, teams_of
from leaderboard.throttles import SUBMIT_THROTTLES

# --- challenges ----------------------------------------------------------------------------


@extend_schema(summary="List challenges", tags=["challenges"])
class ChallengeList(generics.ListAPIView):
    permission_classes = [AllowAny]
    serializer_class = s.ChallengeSummarySerializer
    queryset = Challenge.objects.prefetch_related("phases").order_by("-created", "pk")


@extend_schema(summary="One challenge with its phases and conditions", tags=["challenges"])
class ChallengeDetail(generics.RetrieveAPIView):
    permission_classes = [AllowAny]
    serializer_class = s.ChallengeSerializer
    lookup_field = "slug"
    queryset = Challenge.objects.prefetch_related("phases__conditions")


@extend_schema(
    summary="The announcements of one challenge, newest first",
    description="What the challenge's organisers announced (the challenge page's "
    "Announcements, also an Atom feed at /challenges/{slug}/announcements.atom): each with "
    "its Markdown and the sanitised HTML the page shows. Public as the challenge is.",
    tags=["challenges"],
)
class ChallengeAnnouncements(generics.ListAPIView):
    permission_classes = [AllowAny]
    serializer_class = s.AnnouncementSerializer

    def get_queryset(self) -> QuerySet[Announcement]:
        challenge = get_object_or_404(Challenge, slug=self.kwargs["slug"])
        return announcements.of(challenge).select_related("challenge")


@extend_schema(
    summary="A sample submission for one condition",
    description="Every dialogue id and user turn the condition is scored on, each with an "
    "empty state, in the task's primary format (written from the active reference; no "
    "reference value). Uploaded as it is, it scores the share of turns with an empty "
    "reference state.",
    tags=["challenges"],
    # a JSON document: an object or an array, as the task's primary format writes it
    responses={(200, "application/json"): OpenApiTypes.ANY},
)
class ConditionSample(APIView):
    permission_classes = [AllowAny]

    def get(self, request: Request, pk: int, condition: str) -> HttpResponse:
        phase = _phase(pk)
        found = data.condition_of(phase.challenge, phase.slug, condition)
        if found.active_reference() is None:
            raise ApiError("not_found", "This condition has no reference yet.", status_code=404)
        try:
            return data.sample_response(found)
        except OSError:
            raise ApiError(
                "unavailable",
                "The reference cannot be read just now; please try again in a minute.",
                status_code=503,
            ) from None


# --- leaderboards ----------------------------------------------------------------------------


def _phase(pk: int, user: Any = None) -> Phase:
    return get_object_or_404(Phase.objects.read_by(user), pk=pk)


def _row_csv(row: dict[str, Any], facts: tuple[Fact, ...]) -> dict[str, Any]:
    """The entry of a row, then each declared system fact by key (as the pages show it; empty
    where the submission declared none)."""
    low, high = row.get("rank_interval") or (None, None)
    given = row.get("facts") or {}
    return {
        "rank": row["rank"],
        "rank_low": low,
        "rank_high": high,
        "team": row["team"]["name"],
        "team_slug": row["team"]["slug"],
        "method": row["method_name"],
        "submission_id": row["submission_id"],
        "baseline": row["is_baseline"],
        "submitted_at": row["submitted_at"],
        **{fact.key: fact_cell(fact, given.get(fact.key)) for fact in facts},
    }


def _condition_csv(
    row: dict[str, Any], names: list[str], facts: tuple[Fact, ...]
) -> dict[str, Any]:
    """One ranked row: every column of the board with its interval (``NAME``,
    ``NAME_low``, ``NAME_high``)."""
    flat = _row_csv(row, facts)
    for name in names:
        metric = row["metrics"].get(name) or {}
        flat[name] = metric.get("value")
        flat[f"{name}_low"], flat[f"{name}_high"] = metric.get("ci") or (None, None)
    flat["group"] = row["group"]
    flat["submissions"] = row["submissions"]
    flat["signature"] = row["signature"]
    return flat


def _overview_csv(
    row: dict[str, Any], names: list[str], keys: list[str], facts: tuple[Fact, ...]
) -> dict[str, Any]:
    """One overview row: the means of the board's first two columns (``NAME``), then each
    condition's values (``KEY_NAME``)."""
    flat = _row_csv(row, facts)
    for name in names:
        flat[name] = row["means"].get(name)
    for key in keys:
        values = row["per_condition"].get(key) or {}
        for name in names:
            flat[f"{key}_{name}"] = values.get(name)
    flat["submissions"] = row["submissions"]
    return flat


#: Which board: the overview, or one condition's ranking.
BOARD_CONDITION = OpenApiParameter(
    "condition", str, description="a condition key; without it, the overview"
)


@extend_schema(
    summary="A phase's leaderboard: the overview, or one condition's ranking",
    description="JSON, one page of rows. The same board as CSV, every row: `leaderboard.csv` "
    "beside this path (also `?format=csv` here, which this schema leaves out so that a "
    "generated client reads every answer of this operation as JSON).",
    tags=["leaderboards"],
    parameters=[
        BOARD_CONDITION,
        OpenApiParameter("page", int),
        OpenApiParameter("page_size", int),
        OpenApiParameter("format", exclude=True),
    ],
    responses={(200, "application/json"): s.LeaderboardSerializer},
)
class PhaseLeaderboard(APIView):
    """The stored public board, revalidated by its version (``rankings.caching.respond``);
    each answer (one page of rows, or the CSV) is kept in the cache per stored board and
    address, so a reader of an unchanged board costs two small queries; compressed by
    ``gzip_page`` in ``urls``. JSON, or CSV with ``?format=csv`` (``PhaseLeaderboardCSV``
    below is the CSV's own operation)."""

    permission_classes = [AllowAny]
    renderer_classes = [JSONRenderer, CSVRenderer]

    def get(self, request: Request, pk: int) -> Any:
        phase = _phase(pk, request.user)
        rights = require_results_visible(phase, request.user)
        renderer = request.accepted_renderer

        def make(found: Stored | None) -> HttpResponse:
            if found is None:  # may not see it: refused above
                raise exceptions.NotFound()
            data, headers = self._answer(request, phase, found)
            kind = renderer.media_type
            return HttpResponse(
                renderer.render(data, kind, self.get_renderer_context()),
                content_type=f"{kind}; charset={renderer.charset}" if renderer.charset else kind,
                headers=headers,
            )

        return caching.respond(
            request._request,
            phase,
            make,
            variant=("api", renderer.format, request.build_absolute_uri()),
            # so a reader cannot fill the cache with query strings of their own (a filtered board
            # is not kept)
            keep=set(request.query_params) <= BOARD_QUERY,
            # a token's answer is never for a shared cache
            shareable="HTTP_AUTHORIZATION" not in request.META,
            vary=("Authorization", "Accept"),
            compress=False,
            # read by pages of other sites: the anonymous answer only, without credentials
            cors=True,
            rights=rights,
        )

    def _answer(self, request: Request, phase: Phase, found: Stored) -> tuple[Any, dict[str, str]]:
        """The answer's data and headers, from the stored board ``found``."""
        key = request.query_params.get("condition") or None
        data = _board_data(request, phase, found, key, view=self)
        if data is None:
            raise ApiError(
                "invalid",
                "The request is invalid; see details.",
                details={"condition": [f"This phase has no condition {key!r}."]},
            )
        head, rows = data
        if request.accepted_renderer.format == "csv":
            names = [c["name"] for c in head["metrics"]]
            keys = [c["key"] for c in head["conditions"]]
            facts = stored_facts(head["facts"])
            flat = [
                _condition_csv(r, names, facts) if key else _overview_csv(r, names[:2], keys, facts)
                for r in rows
            ]
            name = f"{phase.challenge.slug}-{phase.slug}-{key or 'overview'}.csv"
            return flat, {"Content-Disposition": f'attachment; filename="{name}"'}
        return {**head, "condition": key, "results": rows}, {}


class NamedFormat(DefaultContentNegotiation):
    """The address names the format (``leaderboard.csv``): its view's one renderer, whatever
    the client's ``Accept`` (a browser's, a script's ``application/json``) says."""

    def select_renderer(
        self, request: Request, renderers: Iterable[BaseRenderer], format_suffix: str | None = None
    ) -> tuple[BaseRenderer, str]:
        renderer = next(iter(renderers))
        return renderer, renderer.media_type


@extend_schema_view(
    get=extend_schema(
        summary="A phase's leaderboard as CSV: every row, not paginated",
        description="The board of `leaderboard/` (the same rights, `condition` and filters), one "
        "header line then one line per ranked row, as a download; an error is JSON, as in "
        "every other operation.",
        tags=["leaderboards"],
        operation_id="phases_leaderboard_csv_retrieve",
        parameters=[
            BOARD_CONDITION,
            OpenApiParameter("page", exclude=True),
            OpenApiParameter("page_size", exclude=True),
        ],
        responses={
            (200, "text/csv"): OpenApiTypes.STR,
            **{(int(code), "application/json"): ErrorSerializer for code in ERROR_CODES},
        },
    )
)
class PhaseLeaderboardCSV(PhaseLeaderboard):
    """The board's CSV as an operation of its own: a generated client reads an operation's
    answers in one content type (``?format=csv`` of ``PhaseLeaderboard`` stays for links).
    Its errors are JSON, like those of an address no route matches (``NotFound``)."""

    renderer_classes = [CSVRenderer]
    content_negotiation_class = NamedFormat

    def finalize_response(self, request: Request, response: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(response, Response) and response.status_code >= 400:
            # the one error shape the schema declares (a CSV error would be a table of one row)
            request.accepted_renderer = JSONRenderer()
            request.accepted_media_type = JSONRenderer.media_type
        return super().finalize_response(request, response, *args, **kwargs)


#: The prefix of a declared system fact's field in an upload, and of a board's filter by one.
FACT_PREFIX = "fact."

#: The query parameters of the API's board.
BOARD_QUERY = frozenset({"condition", "page", "page_size", "format"})


def _board_data(
    request: Request, phase: Phase, found: Stored, key: str | None, *, view: APIView
) -> tuple[dict[str, Any], list[Any]] | None:
    """The stored public board ``found`` of ``phase`` as the API answers it (the overview, or
    condition ``key``'s ranking; None if the phase has no such condition): the fields every
    page of it shares, and the page of rows asked for (every row, for CSV), serialised alone."""
    asked, problems = fact_filters(found.board, request.query_params)
    if problems:
        raise ApiError(
            "invalid", "The request is invalid; see details.",
            details={name: [message] for name, message in problems.items()},
        )  # fmt: skip
    board = filtered(found.board, asked)
    context = {"columns": board.columns}
    if key is None:
        entries: list[Any] = list(board.overview)
        serializer: Any = s.OverviewRowSerializer
    else:
        selected = next((c for c in board.conditions if c.key == key), None)
        if selected is None:
            return None
        entries, serializer = list(selected.rows), s.ConditionRowSerializer
    conditions = list(phase.conditions.order_by("order", "key"))
    head: dict[str, Any] = {
        "phase": dict(s.PhaseRefSerializer(phase).data),
        "primary_metric": board.primary_metric,
        "part": "public" if split_part(phase, "public") else "all",
        "built_at": DateTimeField().to_representation(found.built_at) if found.built_at else None,
        "updating": found.behind,
        "metrics": list(s.ColumnSerializer(board.columns, many=True).data),
        "ladder": board.ladder,
        "detectable_difference": {
            c.key: {"value": c.detectable, "note": c.detectable_note}
            for c in board.conditions
            if key is None or c.key == key
        },
        "conditions": list(s.ConditionSerializer(conditions, many=True).data),
        "withdrawn": [dict(note) for note in board.withdrawn],
        "facts": [dict(f) for f in board.facts],
        "filters": asked,
        # of the whole board (a filter shows fewer rows, the chart stays)
        "fact_charts": [
            p for p in fact_points(found.board) if key is None or p["condition"] == key
        ],
    }
    if request.accepted_renderer.format != "csv":
        paginator = Pagination()
        entries = list(paginator.paginate_queryset(entries, request, view=view) or [])
        assert paginator.page is not None  # PAGE_SIZE is at least 1: every list is paged
        head = {
            "count": paginator.page.paginator.count,
            "next": paginator.get_next_link(),
            "previous": paginator.get_previous_link(),
            **head,
        }
    return head, list(serializer(entries, many=True, context=context).data)


# --- submissions ---------------------------------------------------------------------------


def _results() -> Prefetch:
    """A submission's Results on the active references, as ``active_results``, with their
    references and without the per-dialogue statistics (the detail does not show them)."""
    return Prefetch(
        "results",
        queryset=Result.objects.filter(reference__active=True, current=True)
        .select_related("condition", "reference")
        .defer("dialogues", "ratios", "primary_ratios")
        .order_by("condition__order", "condition__key"),
        to_attr="active_results",
    )


#: What a reader sees of a submission's Results for each ``selectors.score_prefix``: every
#: number, or the public part of the split only (None: no numbers at all).
SHOWN = {"": "all", "public_": "public"}


def _detail_response(request: Request, submission: Submission, code: int = 200) -> Response:
    """A submission as its detail page shows it to this user."""
    submission = (
        Submission.objects.select_related("team", "phase__challenge")
        .prefetch_related(_results(), "files__condition")
        .get(pk=submission.pk)
    )
    prefix = selectors.score_prefix(submission.phase, access(submission.phase, request.user))
    context = {
        "request": request,
        "shown": None if prefix is None else SHOWN[prefix],
        "can_cancel": submission.status == Submission.Status.QUEUED
        and is_member(submission.team, request.user),
    }
    return Response(s.SubmissionSerializer(submission, context=context).data, status=code)


_KEY_CHARACTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.:")


def _idempotency_key(request: Request) -> str:
    """The ``Idempotency-Key`` header (empty: none); 400 when it is not 1-64 letters, digits
    or ``-_.:``."""
    key = request.headers.get("Idempotency-Key", "").strip()
    if key and (len(key) > 64 or not set(key) <= _KEY_CHARACTERS):
        raise ApiError(
            "invalid",
            "The Idempotency-Key header must be 1 to 64 letters, digits or -_.: characters.",
            status_code=400,
        )
    return key


@extend_schema(
    summary="Submit prediction files to a phase",
    description="Multipart form: one file field per condition key (e.g. `tts-verbatim`), plus "
    "`method_name` and optionally `method_description`, `url` and `team`, and a field "
    "`fact.KEY` per system fact the challenge declares (`system_facts` of the challenge: a "
    "required one must be given). A fact missing or of the wrong kind gives 400 (`invalid`, "
    "its message under `error.details` as `fact.KEY`), before anything is stored or charged. "
    "A file the scorer rejects gives 400 with its message per condition key in "
    "`error.details.conditions`; such an upload does not count against the quota.",
    tags=["submissions"],
    request={
        "multipart/form-data": {
            "type": "object",
            "properties": {
                "method_name": {"type": "string", "minLength": 1, "maxLength": 200},
                "method_description": {"type": "string"},
                "url": {"type": "string", "format": "uri", "maxLength": 200},
                "team": {"type": "string"},
            },
            "required": ["method_name"],
            "additionalProperties": {"type": "string", "format": "binary"},
        }
    },
    parameters=[
        OpenApiParameter(
            "Idempotency-Key",
            str,
            OpenApiParameter.HEADER,
            description="the client's key for this upload: sent again with the same key "
            "(after a lost reply), it answers 200 with the stored submission instead of "
            "storing it twice",
        )
    ],
    responses={201: s.SubmissionSerializer, 200: s.SubmissionSerializer},
)
class SubmissionCreate(APIView):
    throttle_classes = SUBMIT_THROTTLES

    def post(self, request: AuthenticatedRequest, pk: int) -> Response:
        phase = _phase(pk)
        form = s.SubmissionCreateSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        if not address_confirmed(request.user):  # before the team: that is what to do first
            raise ApiError("address_unconfirmed", UNCONFIRMED, status_code=403)
        team = submitting_team(request.user, phase, form.validated_data["team"])
        key = _idempotency_key(request)
        earlier = services.replayed(team, phase, key) if key else None
        if earlier is not None:
            # the same upload sent again (a lost reply): the stored one, not a second
            return _detail_response(request, earlier, status.HTTP_200_OK)
        # the serializer above took the body, so it is an object (a list is refused there)
        data = cast(Mapping[str, Any], request.data)
        given = {
            name.removeprefix(FACT_PREFIX): data.get(name)
            for name in data
            if name.startswith(FACT_PREFIX) and name not in request.FILES
        }
        try:
            submission = services.submit(
                team=team,
                phase=phase,
                user=request.user,
                facts=given,
                files=dict(request.FILES.items()),
                method_name=form.validated_data["method_name"],
                method_description=form.validated_data["method_description"],
                url=form.validated_data["url"],
                idempotency_key=key,
                client_address=client_address(request),
            )
        except services.SubmissionRejected as exc:
            details: dict[str, Any] = {
                "conditions": exc.messages,
                "kinds": exc.kinds,
                "valid": sorted(exc.valid),
            }
            if exc.submission is not None:
                details["submission_id"] = exc.submission.pk
            raise ApiError(
                "submission_rejected",
                "The upload was rejected and does not count against your quota; see details.",
                details=details,
            ) from exc
        except services.FactsRefused as exc:
            raise ApiError(
                "invalid",
                "What the upload says about its system was refused; nothing was stored or "
                "charged. See details.",
                details={f"{FACT_PREFIX}{key}": [message] for key, message in exc.messages.items()},
            ) from exc
        except services.TooManyRejected as exc:  # the team's or the address's refusals
            raise exceptions.Throttled(wait=exc.retry_after, detail=str(exc)) from exc
        except services.QuotaExceeded as exc:
            raise ApiError("quota_exceeded", str(exc), status_code=403) from exc
        except services.AddressNotConfirmed as exc:
            raise ApiError("address_unconfirmed", str(exc), status_code=403) from exc
        except services.SubmissionNotAllowed as exc:
            raise ApiError("submission_not_allowed", str(exc), status_code=403) from exc
        try:
            return _detail_response(request, submission, status.HTTP_201_CREATED)
        except DatabaseError:
            # The upload is committed: its answer is 201 whatever happens to the connection
            # now. Once more on a new connection, then the fields known without the database.
            connection.close()
            try:
                return _detail_response(request, submission, status.HTTP_201_CREATED)
            except DatabaseError:
                connection.close()
                body = {"id": submission.pk, "status": submission.status}
                return Response(body, status=status.HTTP_201_CREATED)


@extend_schema(
    summary="Your teams' submissions, newest first",
    tags=["submissions"],
    parameters=[
        OpenApiParameter("phase", int, description="only this phase's"),
        OpenApiParameter("status", str, enum=[c.value for c in Submission.Status]),
    ],
)
class SubmissionList(generics.ListAPIView):
    serializer_class = s.SubmissionSummarySerializer

    def get_queryset(self) -> QuerySet[Submission]:
        rows = selectors.own_submissions(self.request.user).order_by("-created_at", "-pk")
        phase = self.request.query_params.get("phase", "")
        if phase:
            if not (phase.isascii() and phase.isdigit()):
                raise ApiError(
                    "invalid",
                    "The request is invalid; see details.",
                    details={"phase": ["A phase id is a whole number."]},
                )
            phase_id = row_id(phase)
            rows = rows.filter(phase_id=phase_id) if phase_id is not None else rows.none()
        wanted = self.request.query_params.get("status", "")
        if wanted:
            rows = rows.filter(status=wanted)
        return rows


@extend_schema(
    summary="Your teams' history in a phase: each scored run's primary metric, best so far",
    description="Per condition, every scored run of your teams oldest first, with its primary "
    "metric and 95% interval, the team's best so far and whether the run set it: what the "
    "chart of your submissions page draws, on the same part of the test set (none while the "
    "results are hidden).",
    tags=["submissions"],
    responses={200: s.HistorySerializer},
)
class PhaseHistory(APIView):
    def get(self, request: AuthenticatedRequest, pk: int) -> Response:
        phase = _phase(pk, request.user)
        found = history.series(request.user, phase)
        return Response(s.HistorySerializer({"phase": phase.pk, **found}).data)


@extend_schema(
    summary="One submission: status, attempts, error, and per condition its metrics",
    tags=["submissions"],
)
class SubmissionDetail(generics.RetrieveAPIView):
    serializer_class = s.SubmissionSerializer

    def retrieve(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        # Only rows this user may see are searched: another team's id is simply not found.
        submission = get_object_or_404(selectors.visible_submissions(request.user), pk=kwargs["pk"])
        return _detail_response(request, submission)

    @extend_schema(
        summary="Edit your team's run: its method, or whether the public board shows it",
        description="Any of the method's name, description or URL, under the upload's limits; "
        "the scores stay. The run is then dated as edited (`edited_at`), the change is in the "
        "organisers' audit log, and the leaderboards show the new name. `shown_on_public`: "
        "where the phase lets teams choose (`team_chooses_public_run`), true makes this scored "
        "run the one that represents your team on the public board, false shows your best run "
        "again (403 `not_choosable` where the phase does not let teams choose, with the "
        "reason). Another team's run is not found; the organisers edit theirs in the admin.",
        request=s.SubmissionEditSerializer(partial=True),
        responses={200: s.SubmissionSerializer},
    )
    def patch(self, request: AuthenticatedRequest, *args: Any, **kwargs: Any) -> Response:
        submission = get_object_or_404(selectors.own_submissions(request.user), pk=kwargs["pk"])
        form = s.SubmissionEditSerializer(data=request.data, partial=True)
        form.is_valid(raise_exception=True)
        given = {k: v for k, v in form.validated_data.items() if k in request.data}
        chosen = given.pop("shown_on_public", None)
        if chosen is not None:
            try:
                services.choose_public(submission, request.user, chosen)
            except services.SelectionError as exc:
                raise ApiError("not_choosable", str(exc), status_code=403) from exc
        if given:
            try:
                services.edit_method(submission, request.user, **given)
            except services.EditError as exc:
                raise ApiError("not_editable", str(exc), status_code=403) from exc
        return _detail_response(request, submission)


@extend_schema(
    summary="Cancel a queued submission (it stops counting against the quota)",
    tags=["submissions"],
    request=None,
    responses={200: s.SubmissionSerializer},
)
class SubmissionCancel(APIView):
    def post(self, request: AuthenticatedRequest, pk: int) -> Response:
        submission = get_object_or_404(selectors.own_submissions(request.user), pk=pk)
        try:
            services.cancel(submission, request.user)
        except services.SubmissionNotAllowed as exc:
            raise ApiError("not_cancellable", str(exc), status_code=409) from exc
        return _detail_response(request, submission)


# --- teams ---------------------------------------------------------------------------------


@extend_schema(summary="The teams you belong to, with their registrations", tags=["teams"])
class TeamsMine(generics.ListAPIView):
    serializer_class = s.TeamSerializer

    def get_queryset(self) -> QuerySet[Team]:
        user = cast(User, self.request.user)  # signed in: the API's default IsAuthenticated
        return teams_of(user).prefetch_related(
            Prefetch("memberships", queryset=Membership.objects.filter(user=user)),
            "participations__challenge",
        )


def _team_response(request: Request, team: Team, code: int = 200) -> Response:
    """A team as ``teams/mine/`` lists it, with the user's role."""
    found = Team.objects.prefetch_related("memberships", "participations__challenge").get(
        pk=team.pk
    )
    context = {"request": request}
    return Response(s.TeamSerializer(found, context=context).data, status=code)


def _require_confirmed(request: Request) -> None:
    """Creating and registering a team need a confirmed address (``teams.services``); said
    with its own code before anything else, as for an upload."""
    if not address_confirmed(request.user):
        raise ApiError("address_unconfirmed", UNCONFIRMED, status_code=403)


def _own_team(request: Request, slug: str) -> Team:
    """One of the user's teams; any other (or none) is not found, as on the team pages."""
    team = teams.member_team(request.user, slug=slug)
    if team is None:
        raise ApiError("not_found", f"You are not a member of a team {slug!r}.", status_code=404)
    return team


@extend_schema(
    summary="Create a team (you become its owner)",
    description="The name follows the rules of the team pages: refused (400, `invalid`, the "
    "reason under `error.details.name`) when it reads the same as another team's name. Needs "
    "a confirmed e-mail address (403 `address_unconfirmed`).",
    tags=["teams"],
    request={"application/json": s.TeamCreateSerializer},
    responses={201: s.TeamSerializer},
)
class TeamCreate(APIView):
    token_scope = Scope.TEAM

    def post(self, request: AuthenticatedRequest) -> Response:
        form = s.TeamCreateSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        _require_confirmed(request)
        try:
            team = teams.create_team(name=form.validated_data["name"], user=request.user)
        except teams.TeamError as exc:
            raise ApiError(
                "invalid", "The request is invalid; see details.", details={"name": [str(exc)]}
            ) from exc
        return _team_response(request, team, status.HTTP_201_CREATED)


@extend_schema(
    summary="Join a team with its invite code",
    description="The code a member shared (`GET /teams/{slug}/invite/`). Refused (409, "
    "`join_refused`, the reason in `error.message`) when the code is not this team's, when "
    "the team is full for a challenge it is registered for, or when you are already in "
    "another approved team of such a challenge. Joining a team you are in changes nothing.",
    tags=["teams"],
    request={"application/json": s.TeamJoinSerializer},
    responses={200: s.TeamSerializer, 409: ErrorSerializer},
)
class TeamJoin(APIView):
    token_scope = Scope.TEAM

    def post(self, request: AuthenticatedRequest, slug: str) -> Response:
        form = s.TeamJoinSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        try:
            team = teams.join_team(
                invite_code=form.validated_data["invite_code"], user=request.user, slug=slug
            )
        except teams.TeamError as exc:
            raise ApiError("join_refused", str(exc), status_code=409) from exc
        return _team_response(request, team)


@extend_schema(
    summary="Leave one of your teams",
    description="Refused (409, `leave_refused`) for its last owner while others remain: make "
    "another member an owner first. A team you are not in is not found (404).",
    tags=["teams"],
    request=None,
    responses={204: None, 409: ErrorSerializer},
)
class TeamLeave(APIView):
    token_scope = Scope.TEAM

    def post(self, request: AuthenticatedRequest, slug: str) -> Response:
        team = _own_team(request, slug)
        try:
            teams.leave_team(team=team, user=request.user)
        except teams.TeamError as exc:
            raise ApiError("leave_refused", str(exc), status_code=409) from exc
        return Response(status=status.HTTP_204_NO_CONTENT)


@extend_schema(tags=["teams"], responses={200: s.InviteSerializer})
class TeamInvite(APIView):
    """The team page's "Invite teammates": its members see the code and link; an owner may
    replace them (the old ones stop working at once). The code lets anyone join: showing it
    needs the "team" scope too."""

    token_scope = Scope.TEAM

    def _answer(self, request: Request, team: Team) -> Response:
        link = request.build_absolute_uri(reverse("teams:join_link", args=[team.invite_code]))
        body = {"team": team, "invite_code": team.invite_code, "invite_url": link}
        return Response(s.InviteSerializer(body).data)

    @extend_schema(
        summary="Your team's invite code and link, to share",
        description="Members only; anyone with the code can join (`POST /teams/{slug}/join/`).",
    )
    def get(self, request: Request, slug: str) -> Response:
        return self._answer(request, _own_team(request, slug))

    @extend_schema(
        summary="A new invite code for your team (owners only)",
        description="The old code and link stop working at once. A member who is not an owner "
        "is refused (403, `permission_denied`).",
        request=None,
    )
    def post(self, request: AuthenticatedRequest, slug: str) -> Response:
        team = _own_team(request, slug)
        try:
            teams.regenerate_invite_code(team=team, user=request.user)
        except teams.TeamError as exc:
            raise ApiError("permission_denied", str(exc), status_code=403) from exc
        return self._answer(request, team)


def _registration(team: Team, challenge: Challenge, state: str | None) -> dict[str, Any]:
    return {"team": team, "challenge": challenge.slug, "status": state or "unregistered"}


@extend_schema(
    summary="Register one of your teams for a challenge",
    description="As the challenge page's Register: approved at once, or pending an "
    "organiser's approval, as the challenge says. Refused (409, `already_registered`) when "
    "the team is registered already (`error.details.status` says how), and (409, "
    "`registration_refused`, the reason in `error.message`) when the team is larger than the "
    "challenge allows, its name reads the same as that of a registered team, or a member is "
    "already in another approved team of the challenge. Needs a confirmed e-mail address "
    "(403 `address_unconfirmed`).",
    tags=["teams"],
    request={"application/json": s.RegisterSerializer},
    responses={201: s.RegistrationSerializer, 409: ErrorSerializer},
)
class ChallengeRegister(APIView):
    token_scope = Scope.TEAM

    def post(self, request: AuthenticatedRequest, slug: str) -> Response:
        challenge = get_object_or_404(Challenge, slug=slug)
        form = s.RegisterSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        _require_confirmed(request)
        team = _own_team(request, form.validated_data["team"])
        existing = Participation.objects.filter(team=team, challenge=challenge).first()
        if existing is not None:
            raise ApiError(
                "already_registered",
                f"{team.name} is already registered for {challenge.title} "
                f"({existing.get_status_display()}).",
                status_code=409,
                details={"status": existing.status},
            )
        try:
            created = teams.register(team=team, challenge=challenge, user=request.user)
        except teams.TeamError as exc:
            raise ApiError("registration_refused", str(exc), status_code=409) from exc
        body = _registration(team, challenge, created.status)
        return Response(s.RegistrationSerializer(body).data, status=status.HTTP_201_CREATED)


@extend_schema(
    summary="Your teams' registrations for a challenge",
    description="Each of your teams with the state of its registration for the challenge "
    "(as the challenge page shows them to you).",
    tags=["teams"],
    responses={200: s.RegistrationSerializer(many=True)},
)
class ChallengeRegistrations(APIView):
    def get(self, request: Request, slug: str) -> Response:
        challenge = get_object_or_404(Challenge, slug=slug)
        rows = [
            _registration(team, challenge, state)
            for team, state in teams.registrations(request.user, challenge)
        ]
        return Response(s.RegistrationSerializer(rows, many=True).data)


# --- you ------------------------------------------------------------------------------------


@extend_schema(
    summary="Everything the site holds about you, as one JSON document",
    description="The profile page's download: your account, teams, the submissions you made "
    "(their files' names and SHA-256 hashes, and their results as far as you may see them: a "
    "hidden phase's scores are left out as on every page), your tokens' names, what is kept "
    "about the mail sent to you (no log of messages is kept) and your actions in the audit "
    "log. Never a secret (password hash, token keys, invite codes) nor another person's data.",
    tags=["account"],
    responses={200: OpenApiTypes.OBJECT},
)
class MeExport(APIView):
    renderer_classes = [JSONRenderer]

    def get(self, request: AuthenticatedRequest) -> Response:
        response = Response(personal_data(request.user))
        response["Cache-Control"] = "no-store"
        return response


@extend_schema(exclude=True)
@extend_schema(
    summary="Where to start: the schema, its docs and the main collections",
    tags=["index"],
    responses={200: OpenApiTypes.OBJECT},
)
class Index(APIView):
    """``/api/`` and ``/api/v1/``: links to the schema, Swagger UI, Redoc and the collections,
    and the command-line client's first steps."""

    permission_classes = [AllowAny]

    def get(self, request: Request) -> Response:
        def link(name: str) -> str:
            return request.build_absolute_uri(reverse(f"api:{name}"))

        return Response(
            {
                "name": "Trackboard API",
                "version": "1",
                "schema": link("schema"),
                "docs": {"swagger": link("docs"), "redoc": link("redoc")},
                "collections": {
                    "challenges": link("challenges"),
                    "submissions": link("submissions"),
                    "teams": link("teams-mine"),
                },
                "authentication": "Authorization: Bearer TOKEN (a token from your profile "
                "page); reading challenges and public leaderboards needs none",
                "cli": "the participant package trackboard (installed from the project's "
                "repository until it is on the package index), then: trackboard --help "
                "(TRACKBOARD_URL and TRACKBOARD_TOKEN in the environment, or trackboard login)",
            }
        )


#: Redoc's bundle as the sidecar package ships it, and the one remote asset it names (its
#: sidebar's logo): replaced by an empty image, so the page loads nothing from elsewhere.
REDOC_BUNDLE = "drf_spectacular_sidecar/redoc/bundles/redoc.standalone.js"
REDOC_REMOTE_LOGO = b"https://cdn.redoc.ly/redoc/logo-mini.svg"
EMPTY_IMAGE = b"data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg'/%3E"


@extend_schema(exclude=True)
class RedocBundle(APIView):
    """The Redoc script without its remote logo (the page's policy allows images from the site
    and data: URLs only, and a blocked one is a console error)."""

    permission_classes = [AllowAny]

    def get(self, request: Request) -> HttpResponse:
        path = finders.find(REDOC_BUNDLE)
        if not isinstance(path, str):
            raise ApiError("not_found", "Not found.", status_code=404)
        with open(path, "rb") as handle:
            script = handle.read().replace(REDOC_REMOTE_LOGO, EMPTY_IMAGE)
        response = HttpResponse(script, content_type="text/javascript; charset=utf-8")
        response["Cache-Control"] = "public, max-age=86400"
        return response


@extend_schema(exclude=True)
class NotFound(APIView):
    """Any other path under /api/v1/: a 404 in the API's error shape."""

    permission_classes = [AllowAny]

    def http_method_not_allowed(self, request: HttpRequest, *args: Any, **kwargs: Any) -> Response:
        raise ApiError("not_found", "Not found.", status_code=404)

    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        raise ApiError("not_found", "Not found.", status_code=404)
