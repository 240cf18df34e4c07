"""The organiser's admin: every page renders; a reference upload is validated, versioned and
re-queues its condition's scored runs; the challenge's task settings and reported figures are
checked with errors on their fields; an organiser who is not a superuser chooses only among
their own challenges' phases and conditions."""

from __future__ import annotations

import hashlib
import json

import pytest
from django.contrib.auth.models import Permission
from django.core.files.uploadedfile import SimpleUploadedFile
from django.forms import FileField
from django.test import RequestFactory
from django.urls import reverse

from leaderboard.challenges.admin import ChallengeForm, ReferenceAdmin
from leaderboard.challenges.models import Challenge, Condition, Phase, Reference
from leaderboard.demo import dstc11
from leaderboard.rankings.admin import ReportedResultAdmin
from leaderboard.rankings.models import ReportedResult
from leaderboard.submissions import ratios, services
from leaderboard.submissions.models import Result, Submission
from tests.leaderboard.boards import leaderboard
from tests.leaderboard.factories import UserFactory, with_second_factor

pytestmark = pytest.mark.django_db

MODELS = [
    "challenges/challenge",
    "challenges/phase",
    "challenges/reference",
    "teams/team",
    "teams/participation",
    "submissions/submission",
    "submissions/result",
    "rankings/reportedresult",
]


@pytest.fixture
def admin_client(demo, client):
    client.force_login(with_second_factor(UserFactory(is_staff=True, is_superuser=True)))
    return client


@pytest.mark.parametrize("model", MODELS)
def test_admin_list_and_change_pages_render(admin_client, model):
    app, name = model.split("/")
    assert admin_client.get(reverse(f"admin:{app}_{name}_changelist")).status_code == 200
    from django.apps import apps

    obj = apps.get_model(app, name).objects.first()
    response = admin_client.get(reverse(f"admin:{app}_{name}_change", args=[obj.pk]))
    assert response.status_code == 200


def test_uploading_a_reference_validates_it_and_keeps_the_old_version(
    admin_client, enqueued, django_capture_on_commit_callbacks
):
    # the DSTC11 demo's condition (the demo command also creates MultiWOZ 2.2 and DVD demos)
    condition = Condition.objects.filter(phase__challenge__task="dstc11").first()
    old = condition.references.get(active=True)
    url = reverse("admin:challenges_reference_add")
    bad = SimpleUploadedFile("gold.json", b"{oops")
    response = admin_client.post(url, {"condition": condition.pk, "upload": bad})
    assert response.status_code == 200 and b"invalid JSON" in response.content
    gold = {"sng0001": [{"hotel": {"area": "north"}}]}
    good = SimpleUploadedFile("gold.json", json.dumps(gold).encode())
    response = admin_client.post(url, {"condition": condition.pk, "upload": good})
    # The condition has scored runs: the version waits, inactive, on its review page.
    new = condition.references.get(active=False)
    review = reverse("challenges:review_reference", args=[condition.phase.challenge.slug, new.pk])
    assert response.status_code == 302 and response["Location"] == review
    assert new.summary["dialogues"] == 1 and enqueued == []
    # a one-dialogue version changes the dialogue set: the organiser confirms it
    with django_capture_on_commit_callbacks(execute=True):
        assert admin_client.post(review, {"confirm": "yes"}).status_code == 302
    assert condition.references.count() == 2
    assert condition.references.get(active=True) == new
    assert Reference.objects.filter(pk=old.pk, active=False).exists()
    # Every scored run of that condition is queued again: the demo's four runs of its phase
    # (Team Alpha one, Team Beta two, Baselines one); the hidden phase's runs are not.
    runs = Submission.objects.filter(phase=condition.phase)
    assert runs.count() == 4
    assert sorted(enqueued) == sorted(runs.values_list("pk", flat=True))
    assert set(runs.values_list("status", flat=True)) == {"queued"}


