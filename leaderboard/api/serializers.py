"""Serializers: how rows and service results look in JSON. No rules live here: who may see
what is decided by the views through the same services and selectors as the pages.

Every task has the same shape: metrics are named by the task (``scoring``'s
``Task.describe()``) and each comes as ``{"value", "ci": [low, high]}`` (``ci`` null for a
metric the task reports without an interval), in the task's order.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from django.urls import reverse
from drf_spectacular.utils import PolymorphicProxySerializer, extend_schema_field
from rest_framework import serializers

from leaderboard.challenges.announcements import Announcement
from leaderboard.challenges.models import Challenge, Condition, Phase
from leaderboard.challenges.pages import render
from leaderboard.submissions import selectors
from leaderboard.submissions.models import Result, Submission, SubmissionFile, method_url
from leaderboard.submissions.services.withdrawal import of_submission
from leaderboard.teams.models import Participation, Team
from scoring import Task

#: What a Result's numbers cover: the whole reference, or the public part of the split only.
PARTS = ("all", "public")


# --- metrics -------------------------------------------------------------------------------


class MetricValueSerializer(serializers.Serializer):
    value = serializers.FloatField(
        allow_null=True, help_text="on a 0-100 scale; null when undefined on this reference"
    )
    ci = serializers.ListField(
        child=serializers.FloatField(allow_null=True),
        min_length=2,
        max_length=2,
        allow_null=True,
        help_text="[low, high] bootstrap interval over dialogues (bounds null when undefined); "
        "null for a metric the task reports without an interval",
    )


def metric_values(
    task: Task, values: Mapping[str, Any], intervals: Mapping[str, Any]
) -> dict[str, dict[str, Any]]:
    """``{name: {"value", "ci"}}`` for every metric in ``values``, in the task's order (a
    name the task does not describe comes last). ``ci`` is null for a metric the task reports
    without an interval, ``[null, null]`` for one whose interval is undefined here."""
    specs = {m.name: m for m in task.metrics}
    names = [m.name for m in task.metrics if m.name in values]
    names += [name for name in values if name not in specs]
    out = {}
    for name in names:
        spec = specs.get(name)
        found = intervals.get(name)
        ci: list[float | None] | None = None
        if found and (spec is None or spec.interval):
            ci = list(found[:2])
        elif spec is not None and spec.interval:
            ci = [None, None]
        out[name] = {"value": values.get(name), "ci": ci}
    return out


class MetricSpecSerializer(serializers.Serializer):
    name = serializers.CharField()
    label = serializers.CharField()  # type: ignore[assignment]  # a declared field, not Field.label: the metaclass pops it
    direction = serializers.ChoiceField(
        choices=["higher", "lower"], help_text="which way is better"
    )
    interval = serializers.BooleanField(help_text="whether it is reported with an interval")
    optional = serializers.BooleanField(
        help_text="reported only when the reference enables it (e.g. seen/unseen JGA)"
    )
    description = serializers.CharField(allow_blank=True)


# --- challenges ----------------------------------------------------------------------------


class ConditionSerializer(serializers.ModelSerializer):
    sample = serializers.SerializerMethodField(
        help_text="URL of the condition's sample submission (empty states for every turn)"
    )

    class Meta:
        model = Condition
        fields = ["key", "label", "order", "sample"]

    def get_sample(self, condition: Condition) -> str:
        path = reverse("api:sample", args=[condition.phase_id, condition.key])
        request = self.context.get("request")
        return request.build_absolute_uri(path) if request is not None else path


class PhaseSummarySerializer(serializers.ModelSerializer):
    state = serializers.ChoiceField(
        choices=["upcoming", "open", "closed", "revealed"], read_only=True
    )

    class Meta:
        model = Phase
        fields = ["id", "slug", "name", "state", "opens_at", "closes_at"]


class PhaseSerializer(PhaseSummarySerializer):
    results_public = serializers.BooleanField(read_only=True)
    has_split = serializers.BooleanField(read_only=True)
    conditions = ConditionSerializer(many=True, read_only=True)

    class Meta(PhaseSummarySerializer.Meta):
        fields = [
            *PhaseSummarySerializer.Meta.fields,
            "daily_quota",
            "total_quota",
            "allow_partial",
            "results_visibility",
            "results_public",
            "revealed",
            "has_split",
            "split_fraction",
            "max_final_selections",
            "team_chooses_public_run",
            "post_challenge",
            "conditions",
        ]


class FileSpecSerializer(serializers.Serializer):
    name = serializers.CharField()
    label = serializers.CharField()  # type: ignore[assignment]  # a declared field, not Field.label: the metaclass pops it
    required = serializers.BooleanField()  # type: ignore[assignment]  # a declared field, not Field.required: the metaclass pops it
    public = serializers.BooleanField(help_text="participants may download it")
    description = serializers.CharField(allow_blank=True)


class ResamplingSerializer(serializers.Serializer):
    n_boot = serializers.IntegerField(help_text="bootstrap resamples")
    level = serializers.FloatField(help_text="confidence level of the intervals, e.g. 0.95")
    seed = serializers.IntegerField()


class ScoringSerializer(serializers.Serializer):
    """What a participant needs to check a file locally the way the server does, and to
    reproduce its numbers with ``python -m scoring score``."""

    task = serializers.CharField(help_text="the scoring task (``scoring.get_task``)")
    label = serializers.CharField()  # type: ignore[assignment]  # a declared field, not Field.label: the metaclass pops it
    options = serializers.DictField(
        child=serializers.CharField(), help_text="the task's options as this challenge sets them"
    )
    formats = serializers.ListField(
        child=serializers.CharField(), help_text="accepted prediction formats"
    )
    metrics = MetricSpecSerializer(many=True, help_text="every metric of the task, in order")
    primary = serializers.CharField(help_text="the ranked metric")
    tiebreak = serializers.CharField(help_text="the metric that breaks ties of the primary one")
    reference_files = FileSpecSerializer(
        many=True, help_text="files a reference has besides the gold"
    )
    resampling = ResamplingSerializer()


def scoring_block(challenge: Challenge) -> dict[str, Any]:
    task = challenge.scoring_task()
    resampling = challenge.resampling()
    described = task.describe()
    return {
        "task": task.name,
        "label": task.label,
        "options": challenge.task_options(),
        "formats": list(task.formats),
        "metrics": described["metrics"],
        "primary": challenge.primary,
        "tiebreak": challenge.tiebreak,
        "reference_files": described["reference_files"],
        "resampling": {
            "n_boot": resampling.n_boot,
            "level": resampling.level,
            "seed": resampling.seed,
        },
    }


class ChallengeSummarySerializer(serializers.ModelSerializer):
    phases = PhaseSummarySerializer(many=True, read_only=True)
    primary_metric = serializers.SerializerMethodField()

    class Meta:
        model = Challenge
        fields = ["slug", "title", "task", "primary_metric", "registration", "phases"]

    def get_primary_metric(self, challenge: Challenge) -> str:
        """The ranked metric (the task's own unless the challenge names another)."""
        return challenge.primary


class FactSerializer(serializers.Serializer):
    """A declared system fact (``challenges.facts``): what each upload says as ``fact.KEY``."""

    key = serializers.CharField()
    label = serializers.CharField()  # type: ignore[assignment]  # a declared field, not Field.label: the metaclass pops it
    kind = serializers.ChoiceField(choices=["text", "choice", "number", "flag"])
    required = serializers.BooleanField()  # type: ignore[assignment]  # a declared field, not Field.required: the metaclass pops it
    choices = serializers.ListField(child=serializers.CharField(), help_text="of a choice")
    unit = serializers.CharField(allow_blank=True, help_text="of a number")
    help = serializers.CharField(allow_blank=True)


class ChallengeSerializer(ChallengeSummarySerializer):
    phases = PhaseSerializer(many=True, read_only=True)
    scoring = serializers.SerializerMethodField()
    system_facts = serializers.SerializerMethodField()

    class Meta(ChallengeSummarySerializer.Meta):
        # the organisers' pages, as the Markdown they wrote
        fields = [
            *ChallengeSummarySerializer.Meta.fields,
            "description",
            "data",
            "evaluation",
            "rules",
            "terms",
            "scoring",
            "system_facts",
        ]

    @extend_schema_field(FactSerializer(many=True))
    def get_system_facts(self, challenge: Challenge) -> list[dict[str, Any]]:
        """What each upload says about its system (``fact.KEY`` fields)."""
        return [fact.data() for fact in challenge.facts()]

    @extend_schema_field(ScoringSerializer)
    def get_scoring(self, challenge: Challenge) -> dict[str, Any]:
        return ScoringSerializer(scoring_block(challenge)).data


class AnnouncementSerializer(serializers.ModelSerializer):
    body = serializers.CharField(help_text="the organisers' text, in Markdown")
    body_html = serializers.SerializerMethodField(
        help_text="the text rendered as the challenge page shows it (sanitised HTML)"
    )
    mailed = serializers.BooleanField(
        help_text="it was also mailed to the members of every registered team"
    )
    url = serializers.SerializerMethodField(help_text="where it is on the challenge's page")

    class Meta:
        model = Announcement
        fields = ["id", "title", "body", "body_html", "posted_at", "mailed", "url"]

    def get_body_html(self, announcement: Announcement) -> str:
        return render(announcement.body)

    def get_url(self, announcement: Announcement) -> str:
        request = self.context.get("request")
        path = announcement.path()
        return request.build_absolute_uri(path) if request is not None else path


class PhaseRefSerializer(serializers.ModelSerializer):
    challenge: serializers.SlugRelatedField[Challenge] = serializers.SlugRelatedField(
        slug_field="slug", read_only=True
    )

    class Meta:
        model = Phase
        fields = ["id", "slug", "name", "challenge"]


# --- teams ---------------------------------------------------------------------------------


class TeamRefSerializer(serializers.ModelSerializer):
    class Meta:
        model = Team
        fields = ["id", "slug", "name"]


class ParticipationSerializer(serializers.ModelSerializer):
    challenge: serializers.SlugRelatedField[Challenge] = serializers.SlugRelatedField(
        slug_field="slug", read_only=True
    )

    class Meta:
        model = Participation
        fields = ["challenge", "status"]


class TeamSerializer(serializers.ModelSerializer):
    participations = ParticipationSerializer(many=True, read_only=True)
    role = serializers.SerializerMethodField()

    class Meta:
        model = Team
        fields = ["id", "slug", "name", "role", "created", "participations"]

    def get_role(self, team: Team) -> str:
        user = self.context["request"].user
        membership = next((m for m in team.memberships.all() if m.user_id == user.pk), None)
        return membership.role if membership else ""


class TeamCreateSerializer(serializers.Serializer):
    """A new team: its name (the rules of ``teams.names`` apply, as on the page)."""

    name = serializers.CharField(max_length=100)


class TeamJoinSerializer(serializers.Serializer):
    invite_code = serializers.CharField(
        max_length=64, help_text="The code a member of the team shared (on its page)."
    )


class InviteSerializer(serializers.Serializer):
    """What a member shares so that others can join: the code, and the page's link."""

    team = TeamRefSerializer()
    invite_code = serializers.CharField()
    invite_url = serializers.URLField()


class RegisterSerializer(serializers.Serializer):
    team = serializers.CharField(help_text="Slug of one of your teams.")


class RegistrationSerializer(serializers.Serializer):
    """One of the user's teams and its registration for a challenge."""

    team = TeamRefSerializer()
    challenge = serializers.CharField(help_text="the challenge's slug")
    status = serializers.ChoiceField(
        choices=[*Participation.Status.values, "unregistered"],
        help_text="pending: waiting for an organiser; approved: may submit; rejected: "
        "declined; unregistered: not registered",
    )


# --- submissions ---------------------------------------------------------------------------


class MethodSerializer(serializers.Serializer):
    """What a team says about its method, at upload and when it edits it afterwards (the
    web form's limits: ``submissions.forms.MethodForm``)."""

    method_name = serializers.CharField(max_length=200)
    method_description = serializers.CharField(required=False, allow_blank=True, default="")
    url = serializers.URLField(
        required=False,
        allow_blank=True,
        default="",
        max_length=200,
        validators=[method_url],
        help_text="the method's paper or code, http(s)",
    )


class SubmissionEditSerializer(MethodSerializer):
    """What a team may change of its run afterwards: its method, and, where the phase lets
    teams choose (``Phase.team_chooses_public_run``), whether it is the run shown on the public
    board."""

    shown_on_public = serializers.BooleanField(
        required=False,
        help_text="true: this run represents your team on the public board (replacing an "
        "earlier choice); false: the board shows your team's best run again. Only where the "
        "phase lets teams choose (`team_chooses_public_run`).",
    )


class SubmissionCreateSerializer(MethodSerializer):
    """The form fields of an upload; the files are one field per condition key."""

    team = serializers.CharField(
        required=False,
        allow_blank=True,
        default="",
        help_text="Slug of the submitting team; needed only when you are in several approved "
        "teams of the challenge.",
    )


class SubmissionFileSerializer(serializers.ModelSerializer):
    condition = serializers.CharField(source="condition.key")

    class Meta:
        model = SubmissionFile
        fields = ["condition", "original_name", "sha256", "size"]


class SubmissionSummarySerializer(serializers.ModelSerializer):
    phase = PhaseRefSerializer(read_only=True)
    team = TeamRefSerializer(read_only=True)
    finished = serializers.SerializerMethodField(
        help_text="true once the status will not change again (scored, failed, cancelled or "
        "invalid): a script waiting for the scores stops here"
    )
    # The first name of ``finished``, kept for the scripts that read it; it was easily taken
    # for the team's choice of a submission for the final ranking, which it is not.
    final = serializers.SerializerMethodField(
        help_text="deprecated: the same as finished. Not the team's choice of a submission "
        "for the final ranking"
    )

    class Meta:
        model = Submission
        fields = [
            "id",
            "phase",
            "team",
            "method_name",
            "status",
            "finished",
            "final",
            "attempts",
            "error",
            "created_at",
            "scored_at",
        ]

    def get_finished(self, submission: Submission) -> bool:
        return selectors.is_final(submission)

    def get_final(self, submission: Submission) -> bool:
        return selectors.is_final(submission)


class BreakdownSerializer(serializers.Serializer):
    format = serializers.CharField(allow_blank=True, help_text="the prediction's format")
    counts = serializers.DictField(
        child=serializers.IntegerField(), help_text="what was scored (dialogues, turns, ...)"
    )
    details = serializers.DictField(help_text="the task's own figures (per slot, per domain ...)")
    warnings = serializers.ListField(child=serializers.CharField())


class ResultSerializer(serializers.Serializer):
    """One condition's Result, as far as the reader may see it (built by ``result_data``)."""

    condition = serializers.CharField()
    part = serializers.ChoiceField(
        choices=PARTS,
        help_text="all: the whole reference; public: the public part of the split only, "
        "while the rest is hidden",
    )
    metrics = serializers.DictField(
        child=MetricValueSerializer(), help_text="every metric of the Result, in the task's order"
    )
    signature = serializers.CharField(help_text="equal signatures mean comparable numbers")
    reference_sha256 = serializers.CharField()
    created_at = serializers.DateTimeField()
    parts = serializers.DictField(
        child=serializers.DictField(child=MetricValueSerializer()),
        required=False,
        help_text="with a split, to whoever may see everything: the metrics of each part "
        "(public, private)",
    )
    breakdown = BreakdownSerializer(
        required=False, help_text="the whole reference's breakdown; only with part: all"
    )


def result_data(result: Result, task: Task, part: str, *, split: bool = False) -> dict[str, Any]:
    """A Result for ``ResultSerializer``: ``part`` ``all`` (every number; per part too with
    ``split``) or ``public`` (the public part's metrics only, nothing of the rest)."""
    common = {
        "condition": result.condition.key,
        "part": part,
        "signature": result.signature,
        "reference_sha256": result.reference.sha256,
        "created_at": result.created_at,
    }
    if part == "public":
        return {**common, "metrics": metric_values(task, *result.part("public"))}
    data = {**common, "metrics": metric_values(task, *result.part(None))}
    if split:
        data["parts"] = {p: metric_values(task, *result.part(p)) for p in ("public", "private")}
    breakdown = result.breakdown or {}
    data["breakdown"] = {
        "format": breakdown.get("format") or "",
        "counts": breakdown.get("counts") or {},
        "details": breakdown.get("details") or {},
        "warnings": breakdown.get("warnings") or [],
    }
    return data


class _WithdrawalSerializer(serializers.Serializer):
    whole_team = serializers.BooleanField(help_text="the team was disqualified from the phase")
    reason = serializers.CharField()
    at = serializers.DateTimeField()


class HistoryRunSerializer(serializers.Serializer):
    submission = serializers.IntegerField(help_text="the run's submission id")
    team = TeamRefSerializer(read_only=True)
    method_name = serializers.CharField()
    submitted_at = serializers.DateTimeField()
    value = serializers.FloatField(
        allow_null=True, help_text="the primary metric, 0-100; null when undefined"
    )
    low = serializers.FloatField(allow_null=True, help_text="its 95% interval's lower end")
    high = serializers.FloatField(allow_null=True, help_text="its 95% interval's upper end")
    best = serializers.FloatField(
        allow_null=True, help_text="the team's best value up to and with this run"
    )
    record = serializers.BooleanField(help_text="this run set the best so far")


class HistoryConditionSerializer(serializers.Serializer):
    key = serializers.CharField()
    label = serializers.CharField()  # type: ignore[assignment]  # a declared field, not Field.label: the metaclass pops it
    runs = HistoryRunSerializer(many=True, help_text="oldest first")


class HistoryMetricSerializer(serializers.Serializer):
    name = serializers.CharField()
    label = serializers.CharField()  # type: ignore[assignment]  # a declared field, not Field.label: the metaclass pops it
    direction = serializers.ChoiceField(choices=("higher", "lower"), help_text="which is better")


class HistorySerializer(serializers.Serializer):
    """A team's own history in a phase (``rankings.history.series``)."""

    phase = serializers.IntegerField()
    metric = HistoryMetricSerializer()
    part = serializers.ChoiceField(
        choices=PARTS,
        allow_null=True,
        help_text="all: the whole reference; public: the public part of the split only; null: "
        "results are hidden, and conditions is empty",
    )
    conditions = HistoryConditionSerializer(many=True, help_text="in the phase's order")


class SubmissionSerializer(SubmissionSummarySerializer):
    """Context: ``shown`` is ``all``, ``public`` or None (no numbers: ``results`` empty)."""

    files = SubmissionFileSerializer(many=True, read_only=True)
    results_visible = serializers.SerializerMethodField()
    metrics = serializers.SerializerMethodField()
    ci_level = serializers.SerializerMethodField()
    results = serializers.SerializerMethodField()
    can_cancel = serializers.SerializerMethodField()
    withdrawn = serializers.SerializerMethodField()
    verdicts = serializers.DictField(
        child=serializers.DictField(child=serializers.CharField()),
        read_only=True,
        help_text="of an invalid upload, per condition key: the file's name and what was wrong "
        "in a word (kind: incomplete, mismatched, unreadable, missing, too large, unknown "
        "condition; valid for a file that passed, unchecked for one not read); the messages "
        "are in error",
    )

    class Meta(SubmissionSummarySerializer.Meta):
        fields = [
            *SubmissionSummarySerializer.Meta.fields,
            "method_description",
            "url",
            "edited_at",
            "shown_on_public",
            "facts",
            "verdicts",
            "files",
            "results_visible",
            "can_cancel",
            "withdrawn",
            "metrics",
            "ci_level",
            "results",
        ]

    @extend_schema_field(_WithdrawalSerializer(allow_null=True))
    def get_withdrawn(self, submission: Submission) -> dict[str, Any] | None:
        """Null, or why the organisers took it off the boards (the run alone, or every run of
        its team in the phase); it keeps its scores and its files."""
        found = of_submission(submission)
        if found is None:
            return None
        return {"whole_team": found.submission_id is None, "reason": found.reason, "at": found.at}

    def get_results_visible(self, submission: Submission) -> bool:
        return self.context.get("shown") is not None

    def get_can_cancel(self, submission: Submission) -> bool:
        return bool(self.context.get("can_cancel"))

    @extend_schema_field(MetricSpecSerializer(many=True))
    def get_metrics(self, submission: Submission) -> list[dict[str, Any]]:
        """The task's metrics (name, label, direction, interval), in order."""
        specs = submission.phase.challenge.metric_specs()
        return list(MetricSpecSerializer(specs, many=True).data)

    def get_ci_level(self, submission: Submission) -> float:
        """The confidence level of every interval, e.g. 0.95."""
        return submission.phase.challenge.resampling().level

    @extend_schema_field(serializers.DictField(child=ResultSerializer()))
    def get_results(self, submission: Submission) -> dict[str, Any]:
        """Per condition key, once scored: empty while the phase's results are hidden from
        this reader; ``part: "public"`` figures only while just the public part may be seen."""
        shown = self.context.get("shown")
        if shown is None:
            return {}
        task = submission.phase.challenge.scoring_task()
        split = submission.phase.has_split
        results: Iterable[Result] = getattr(submission, "active_results", None) or []
        return {
            r.condition.key: ResultSerializer(result_data(r, task, shown, split=split)).data
            for r in results
        }


# --- leaderboards ----------------------------------------------------------------------------


class _TeamNameSerializer(serializers.Serializer):
    slug = serializers.CharField()
    name = serializers.CharField()


class ColumnSerializer(serializers.Serializer):
    name = serializers.CharField()
    label = serializers.CharField()  # type: ignore[assignment]  # a declared field, not Field.label: the metaclass pops it
    direction = serializers.ChoiceField(
        choices=["higher", "lower"], help_text="which way is better"
    )
    primary = serializers.BooleanField(help_text="the ranked metric")


class _RowBase(serializers.Serializer):
    rank = serializers.IntegerField()
    rank_interval = serializers.SerializerMethodField(
        help_text="[low, high]: the 95% interval of the rank over resamples of the dialogues "
        "(docs/scoring.md); null when the row has no per-dialogue statistics to resample"
    )
    team = serializers.SerializerMethodField()
    submission_id = serializers.IntegerField()
    method_name = serializers.CharField()
    is_baseline = serializers.BooleanField()
    submitted_at = serializers.DateTimeField()
    facts = serializers.DictField(
        help_text="what the submission declared about its system: declared fact key -> value "
        "(the board's `facts`)"
    )
    submissions = serializers.IntegerField(
        allow_null=True,
        help_text="the scored submissions behind the row: the entrant's submissions with a "
        "score on this condition (the overview: on any condition)",
    )

    @extend_schema_field(_TeamNameSerializer)
    def get_team(self, row: Any) -> dict[str, str]:
        return {"slug": row.team_slug, "name": row.team_name}

    @extend_schema_field(
        serializers.ListField(
            child=serializers.IntegerField(), min_length=2, max_length=2, allow_null=True
        )
    )
    def get_rank_interval(self, row: Any) -> list[int] | None:
        if row.rank_low is None or row.rank_high is None:
            return None
        return [row.rank_low, row.rank_high]


def _names(context: Mapping[str, Any]) -> list[str]:
    return [c.name for c in context.get("columns", ())]


class ConditionRowSerializer(_RowBase):
    signature = serializers.CharField()
    group = serializers.CharField(
        allow_blank=True,
        help_text="ranks this entry is statistically tied with, e.g. 1-2 (empty: none)",
    )
    metrics = serializers.SerializerMethodField(
        help_text="every column of the board (the response's `metrics`): value and interval"
    )

    @extend_schema_field(serializers.DictField(child=MetricValueSerializer()))
    def get_metrics(self, row: Any) -> dict[str, dict[str, Any]]:
        return {
            name: {"value": value, "ci": [low, high]}
            for name, (value, low, high) in zip(_names(self.context), row.cells, strict=False)
        }


class OverviewRowSerializer(_RowBase):
    per_condition = serializers.SerializerMethodField(
        help_text="per condition key, this submission's values of the board's first two metrics"
    )
    means = serializers.SerializerMethodField(
        help_text="means over the conditions of the board's first two metrics"
    )

    @extend_schema_field(
        serializers.DictField(
            child=serializers.DictField(child=serializers.FloatField(allow_null=True))
        )
    )
    def get_per_condition(self, row: Any) -> dict[str, dict[str, float | None]]:
        names = _names(self.context)[:2]
        return {
            key: dict(zip(names, values, strict=False)) for key, values in row.per_condition.items()
        }

    @extend_schema_field(serializers.DictField(child=serializers.FloatField(allow_null=True)))
    def get_means(self, row: Any) -> dict[str, float | None]:
        return dict(zip(_names(self.context)[:2], row.means, strict=False))


class DetectableSerializer(serializers.Serializer):
    value = serializers.FloatField(allow_null=True)
    note = serializers.CharField(allow_blank=True)


class WithdrawnSerializer(serializers.Serializer):
    team = serializers.CharField(help_text="the team as the board names it")
    method = serializers.CharField(help_text="the run's method name; empty: every run of the team")
    reason = serializers.CharField()


class LeaderboardSerializer(serializers.Serializer):
    """Documentation of the leaderboard page of results (built by the view)."""

    count = serializers.IntegerField()
    next = serializers.URLField(allow_null=True)
    previous = serializers.URLField(allow_null=True)
    phase = PhaseRefSerializer()
    primary_metric = serializers.CharField()
    part = serializers.ChoiceField(
        choices=PARTS, help_text="public: ranked on the public part of the phase's split"
    )
    built_at = serializers.DateTimeField(
        allow_null=True,
        help_text="when the board's worker built this board; null: not built yet (no rows)",
    )
    updating = serializers.BooleanField(
        help_text="the phase has changed since this board was built: a newer one is on its "
        "way (within seconds)"
    )
    metrics = ColumnSerializer(
        many=True, help_text="the board's columns: the rows' `metrics`, in order"
    )
    ladder = serializers.BooleanField(
        help_text="the phase uses the Ladder: each row's primary metric is the score the "
        "Ladder shows (no interval)"
    )
    detectable_difference = serializers.DictField(
        child=DetectableSerializer(),
        help_text="per condition key: the smallest difference in the primary metric (points) "
        "the paired test finds with 80% power at a two-sided 0.05 on that condition's "
        "dialogues, or null with a note saying why",
    )
    conditions = ConditionSerializer(many=True)
    withdrawn = WithdrawnSerializer(
        many=True,
        help_text="runs and teams the organisers took off the board with a public reason",
    )
    facts = FactSerializer(
        many=True, help_text="the challenge's declared system facts: the rows' `facts`"
    )
    filters = serializers.DictField(
        child=serializers.CharField(),
        help_text="the `fact.KEY` filters applied: only the rows whose submission declared "
        "these values, each with its rank on the whole board (a filter does not rank again)",
    )
    fact_charts = serializers.ListField(
        child=serializers.DictField(),
        help_text="per numeric fact and condition: the primary metric (y, with its interval "
        "low-high) of each row that declared the fact, against its value (x): "
        "{fact, condition, metric, points: [{submission_id, rank, team, method, x, y, low, high}]}",
    )
    condition = serializers.CharField(
        allow_null=True, help_text="the condition ranked here; null for the overview"
    )
    results = serializers.SerializerMethodField(
        help_text="the overview's rows, or the condition's (with `?condition=`)"
    )

    @extend_schema_field(
        PolymorphicProxySerializer(
            component_name="LeaderboardRow",
            serializers=[ConditionRowSerializer, OverviewRowSerializer],
            resource_type_field_name=None,
            many=True,
        )
    )
    def get_results(self, page: Any) -> list[dict[str, Any]]:
        return list(page["results"])
