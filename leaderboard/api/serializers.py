"""Serializers: how rows and service results look in JSON. No rules live here: who may see
what is decided by the views through the same services and selectors as the pages."""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from leaderboard.challenges.models import Challenge, Condition, Phase
from leaderboard.submissions import selectors
from leaderboard.submissions.models import Result, Submission, SubmissionFile
from leaderboard.teams.models import Participation, Team

#: A [low, high] confidence interval (null bounds when a metric is undefined).
_INTERVAL = {"type": "array", "items": {"type": "number", "nullable": True}}


# --- challenges ----------------------------------------------------------------------------


class ConditionSerializer(serializers.ModelSerializer):
    class Meta:
        model = Condition
        fields = ["key", "label", "order"]


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
            "conditions",
        ]


class ScoringOptionsSerializer(serializers.Serializer):
    task = serializers.CharField()
    profile = serializers.CharField()
    missing = serializers.CharField()


class ChallengeSummarySerializer(serializers.ModelSerializer):
    phases = PhaseSummarySerializer(many=True, read_only=True)

    class Meta:
        model = Challenge
        fields = ["slug", "title", "task", "primary_metric", "registration", "phases"]


class ChallengeSerializer(ChallengeSummarySerializer):
    phases = PhaseSerializer(many=True, read_only=True)
    scoring = serializers.SerializerMethodField()

    class Meta(ChallengeSummarySerializer.Meta):
        fields = [*ChallengeSummarySerializer.Meta.fields, "description", "rules", "scoring"]

    @extend_schema_field(ScoringOptionsSerializer)
    def get_scoring(self, challenge: Challenge) -> dict[str, str]:
        # What a participant needs to check a file locally the way the server does.
        options = challenge.scoring_settings()
        data = {"task": challenge.task, "profile": options.profile, "missing": options.missing}
        return ScoringOptionsSerializer(data).data


class PhaseRefSerializer(serializers.ModelSerializer):
    challenge = serializers.SlugRelatedField(slug_field="slug", read_only=True)

    class Meta:
        model = Phase
        fields = ["id", "slug", "name", "challenge"]


# --- teams ---------------------------------------------------------------------------------


class TeamRefSerializer(serializers.ModelSerializer):
    class Meta:
        model = Team
        fields = ["id", "slug", "name"]


class ParticipationSerializer(serializers.ModelSerializer):
    challenge = serializers.SlugRelatedField(slug_field="slug", read_only=True)

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


# --- submissions ---------------------------------------------------------------------------


class SubmissionCreateSerializer(serializers.Serializer):
    """The form fields of an upload; the files are one field per condition key."""

    method_name = serializers.CharField(max_length=200)
    method_description = serializers.CharField(required=False, allow_blank=True, default="")
    url = serializers.URLField(required=False, allow_blank=True, default="", max_length=200)
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
    final = serializers.SerializerMethodField()

    class Meta:
        model = Submission
        fields = [
            "id",
            "phase",
            "team",
            "method_name",
            "status",
            "final",
            "attempts",
            "error",
            "created_at",
            "scored_at",
        ]

    def get_final(self, submission: Submission) -> bool:
        return selectors.is_final(submission)


class ResultSerializer(serializers.ModelSerializer):
    condition = serializers.CharField(source="condition.key")
    jga_ci = serializers.SerializerMethodField()
    ser_ci = serializers.SerializerMethodField()
    deletions = serializers.IntegerField(source="dele")
    substitutions = serializers.IntegerField(source="sub")
    insertions = serializers.IntegerField(source="ins")
    reference_sha256 = serializers.CharField(source="reference.sha256")
    details = serializers.SerializerMethodField()

    class Meta:
        model = Result
        fields = [
            "condition",
            "jga",
            "jga_ci",
            "ser",
            "ser_ci",
            "n_ref",
            "substitutions",
            "deletions",
            "insertions",
            "slot_f1",
            "signature",
            "reference_sha256",
            "created_at",
            "details",
        ]

    @extend_schema_field(_INTERVAL)
    def get_jga_ci(self, result: Result) -> list[float | None]:
        return [result.jga_low, result.jga_high]

    @extend_schema_field(_INTERVAL)
    def get_ser_ci(self, result: Result) -> list[float | None]:
        return [result.ser_low, result.ser_high]

    @extend_schema_field(OpenApiTypes.OBJECT)
    def get_details(self, result: Result) -> dict[str, Any]:
        """Slot precision/recall, per-domain and per-slot figures, warnings."""
        return selectors.breakdown_tables(result)