def test_making_an_older_reference_active_again_requeues_its_condition(
    admin_client, enqueued, django_capture_on_commit_callbacks
):
    condition = Condition.objects.filter(phase__challenge__slug=dstc11.SLUG).first()
    first = condition.references.get()
    gold = {"sng0001": [{"hotel": {"area": "north"}}]}
    url = reverse("admin:challenges_reference_add")
    upload = SimpleUploadedFile("gold.json", json.dumps(gold).encode())
    assert admin_client.post(url, {"condition": condition.pk, "upload": upload}).status_code == 302
    second = condition.references.exclude(pk=first.pk).get()
    review = reverse("challenges:review_reference", args=[dstc11.SLUG, second.pk])
    with django_capture_on_commit_callbacks(execute=True):
        admin_client.post(review, {"confirm": "yes"})  # another dialogue set: confirmed
    Submission.objects.filter(phase=condition.phase).update(status="scored")
    enqueued.clear()
    # The action leads to the older version's review page; confirming there activates it.
    response = admin_client.post(
        reverse("admin:challenges_reference_changelist"),
        {"action": "make_active", "_selected_action": [first.pk]},
    )
    review = reverse("challenges:review_reference", args=[dstc11.SLUG, first.pk])
    assert response.status_code == 302 and response["Location"] == review
    assert condition.references.get(active=True) == second and enqueued == []
    with django_capture_on_commit_callbacks(execute=True):
        admin_client.post(review, {"confirm": "yes"})
    assert condition.references.get(active=True) == first
    assert len(enqueued) == 4


def test_the_upload_form_offers_every_reference_file_a_task_knows(admin_client):
    page = admin_client.get(reverse("admin:challenges_reference_add")).text
    assert 'name="schema"' in page and "required for multiwoz22" in page
    assert 'name="training_values"' in page
    # a file the condition's task does not take is refused with the scorer's message
    condition = Condition.objects.filter(phase__challenge__task="dstc11").first()
    gold = SimpleUploadedFile("gold.json", json.dumps({"d": [{"hotel": {"area": "x"}}]}).encode())
    schema = SimpleUploadedFile("schema.json", b"[]")
    response = admin_client.post(
        reverse("admin:challenges_reference_add"),
        {"condition": condition.pk, "upload": gold, "schema": schema},
    )
    assert response.status_code == 200 and b"takes no reference file" in response.content


def _challenge_form(challenge, **changes) -> ChallengeForm:
    data = {
        "slug": challenge.slug,
        "title": challenge.title,
        "task": challenge.task,
        "primary_metric": challenge.primary_metric,
        "registration": challenge.registration,
        "scorer_options": json.dumps(challenge.scorer_options),
        "created": challenge.created.strftime("%Y-%m-%d %H:%M:%S"),
        "created_0": challenge.created.strftime("%Y-%m-%d"),
        "created_1": challenge.created.strftime("%H:%M:%S"),
        **changes,
    }
    return ChallengeForm(data=data, instance=challenge)


@pytest.mark.parametrize(
    ("changes", "field", "phrase"),
    [
        ({"scorer_options": '{"colour": "red"}'}, "scorer_options", "unknown option"),
        ({"scorer_options": '{"profile": "lenient"}'}, "scorer_options", "cannot be 'lenient'"),
        ({"scorer_options": '{"n_boot": "many"}'}, "scorer_options", "whole number"),
        ({"scorer_options": '{"n_boot": 0}'}, "scorer_options", "between 1 and 100000"),
        ({"scorer_options": '{"level": 1.5}'}, "scorer_options", "below 1"),
        ({"scorer_options": "[1, 2]"}, "scorer_options", "mapping"),
        ({"primary_metric": "bleu"}, "primary_metric", "not a metric of task 'dstc11'"),
        ({"task": "chess"}, "task", "valid choice"),
    ],
)
def test_the_challenge_form_checks_the_task_settings_on_their_fields(
    admin_client, changes, field, phrase
):
    challenge = Challenge.objects.get(slug=dstc11.SLUG)
    form = _challenge_form(challenge, **changes)
    assert not form.is_valid()
    assert phrase in " ".join(form.errors[field]), form.errors
    good = _challenge_form(
        challenge, primary_metric="ser", scorer_options='{"n_boot": 500, "level": 0.9}'
    )
    assert good.is_valid(), good.errors


def test_the_challenge_form_names_every_wrong_scorer_option_at_once(admin_client):
    challenge = Challenge.objects.get(slug=dstc11.SLUG)
    form = _challenge_form(challenge, scorer_options='{"n_boot": -5, "level": 1.5}')
    assert not form.is_valid()
    assert form.errors["scorer_options"] == [
        "n_boot must be between 1 and 100000, not -5",
        "level must be at least 0.5 and below 1 (e.g. 0.95), not 1.5",
    ]


def test_the_challenge_form_help_lists_each_tasks_metrics_and_options(admin_client):
    challenge = Challenge.objects.get(slug=dstc11.SLUG)
    page = admin_client.get(reverse("admin:challenges_challenge_change", args=[challenge.pk])).text
    assert "dstc11: jga, ser, slot_f1" in page
    assert "multiwoz22: match (exact|fuzzy)" in page


