"""Challenges, their phases, audio conditions and hidden references."""

from __future__ import annotations

import re
from typing import Any

from allauth.mfa.models import Authenticator
from django.conf import settings
from django.contrib.auth.models import AnonymousUser, User
from django.core.exceptions import ValidationError
from django.db import models, transaction
from django.db.models import Case, Exists, F, OuterRef, Q, Value, When
from django.dispatch import Signal
from django.utils import timezone

from leaderboard.challenges.announcements import Announcement as Announcement  # registered
from leaderboard.challenges.audit import AuditEntry as AuditEntry  # registered with the app
from leaderboard.challenges.facts import Fact, declared
from leaderboard.challenges.wording import Note, phase_notes
from leaderboard.storage import phase_file_upload_to, private_storage, reference_upload_to
from scoring import NAMES, Resampling, Task, get_task

#: Sent once a change to what the boards of some phases show has committed
#: (``Phase.changed``), with ``phase_ids``: the rankings app, above this one, builds them.
board_changed = Signal()


#: What ``Phase.save`` raises for a change its life no longer allows (``Phase.refusals``).
class PhaseLocked(ValueError):
    """A change to a phase that is refused; ``problems`` holds the reason by field name."""

    def __init__(self, problems: dict[str, str]) -> None:
        self.problems = problems
        super().__init__("; ".join(f"{k}: {v}" for k, v in problems.items()))


#: ``scorer_options`` keys that set the bootstrap (the others are the task's options).
RESAMPLING_KEYS = ("n_boot", "level", "seed")

#: An origin a board may be framed by: scheme, host and an optional port, nothing more.
ORIGIN = re.compile(r"https?://[a-z0-9]([a-z0-9.-]*[a-z0-9])?(:[0-9]{1,5})?", re.IGNORECASE)


def origins(text: str) -> list[str]:
    """The origins of ``text``, one a line (blank lines skipped)."""
    return [line.strip() for line in text.splitlines() if line.strip()]


def validate_origins(text: str) -> None:
    """Each line an origin (``https://workshop.example.org``, a port allowed): no path, no
    wildcard, nothing a Content-Security-Policy would read otherwise."""
    for n, origin in enumerate(origins(text), 1):
        if not ORIGIN.fullmatch(origin):
            raise ValidationError(
                f"Line {n} ({origin[:80]!r}) is not an origin: write the scheme and the host, "
                "with a port if any, e.g. https://workshop.example.org, one a line."
            )


