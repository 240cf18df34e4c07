"""Every write through the admin is in the audit log, by one mechanism no page can forget: the
test walks every registered admin page and each of its inlines, changes one thing through the
page as a browser would, and finds an entry saying what it was before and after; saving a page
unchanged leaves none. Named cases: an inline edit of a condition's label, a deletion, a
password change (recorded without the password), a no-op de-selection of a final submission."""

from __future__ import annotations

import pytest
from axes.models import AccessAttempt, AccessFailureLog, AccessLog
from django import forms
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.core.files.base import ContentFile
from django.test import RequestFactory
from django.urls import reverse

from leaderboard.challenges.admin_trail import HIDDEN, Audited
from leaderboard.challenges.audit import AuditEntry
from leaderboard.challenges.models import Challenge, Phase, PhaseFile
from leaderboard.submissions.models import Submission
from leaderboard.submissions.services import select_final
from tests.leaderboard.factories import UserFactory, with_second_factor
from tests.leaderboard.test_admin import _form_data

pytestmark = pytest.mark.django_db


@pytest.fixture
def root(demo, client):
    """The demo's world, a row of every admin page's model, and a superuser signed in."""
    phase = Phase.objects.order_by("pk").first()  # the one the walk opens
    PhaseFile.objects.create(phase=phase, title="Manifest", file=ContentFile(b"x", "m.txt"))
    AccessAttempt.objects.create(username="x", ip_address="192.0.2.1", failures_since_start=1)
    AccessLog.objects.create(username="x", ip_address="192.0.2.1")
    AccessFailureLog.objects.create(username="x", ip_address="192.0.2.1")
    user = with_second_factor(UserFactory(is_staff=True, is_superuser=True, username="root"))
    client.force_login(user)
    return user


def _editable(field: forms.Field, value):
    """A new value for ``field`` a browser could send, or None when it takes none here."""
    if isinstance(field, forms.ModelChoiceField) or field.disabled:
        return None
    if isinstance(field.widget, forms.HiddenInput | forms.PasswordInput):
        return None
    if type(field) is forms.CharField:
        return f"{value or ''} (edited)".strip()
    if type(field) is forms.IntegerField:
        return (value or 0) + 1
    if type(field) is forms.TypedChoiceField or type(field) is forms.ChoiceField:
        others = [k for k, _ in field.choices if k not in ("", value)]
        return others[0] if others else None
    return None


def _change(form: forms.BaseForm) -> tuple[str, object] | None:
    for name, field in form.fields.items():
        new = _editable(field, form[name].value())
        if new is not None:
            return form.add_prefix(name), new
    return None


def test_every_admin_page_derives_from_the_audited_base():
    assert admin.site._registry
    for model, page in admin.site._registry.items():
        assert isinstance(page, Audited), model


def test_every_admin_page_and_inline_records_a_change_and_not_a_non_change(root, client):
    walked = []
    for model, page in admin.site._registry.items():
        obj = model._default_manager.order_by("pk").first()
        if obj is None:  # none in the demo: a page that could not write one anyway
            request = RequestFactory().get("/")
            request.user = root
            assert not page.has_add_permission(request), model
            assert not page.has_change_permission(request), model
            continue
        url = reverse(
            f"admin:{model._meta.app_label}_{model._meta.model_name}_change", args=[obj.pk]
        )
        response = client.get(url)
        assert response.status_code == 200, url
        if "adminform" not in response.context or not page.has_change_permission(
            response.wsgi_request, obj
        ):
            continue  # read only: nothing to write
        data = _form_data(response)
        count = AuditEntry.objects.count()
        assert client.post(url, data).status_code == 302, url
        assert AuditEntry.objects.count() == count, f"{url}: an unchanged save was recorded"
        forms_to_change = [("page", response.context["adminform"].form)]
        for inline in response.context["inline_admin_formsets"]:
            formset = inline.formset
            forms_to_change += [(type(inline.opts).__name__, f) for f in formset.initial_forms]
        for where, form in forms_to_change:
            if where != "page" and (model._meta.label, where) in walked:
                continue  # one row of each inline is enough
            change = _change(form)
            if change is None:
                continue
            name, value = change
            edited = {**_form_data(client.get(url)), name: value}
            response = client.post(url, edited)
            errors = response.context and response.context["adminform"].form.errors
            assert response.status_code == 302, (url, name, errors)
            assert AuditEntry.objects.count() > count, f"{url}: {name} changed, nothing recorded"
            entry = AuditEntry.objects.order_by("-pk").first()
            assert entry.actor_name == "root" and entry.before != entry.after
            count = AuditEntry.objects.count()
            walked.append((model._meta.label, where))
    # every page with something to change was changed, each inline too
    labels = {label for label, _ in walked}
    assert {"challenges.Challenge", "challenges.Phase", "teams.Team", "auth.Group",
            "submissions.Submission", "auth.User"} <= labels  # fmt: skip
    inlines = {where for _, where in walked if where != "page"}
    assert {"PhaseInline", "ConditionInline", "PhaseFileInline", "MembershipInline"} <= inlines