def test_saving_a_phase_in_the_admin_marks_its_boards_changed(admin_client):
    phase = Phase.objects.get(challenge__slug=dstc11.SLUG, slug="test")
    url = reverse("admin:challenges_phase_change", args=[phase.pk])
    data = _form_data(admin_client.get(url))
    data["name"] = "Test (renamed)"
    response = admin_client.post(url, data)
    assert response.status_code == 302, response.context["adminform"].form.errors
    after = Phase.objects.get(pk=phase.pk)
    assert after.name == "Test (renamed)" and after.board_version > phase.board_version


def test_ranking_a_challenge_by_another_metric_in_the_admin_rescores_and_reranks(
    admin_client, enqueued, django_capture_on_commit_callbacks
):
    challenge = Challenge.objects.get(slug=dstc11.SLUG)
    phase = challenge.phases.get(slug="test")
    before = dict(challenge.phases.values_list("pk", "board_version"))
    assert leaderboard(phase).columns[0].name == "jga"  # cached under the current version
    url = reverse("admin:challenges_challenge_change", args=[challenge.pk])
    data = _form_data(admin_client.get(url))
    data["primary_metric"] = "ser"
    with django_capture_on_commit_callbacks(execute=True):
        response = admin_client.post(url, data, follow=True)
    assert "The scoring settings changed: 6 submission(s) queued" in response.text
    after = dict(challenge.phases.values_list("pk", "board_version"))
    # the test phase, the hidden one and the Development phase
    assert len(after) == 3 and all(after[pk] > before[pk] for pk in before)
    # the demo's runs: four in the test phase, two in the hidden one
    assert sorted(enqueued) == sorted(
        Submission.objects.filter(phase__challenge=challenge).values_list("pk", flat=True)
    )
    for pk in enqueued:
        assert services.run_scoring(pk) == "scored"
    board = leaderboard(Phase.objects.get(pk=phase.pk))
    # SER is among the first two columns already: it stays second, flagged as the ranked one
    assert [(c.name, c.primary) for c in board.columns[:2]] == [("jga", False), ("ser", True)]
    for condition in board.conditions:
        ser = [r.cells[1][0] for r in condition.rows]
        assert ser == sorted(ser)  # lower is better: the lowest SER ranks first


def _form_data(response) -> dict:
    """The POST data a browser would send back from an admin change page, unchanged."""
    data: dict = {}
    forms = [response.context["adminform"].form]
    for inline in response.context["inline_admin_formsets"]:
        formset = inline.formset
        forms += list(formset.forms)
        management = formset.management_form
        for name in management.fields:
            data[management.add_prefix(name)] = management[name].value()
    for form in forms:
        for name, field in form.fields.items():
            value = form[name].value()
            if value is None or isinstance(field, FileField):
                continue  # a browser sends a file input only when a file is chosen
            if isinstance(value, bool):
                if value:
                    data[form.add_prefix(name)] = "on"
                continue
            if hasattr(value, "strftime"):
                data[form.add_prefix(name) + "_0"] = value.strftime("%Y-%m-%d")
                data[form.add_prefix(name) + "_1"] = value.strftime("%H:%M:%S")
                continue
            data[form.add_prefix(name)] = value
    return data


def _public_jga(result: Result, seed: int, fraction: float) -> float:
    """The public part's JGA by the documented rule: a dialogue is public when the first eight
    bytes of sha256("<seed>:<id>"), as a fraction of 2**64, are below the fraction."""
    num, den = (column.tolist() for column in ratios.decode(result.ratios)["jga"])
    keep = [
        i
        for i, d in enumerate(result.dialogues["ids"])
        if int.from_bytes(hashlib.sha256(f"{seed}:{d}".encode()).digest()[:8], "big") / 2**64
        < fraction
    ]
    return 100 * sum(num[i] for i in keep) / sum(den[i] for i in keep)


def test_changing_the_split_in_the_admin_recomputes_the_stored_parts_at_once(
    admin_client, enqueued, django_capture_on_commit_callbacks
):
    phase = Phase.objects.get(challenge__slug=dstc11.SLUG, slug=dstc11.HIDDEN_SLUG)
    # The split may change only while no team has seen a score of the phase: here the teams
    # see nothing until the reveal (the split's lock: organiser/test_one_way_phase.py).
    Phase.objects.filter(pk=phase.pk).update(show_own_public_score=False)
    url = reverse("admin:challenges_phase_change", args=[phase.pk])
    data = _form_data(admin_client.get(url))
    data["split_seed"] = 7
    with django_capture_on_commit_callbacks(execute=True):
        response = admin_client.post(url, data, follow=True)
    # Nothing is re-scored: the stored per-dialogue figures give the new parts in this save.
    assert enqueued == []
    assert set(phase.submissions.values_list("status", flat=True)) == {"scored"}
    results = Result.objects.filter(submission__phase=phase)
    assert results.count() > 0
    assert (
        f"the public and private figures of {results.count()} stored result(s) were computed "
        "again on the new split." in response.text
    )
    for result in results:
        expected = _public_jga(result, 7, phase.split_fraction)
        assert result.part_metrics["public"]["metrics"]["jga"] == pytest.approx(expected)
        assert result.public_primary == pytest.approx(expected)