class Challenge(models.Model):
    class Registration(models.TextChoices):
        AUTO = "auto", "automatic"
        APPROVAL = "approval", "organiser approval"

    slug = models.SlugField(unique=True)
    title = models.CharField(max_length=200)
    #: The challenge's pages, in Markdown (rendered sanitised, ``challenges.pages``): the
    #: overview, the data, the evaluation, the rules and the terms of participation.
    description = models.TextField(blank=True, verbose_name="overview", help_text="Markdown")
    data = models.TextField(blank=True, help_text="Markdown: what the data are, where to get them")
    evaluation = models.TextField(
        blank=True, help_text="Markdown: how submissions are evaluated (shown beside the metrics)"
    )
    rules = models.TextField(blank=True, help_text="Markdown")
    terms = models.TextField(blank=True, help_text="Markdown: the terms of participation")
    #: the scoring task (``scoring.tasks``), which decides formats, metrics and pages.
    task = models.CharField(
        max_length=32, choices=[(name, get_task(name).label) for name in NAMES], default=NAMES[0]
    )
    #: the task's options (e.g. profile, missing, match) and the bootstrap's n_boot, level and
    #: seed; what is left out takes the scorer's default.
    scorer_options = models.JSONField(default=dict, blank=True)
    #: the ranked metric; empty: the task's own primary metric.
    primary_metric = models.CharField(max_length=32, blank=True, default="")
    registration = models.CharField(
        max_length=16, choices=Registration.choices, default=Registration.AUTO
    )
    max_team_size = models.PositiveIntegerField(
        null=True, blank=True, help_text="most members a registered team may have; empty: no limit"
    )
    organisers = models.ManyToManyField(
        settings.AUTH_USER_MODEL, blank=True, related_name="organised_challenges"
    )
    #: the sites that may show the boards' embeddable view in a frame; empty: none may.
    embed_origins = models.TextField(
        blank=True,
        validators=[validate_origins],
        verbose_name="sites that may embed the board",
        help_text="one origin a line, e.g. https://workshop.example.org; the embeddable "
        "public board (…/leaderboard/embed/) may be framed by these sites only",
    )
    #: what every submission says about its system (``challenges.facts``): a list of
    #: ``{key, label, kind, required, choices, unit, help}``
    system_facts = models.JSONField(
        default=list,
        blank=True,
        verbose_name="declared system facts",
        help_text='fields a submission must or may carry, e.g. [{"key": "asr", "label": "ASR '
        'system", "kind": "choice", "choices": ["provided ASR", "Whisper", "other"], '
        '"required": true}]; kinds: text, choice, number (with a "unit"), flag',
    )
    created = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-created"]

    def __str__(self) -> str:
        return self.title

    @staticmethod
    def organised_by(user: User, challenge: str = "pk") -> Exists:
        """The one definition of organising a challenge (being staff is not enough): an
        ``EXISTS`` over the organisers of the challenge ``OuterRef(challenge)`` names (``"pk"``
        in a query of challenges, ``"challenge"`` in one of phases), true when ``user`` (signed
        in) is one. ``is_organised_by`` asks it alone, ``PhaseQuerySet.asked_by`` in a phase's
        own query."""
        return Exists(
            Challenge.organisers.through.objects.filter(
                challenge_id=OuterRef(challenge), user_id=user.pk
            )
        )

    def is_organised_by(self, user: User | AnonymousUser) -> bool:
        """Whether ``user`` organises this challenge (``organised_by``; an anonymous user
        organises nothing, and is not asked about)."""
        return user.is_authenticated and (
            Challenge.objects.filter(Challenge.organised_by(user), pk=self.pk).exists()
        )

    def frame_ancestors(self) -> str:
        """The CSP ``frame-ancestors`` source list of the embeddable board."""
        return " ".join(origins(self.embed_origins)) or "'none'"

    def facts(self) -> tuple[Fact, ...]:
        """The declared system facts (``system_facts``), in their order."""
        return declared(self.system_facts)

    def scoring_task(self) -> Task:
        """The ``scoring.Task`` of this challenge."""
        return get_task(self.task)

    def task_options(self) -> dict[str, str]:
        """The task's options from ``scorer_options``, defaults filled in and checked."""
        return self.scoring_task().check_options(self.task_options_given())

    def task_options_given(self) -> dict[str, str]:
        """The task's options as ``scorer_options`` gives them (a mapping), unchecked."""
        names = {o.name for o in self.scoring_task().options}
        return {k: str(v) for k, v in (self.scorer_options or {}).items() if k in names}

    def resampling(self) -> Resampling:
        """The bootstrap settings (n_boot, level, seed) every Result is computed with."""
        given = {k: v for k, v in (self.scorer_options or {}).items() if k in RESAMPLING_KEYS}
        return Resampling(**given)

    def metric_specs(self) -> list[dict[str, Any]]:
        """The task's metrics as ``Task.describe()`` lists them (name, label, direction ...)."""
        metrics: list[dict[str, Any]] = self.scoring_task().describe()["metrics"]
        return metrics

    @property
    def primary(self) -> str:
        """The ranked metric: ``primary_metric`` when the task has it, else the task's own."""
        task = self.scoring_task()
        names = {m.name for m in task.metrics}
        return self.primary_metric if self.primary_metric in names else task.primary

    @property
    def tiebreak(self) -> str:
        """The metric that breaks ties of the primary one: the task's tie-breaker, or the
        task's primary metric when the challenge ranks by the tie-breaker."""
        task = self.scoring_task()
        return task.primary if self.primary == task.tiebreak else task.tiebreak


