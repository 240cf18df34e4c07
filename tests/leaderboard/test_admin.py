"""The organiser's admin: every page renders; a reference upload is validated and versioned."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.urls import reverse

from leaderboard.challenges.models import Condition, Reference
from leaderboard.submissions.models import Submission
from tests.leaderboard.factories import UserFactory

pytestmark = pytest.mark.django_db

MODELS = [
    "challenges/challenge",
    "challenges/phase",
    "challenges/reference",
    "teams/team",
    "teams/participation",
    "submissions/submission",
    "submissions/result",
]


@pytest.fixture
def admin_client(client):
    call_command("demo")
    client.force_login(UserFactory(is_staff=True, is_superuser=True))
    return client


@pytest.mark.parametrize("model", MODELS)
def test_admin_list_and_change_pages_render(admin_client, model):
    app, name = model.split("/")
    assert admin_client.get(reverse(f"admin:{app}_{name}_changelist")).status_code == 200
    from django.apps import apps

    obj = apps.get_model(app, name).objects.first()
    response = admin_client.get(reverse(f"admin:{app}_{name}_change", args=[obj.pk]))
    assert response.status_code == 200


def test_uploading_a_reference_validates_it_and_keeps_the_old_version(admin_client):
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
    assert response.status_code == 302
    assert condition.references.count() == 2
    assert condition.references.get(active=True).summary["dialogues"] == 1
    assert Reference.objects.filter(pk=old.pk, active=False).exists()


def test_the_rescore_action_requeues_scored_submissions(admin_client, enqueued):
    pks = list(Submission.objects.values_list("pk", flat=True))
    response = admin_client.post(
        reverse("admin:submissions_submission_changelist"),
        {"action": "rescore_selected", "_selected_action": pks},
    )
    assert response.status_code == 302
    assert set(Submission.objects.values_list("status", flat=True)) == {"queued"}