def test_a_reported_figure_is_checked_on_its_field_against_the_task(admin_client):
    phase = Phase.objects.get(challenge__slug=dstc11.SLUG, slug="test")
    condition = phase.conditions.first()
    url = reverse("admin:rankings_reportedresult_add")
    page = admin_client.get(url).text
    assert "jga (JGA, higher is better), ser (SER, lower is better)" in page
    base = {"phase": phase.pk, "condition": condition.pk, "label": "X", "source": "a paper"}
    for metrics, phrase in (
        ('{"bleu": 30}', "&#x27;bleu&#x27; is not a metric of this challenge"),
        ('{"jga": 120}', "jga: give a number from 0 to 100"),
        ('{"jga": "45"}', "jga: give a number from 0 to 100"),
        ("{}", "Give at least one figure"),
    ):
        response = admin_client.post(url, {**base, "metrics": metrics})
        assert response.status_code == 200
        errors = response.context["adminform"].form.errors
        assert list(errors) == ["metrics"], errors
        assert phrase in response.text
    other = Phase.objects.get(
        challenge__slug=dstc11.SLUG, slug=dstc11.HIDDEN_SLUG
    ).conditions.first()
    response = admin_client.post(url, {**base, "condition": other.pk, "metrics": '{"jga": 45}'})
    assert list(response.context["adminform"].form.errors) == ["condition"]
    response = admin_client.post(url, {**base, "metrics": '{"jga": 45.5, "ser": 20}'})
    assert response.status_code == 302
    assert ReportedResult.objects.get(label="X").metrics == {"jga": 45.5, "ser": 20}
    change = admin_client.get(
        reverse(
            "admin:rankings_reportedresult_change", args=[ReportedResult.objects.get(label="X").pk]
        )
    ).text
    assert "jga (JGA, higher is better)" in change and "joint (Joint Acc" not in change


def test_an_organiser_chooses_only_among_their_own_conditions_and_phases(admin_client):
    organiser = with_second_factor(UserFactory(is_staff=True))
    organiser.user_permissions.set(Permission.objects.filter(codename__in=[
        "add_reference", "view_reference", "add_reportedresult", "view_reportedresult",
    ]))  # fmt: skip
    mine = Challenge.objects.get(slug=dstc11.SLUG)
    mine.organisers.add(with_second_factor(organiser))
    request = RequestFactory().get("/")
    request.user = organiser
    from django.contrib import admin

    form = ReferenceAdmin(Reference, admin.site).get_form(request)
    assert set(form.base_fields["condition"].queryset) == set(
        Condition.objects.filter(phase__challenge=mine)
    )
    form = ReportedResultAdmin(ReportedResult, admin.site).get_form(request)
    assert set(form.base_fields["phase"].queryset) == set(mine.phases.all())
    assert set(form.base_fields["condition"].queryset) == set(
        Condition.objects.filter(phase__challenge=mine)
    )
    # a condition of another challenge is refused, not stored
    admin_client.force_login(organiser)
    elsewhere = Condition.objects.exclude(phase__challenge=mine).first()
    upload = SimpleUploadedFile("gold.json", b'{"d": [{"hotel": {"area": "north"}}]}')
    response = admin_client.post(
        reverse("admin:challenges_reference_add"), {"condition": elsewhere.pk, "upload": upload}
    )
    assert response.status_code == 200
    assert list(response.context["adminform"].form.errors) == ["condition"]
    assert elsewhere.references.count() == 1


def test_the_rescore_action_requeues_scored_submissions(admin_client, enqueued):
    pks = list(Submission.objects.values_list("pk", flat=True))
    response = admin_client.post(
        reverse("admin:submissions_submission_changelist"),
        {"action": "rescore_selected", "_selected_action": pks},
    )
    assert response.status_code == 302
    assert set(Submission.objects.values_list("status", flat=True)) == {"queued"}