#: The kinds of authenticator that are a second factor (``allauth.mfa``); recovery codes are
#: not: they are the way back in after a lost phone, not a factor of their own.
SECOND_FACTORS = (Authenticator.Type.TOTP, Authenticator.Type.WEBAUTHN)


def has_second_factor(user: User | AnonymousUser) -> bool:
    """Whether ``user`` (signed in) has an authenticator app or a security key: the one
    definition (``challenges.factors`` guards the organisers' doors with it,
    ``visibility.access`` the hidden numbers)."""
    return user.is_authenticated and (
        Authenticator.objects.filter(user_id=user.pk, type__in=SECOND_FACTORS).exists()
    )


class PhaseQuerySet(models.QuerySet["Phase"]):
    def read_by(self, user: User | AnonymousUser | None = None) -> PhaseQuerySet:
        """Each phase with its challenge, as a page or the API shows it; with ``user``, whether
        they organise it (``asked_by``: ``visibility.access`` then asks nothing more)."""
        phases = self.select_related("challenge")
        return phases if user is None else phases.asked_by(user)

    def asked_by(self, user: User | AnonymousUser) -> PhaseQuerySet:
        """Each phase with whether ``user`` organises its challenge, answered by the phase's
        own query (``Challenge.organised_by``) for ``Phase.is_organised_by``, with the user it
        was asked for; an anonymous user organises nothing, and adds nothing to the query."""
        if not user.is_authenticated:
            return self
        return self.annotate(
            organiser_asked_for=Value(user.pk),
            organised_by_asker=Challenge.organised_by(user, "challenge"),
        )