class SubmissionSerializer(SubmissionSummarySerializer):
    files = SubmissionFileSerializer(many=True, read_only=True)
    results_visible = serializers.SerializerMethodField()
    results = serializers.SerializerMethodField()
    can_cancel = serializers.SerializerMethodField()

    class Meta(SubmissionSummarySerializer.Meta):
        fields = [
            *SubmissionSummarySerializer.Meta.fields,
            "method_description",
            "url",
            "files",
            "results_visible",
            "can_cancel",
            "results",
        ]

    def get_results_visible(self, submission: Submission) -> bool:
        return bool(self.context.get("show_scores") or self.context.get("public_only"))

    def get_can_cancel(self, submission: Submission) -> bool:
        return bool(self.context.get("can_cancel"))

    @extend_schema_field(serializers.DictField(child=ResultSerializer()))
    def get_results(self, submission: Submission) -> dict[str, Any]:
        """Per condition key, once scored (empty while the phase's results are hidden; only
        ``part: "public"`` figures while a split phase is not revealed)."""
        results = getattr(submission, "active_results", None) or []
        if self.context.get("public_only"):
            return {
                r.condition.key: {
                    "condition": r.condition.key,
                    "part": "public",
                    "jga": r.public_jga,
                    "jga_ci": [r.public_jga_low, r.public_jga_high],
                    "ser": r.public_ser,
                    "ser_ci": [r.public_ser_low, r.public_ser_high],
                }
                for r in results
            }
        if not self.context.get("show_scores"):
            return {}
        return {r.condition.key: ResultSerializer(r).data for r in results}


# --- leaderboards ----------------------------------------------------------------------------


class _TeamNameSerializer(serializers.Serializer):
    slug = serializers.CharField()
    name = serializers.CharField()


class _MetricsSerializer(serializers.Serializer):
    jga = serializers.FloatField(allow_null=True)
    ser = serializers.FloatField(allow_null=True)


class _RowBase(serializers.Serializer):
    rank = serializers.IntegerField()
    team = serializers.SerializerMethodField()
    submission_id = serializers.IntegerField()
    method_name = serializers.CharField()
    is_baseline = serializers.BooleanField()
    submitted_at = serializers.DateTimeField()
    submissions = serializers.IntegerField(help_text="the team's counted submissions")
    jga = serializers.FloatField(allow_null=True)
    ser = serializers.FloatField(allow_null=True)

    @extend_schema_field(_TeamNameSerializer)
    def get_team(self, row: Any) -> dict[str, str]:
        return {"slug": row.team_slug, "name": row.team_name}


def _names(context: dict[str, Any]) -> list[str]:
    return [c.name for c in context.get("columns", ())]


class ConditionRowSerializer(_RowBase):
    jga_ci = serializers.SerializerMethodField()
    ser_ci = serializers.SerializerMethodField()
    signature = serializers.CharField()
    metrics = serializers.SerializerMethodField(
        help_text="every metric of the board (the phase's `metrics`): value and interval"
    )

    @extend_schema_field(serializers.DictField(child=serializers.DictField()))
    def get_metrics(self, row: Any) -> dict[str, dict[str, Any]]:
        return {
            name: {"value": value, "ci": [low, high]}
            for name, (value, low, high) in zip(_names(self.context), row.cells, strict=False)
        }

    @extend_schema_field(_INTERVAL)
    def get_jga_ci(self, row: Any) -> list[float | None]:
        return [row.jga_low, row.jga_high]

    @extend_schema_field(_INTERVAL)
    def get_ser_ci(self, row: Any) -> list[float | None]:
        return [row.ser_low, row.ser_high]


class OverviewRowSerializer(_RowBase):
    per_condition = serializers.SerializerMethodField()
    means = serializers.SerializerMethodField(
        help_text="means over the conditions of the board's first two metrics"
    )

    @extend_schema_field(serializers.DictField(child=_MetricsSerializer()))
    def get_per_condition(self, row: Any) -> dict[str, dict[str, float | None]]:
        names = _names(self.context)[:2] or ["jga", "ser"]
        return {
            key: dict(zip(names, values, strict=False)) for key, values in row.per_condition.items()
        }

    @extend_schema_field(serializers.DictField(child=serializers.FloatField(allow_null=True)))
    def get_means(self, row: Any) -> dict[str, float | None]:
        return dict(zip(_names(self.context)[:2], row.means, strict=False))


class LeaderboardSerializer(serializers.Serializer):
    """Documentation of the leaderboard page of results (built by the view)."""

    count = serializers.IntegerField()
    next = serializers.URLField(allow_null=True)
    previous = serializers.URLField(allow_null=True)
    phase = PhaseRefSerializer()
    primary_metric = serializers.CharField()
    metrics = serializers.ListField(
        child=serializers.DictField(),
        help_text="the board's metrics (name, label, direction: higher or lower is better)",
    )
    conditions = ConditionSerializer(many=True)
    condition = serializers.CharField(
        allow_null=True, help_text="the condition ranked here; null for the overview"
    )
    results = serializers.ListField(child=serializers.DictField())