def test_an_inline_edit_of_a_condition_label_is_recorded_before_and_after(root, client):
    phase = Phase.objects.filter(conditions__key="tts-verbatim").first()
    condition = phase.conditions.get(key="tts-verbatim")
    url = reverse("admin:challenges_phase_change", args=[phase.pk])
    response = client.get(url)
    data = _form_data(response)
    (formset,) = [i.formset for i in response.context["inline_admin_formsets"]
                  if i.formset.model._meta.model_name == "condition"]  # fmt: skip
    (form,) = [f for f in formset.initial_forms if f.instance.pk == condition.pk]
    data[form.add_prefix("label")] = "TTS (verbatim)"
    assert client.post(url, data).status_code == 302
    (entry,) = AuditEntry.objects.filter(action="phase-changed")
    key = "condition “TTS (verbatim)”: label"  # the row as it reads now
    assert entry.before == {key: condition.label} and entry.after == {key: "TTS (verbatim)"}
    assert entry.challenge_id == phase.challenge_id and entry.phase_id == phase.pk


def test_a_deletion_and_a_password_change_are_recorded(root, client):
    run = Submission.objects.filter(results__isnull=True).first() or Submission.objects.create(
        team=Submission.objects.first().team, phase=Phase.objects.first(), method_name="junk",
        status=Submission.Status.INVALID,
    )  # fmt: skip
    url = reverse("admin:submissions_submission_delete", args=[run.pk])
    assert client.post(url, {"post": "yes"}).status_code == 302
    (entry,) = AuditEntry.objects.filter(action="admin-deleted")
    assert entry.subject == f"submission “{run}”" and entry.after == {"row": "deleted"}
    assert entry.challenge_id == run.phase.challenge_id
    user = get_user_model().objects.get(username="root")
    url = reverse("admin:auth_user_password_change", args=[user.pk])
    secret = "a-new-Password-77"
    response = client.post(url, {"password1": secret, "password2": secret})
    assert response.status_code == 302
    (entry,) = AuditEntry.objects.filter(action="admin-changed", subject__contains="root")
    assert entry.challenge is None  # the site's own trail
    assert set(entry.after.values()) == {HIDDEN} and secret not in str(entry.before | entry.after)


def test_a_no_op_deselection_of_a_final_submission_leaves_no_entry(root):
    run = Submission.objects.filter(status="scored", selected_for_final=False).first()
    Phase.objects.filter(pk=run.phase_id).update(revealed=False)
    member = run.team.memberships.first().user
    before = AuditEntry.objects.filter(action="final-selection").count()
    select_final(run, member, False)
    assert AuditEntry.objects.filter(action="final-selection").count() == before


def test_the_trail_of_a_deleted_challenge_stays_for_the_operators(root, client):
    challenge = Challenge.objects.create(slug="empty", title="Empty", task="dstc11")
    url = reverse("admin:challenges_challenge_change", args=[challenge.pk])
    data = _form_data(client.get(url))
    data["title"] = "Still empty"
    assert client.post(url, data).status_code == 302
    delete = reverse("admin:challenges_challenge_delete", args=[challenge.pk])
    assert client.post(delete, {"post": "yes"}).status_code == 302
    kept = AuditEntry.objects.filter(subject__icontains="empty") | AuditEntry.objects.filter(
        action="challenge-changed", after__title="Still empty"
    )
    assert {e.action for e in kept} == {"challenge-changed", "admin-deleted"}
    assert all(e.challenge_id is None for e in kept)