class Phase(models.Model):
    class Visibility(models.TextChoices):
        PUBLIC = "public", "public now"
        HIDDEN = "hidden", "hidden until reveal"

    challenge = models.ForeignKey(Challenge, on_delete=models.CASCADE, related_name="phases")
    name = models.CharField(max_length=100)
    slug = models.SlugField()
    order = models.PositiveIntegerField(default=0)
    opens_at = models.DateTimeField()
    closes_at = models.DateTimeField()
    daily_quota = models.PositiveIntegerField(null=True, blank=True, help_text="empty: no limit")
    total_quota = models.PositiveIntegerField(null=True, blank=True, help_text="empty: no limit")
    allow_partial = models.BooleanField(
        default=False, help_text="accept submissions that cover only some conditions"
    )
    results_visibility = models.CharField(
        max_length=16, choices=Visibility.choices, default=Visibility.PUBLIC
    )
    split_fraction = models.FloatField(
        default=1.0, help_text="share of dialogues on the public leaderboard"
    )
    split_seed = models.IntegerField(default=0)
    max_final_selections = models.PositiveIntegerField(default=1)
    revealed = models.BooleanField(default=False)
    show_own_public_score = models.BooleanField(
        default=False,
        help_text="while results are hidden, a team sees its own score on the public split",
    )
    ladder = models.BooleanField(
        default=False,
        help_text="the public board shows each team's score by the parameter-free Ladder (Blum "
        "and Hardt, 2015): it changes only when a new submission beats the shown one by more "
        "than the standard error of their paired difference; needs a split (split_fraction "
        "below 1); the private board is unaffected",
    )
    team_chooses_public_run = models.BooleanField(
        default=False,
        help_text="a team may choose which of its scored runs represents it on the public "
        "board (a team that chose none is shown by its best run); not with the Ladder; the "
        "private board is unaffected",
    )
    #: A phase opened after another was revealed, for late submissions
    #: (``services.open_post_challenge``): its runs are ranked here, marked post-challenge,
    #: never on the revealed phase's boards or snapshots.
    post_challenge = models.BooleanField(default=False, editable=False)
    #: Counts the changes to anything the phase's leaderboard is built from (``changed``);
    #: the stored board records the version it was built from, so whoever reads it knows
    #: whether a newer one is on its way.
    board_version = models.PositiveBigIntegerField(default=0, editable=False)
    #: Whether the phase's close has been recorded (``record_close``, the one rule: its
    #: ``closes_at`` has passed, or it was revealed). Beat's ``close_phases`` records a close
    #: when it happens and ``save`` when the dates are saved, each moving ``board_version``:
    #: what follows from the close (the private board, ``rankings.builds.kinds``) reads this,
    #: never the clock. Uploads (``is_open``, ``state``) stay on the dates.
    closed = models.BooleanField(default=False, editable=False)

    objects = PhaseQuerySet.as_manager()
    #: whether the user the query was asked for organises the challenge, where it was
    #: (``PhaseQuerySet.asked_by``)
    organised_by_asker: bool

    class Meta:
        ordering = ["challenge", "order", "opens_at"]
        constraints = [
            models.UniqueConstraint(fields=["challenge", "slug"], name="phase_unique_slug"),
            models.CheckConstraint(condition=Q(closes_at__gt=F("opens_at")), name="phase_dates"),
        ]

    def __str__(self) -> str:
        return f"{self.challenge.slug} / {self.name}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        # The phase's life is one-way, whoever saves it (admin, command, shell): see
        # ``refusals``.
        if not self._state.adding and self.pk is not None:
            stored = Phase.objects.filter(pk=self.pk).first()
            problems = self.refusals(stored) if stored is not None else {}
            if problems:
                raise PhaseLocked(problems)
        # ``board_version`` only moves through ``changed``, ``closed`` only through
        # ``record_close``: saving a phase loaded earlier must not write back older values.
        if not self._state.adding and kwargs.get("update_fields") is None:
            kwargs["update_fields"] = [
                f.name
                for f in self._meta.concrete_fields
                if not f.primary_key and f.name not in ("board_version", "closed")
            ]
        with transaction.atomic():
            super().save(*args, **kwargs)
            # The dates saved may have closed the phase (created closed, the close moved
            # earlier) or re-opened it (the close moved later): recorded as beat records one.
            Phase.record_close(self.pk)
            self.closed = Phase.objects.values_list("closed", flat=True).get(pk=self.pk)

    def is_organised_by(self, user: User | AnonymousUser) -> bool:
        """Whether ``user`` organises the phase's challenge: the answer its own query already
        has when it was asked for ``user`` (``PhaseQuerySet.asked_by``), else
        ``Challenge.is_organised_by``; the same ``Challenge.organised_by`` either way."""
        if user.is_authenticated and getattr(self, "organiser_asked_for", None) == user.pk:
            return bool(self.organised_by_asker)
        return self.challenge.is_organised_by(user)

    @staticmethod
    def has_closed(now: Any) -> Q:
        """The one rule of the recorded close (``closed``): the phase's ``closes_at`` has
        passed at ``now``, or it was revealed (a revealed phase never re-opens)."""
        return Q(revealed=True) | Q(closes_at__lte=now)

    @classmethod
    def record_close(cls, pk: int, now: Any = None) -> bool:
        """Bring the phase's ``closed`` in line with ``has_closed`` at ``now`` (a conditional
        UPDATE) and, when it flips, move its ``board_version`` (``changed``) in the same
        transaction, so the boards that follow from the close are built because the data
        changed. Returns whether it flipped; run again, it changes nothing."""
        rule = cls.has_closed(now or timezone.now())
        flips = (rule & Q(closed=False)) | (~rule & Q(closed=True))
        with transaction.atomic():
            moved = cls.objects.filter(flips, pk=pk).update(
                closed=Case(When(rule, then=Value(True)), default=Value(False))
            )
            if moved:
                cls.changed(pk)
        return bool(moved)

    @classmethod
    def changed(cls, *phase_ids: int) -> None:
        """Something the leaderboards of these phases show has changed: the one invalidation
        seam. Call it once, in the transaction of the change: it increments each phase's
        ``board_version`` there, and once the transaction commits, ``board_changed`` asks the
        board's worker to build the new boards (``rankings.boards``)."""
        ids = tuple(phase_ids)
        if not ids:
            return
        cls.objects.filter(pk__in=ids).update(board_version=F("board_version") + 1)
        transaction.on_commit(lambda: board_changed.send(cls, phase_ids=ids), robust=True)

    def is_open(self, now: Any = None) -> bool:
        """Whether uploads are accepted: between the dates, and never once revealed."""
        now = now or timezone.now()
        return not self.revealed and self.opens_at <= now < self.closes_at

    def results_shown(self) -> bool:
        """Whether a number of this phase's results has reached someone other than its
        organisers: a submission is scored while its team or the readers could see a
        score (the results are public, the phase was revealed, or a team sees its own
        public part)."""
        seen_by_teams = (
            self.revealed
            or self.results_visibility == self.Visibility.PUBLIC
            or (self.show_own_public_score and self.has_split)
        )
        return seen_by_teams and self._has_scored()

    def _has_scored(self) -> bool:
        # "scored": ``Submission.Status.SCORED`` of the submissions app, above this one
        return bool(self.submissions.filter(status="scored").exists())

    def refusals(self, stored: Phase) -> dict[str, str]:
        """What this unsaved version of the phase changes that its life no longer allows,
        by field name, compared with ``stored`` (the row as it is): empty when nothing is.

        - Once revealed, a phase stays revealed and closed: its dates are fixed (late
          submissions go to a post-challenge phase, ``services.open_post_challenge``).
        - The split (fraction and seed) is fixed once results have been shown
          (``results_shown``): a new split would show a team its score on the dialogues
          that moved between the parts.
        - Results visibility is fixed once the phase has scored submissions: publishing
          hidden results is the reveal's job, and hiding published ones would not
          unpublish them.
        - Whether teams choose their public run is fixed once revealed: the published boards
          were built under the rule the challenge page showed.
        """
        problems: dict[str, str] = {}
        if stored.revealed:
            if not self.revealed:
                problems["revealed"] = "a revealed phase stays revealed; its snapshots are kept"
            for name in ("opens_at", "closes_at"):
                if getattr(self, name) != getattr(stored, name):
                    problems[name] = (
                        f"{stored.name} was revealed: its dates are fixed and it cannot "
                        "re-open. Open a post-challenge phase for late submissions."
                    )
            if self.team_chooses_public_run != stored.team_chooses_public_run:
                problems["team_chooses_public_run"] = (
                    f"{stored.name} was revealed: whether teams choose their public run is "
                    "fixed with the boards published under it."
                )
        if stored.results_shown():
            for name in ("split_fraction", "split_seed"):
                if getattr(self, name) != getattr(stored, name):
                    problems[name] = (
                        "the split is locked once results of the phase have been shown: a new "
                        "split would tell a team its score on the dialogues that changed part."
                    )
        if self.results_visibility != stored.results_visibility and stored._has_scored():
            problems["results_visibility"] = (
                "results visibility is locked once the phase has scored submissions; "
                "publish hidden results with the reveal instead."
            )
        return problems

    @property
    def state(self) -> str:
        """``upcoming``, ``open``, ``closed`` or ``revealed`` now (dates and the revealed flag).

        A phase is revealed once an organiser published its private leaderboard; uploads are
        accepted only while it is ``open`` (``is_open``)."""
        if self.revealed:
            return "revealed"
        now = timezone.now()
        if now < self.opens_at:
            return "upcoming"
        return "open" if now < self.closes_at else "closed"

    @property
    def notes(self) -> list[Note]:
        """The remarks the pages print after the phase's state (``wording.phase_notes``)."""
        return phase_notes(self)

    @property
    def has_split(self) -> bool:
        """Whether the reference is split into a public and a private part (fraction < 1)."""
        return self.split_fraction < 1.0

    @property
    def has_private_board(self) -> bool:
        """Whether a private leaderboard, built from each team's final selections, differs from
        the live one: the results are hidden until the reveal, or the reference is split. Only
        then do teams choose final submissions."""
        return self.has_split or self.results_visibility == self.Visibility.HIDDEN

    @property
    def public_run_chosen(self) -> bool:
        """Whether a team's chosen run (``Submission.shown_on_public``) represents it on the
        public board: the setting is on and the Ladder does not decide what it shows."""
        return self.team_chooses_public_run and not self.uses_ladder

    @property
    def uses_ladder(self) -> bool:
        """Whether the public board is the Ladder's (``ladder``, on a phase with a split)."""
        return self.ladder and self.has_split

    @property
    def results_public(self) -> bool:
        return self.results_visibility == self.Visibility.PUBLIC or self.revealed


class Condition(models.Model):
    phase = models.ForeignKey(Phase, on_delete=models.CASCADE, related_name="conditions")
    key = models.SlugField(max_length=64, help_text="e.g. tts-verbatim")
    label = models.CharField(max_length=100)
    order = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["phase", "order", "key"]
        constraints = [
            models.UniqueConstraint(fields=["phase", "key"], name="condition_unique_key"),
        ]

    def __str__(self) -> str:
        return self.label or self.key

    def active_reference(self) -> Reference | None:
        return self.references.filter(active=True).first()


class Reference(models.Model):
    """A hidden gold file. Versioned: a new upload deactivates, never deletes, the old one."""

    condition = models.ForeignKey(Condition, on_delete=models.CASCADE, related_name="references")
    file = models.FileField(storage=private_storage, upload_to=reference_upload_to)
    sha256 = models.CharField(max_length=64)
    summary = models.JSONField(default=dict, blank=True)
    active = models.BooleanField(default=True)
    uploaded_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["condition", "-uploaded_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["condition"],
                condition=Q(active=True),
                name="reference_one_active_per_condition",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.condition} @ {self.sha256[:8]}"


class ReferenceFile(models.Model):
    """A file a task needs besides the gold, part of one reference version.

    ``name`` is the task's file name (``scoring.tasks``: ``schema`` for ``multiwoz22``,
    ``training_values`` for the seen/unseen breakdown); a new reference version carries its own
    files, so Results stay tied to exactly what they were scored against."""

    reference = models.ForeignKey(Reference, on_delete=models.CASCADE, related_name="files")
    name = models.SlugField(max_length=64)
    file = models.FileField(storage=private_storage, upload_to=reference_upload_to)
    original_name = models.CharField(max_length=255)
    sha256 = models.CharField(max_length=64)

    class Meta:
        ordering = ["reference", "name"]
        constraints = [
            models.UniqueConstraint(fields=["reference", "name"], name="referencefile_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.reference} / {self.name}"


class PhaseFile(models.Model):
    """A file the organisers publish with a phase for every participant (test inputs, a
    manifest, ASR transcripts): downloadable by anyone from the challenge's data section, with
    its size and sha256. Never a gold: references have no URL."""

    phase = models.ForeignKey(Phase, on_delete=models.CASCADE, related_name="files")
    title = models.CharField(max_length=200)
    description = models.CharField(max_length=500, blank=True)
    file = models.FileField(storage=private_storage, upload_to=phase_file_upload_to)
    original_name = models.CharField(max_length=255, editable=False)
    size = models.PositiveBigIntegerField(default=0, editable=False)
    sha256 = models.CharField(max_length=64, editable=False)
    uploaded_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        ordering = ["phase", "title", "pk"]

    def __str__(self) -> str:
        return f"{self.phase} / {self.title}"
