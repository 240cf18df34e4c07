"""Throttles on submission creation, token creation and wrong tokens: per user and per IP
address, 429 with Retry-After. Rates are set in each test, so nothing depends on defaults."""

from __future__ import annotations

import pytest
from django.test import Client
from rest_framework.test import APIClient

from tests.leaderboard.api.conftest import token_client
from tests.leaderboard.factories import KEYS
from tests.leaderboard.web import log_in, prediction_file

pytestmark = pytest.mark.django_db

GENEROUS = "1000/min"


@pytest.fixture
def rates(settings):
    def set_rates(**overrides: str) -> None:
        names = ("submit-user", "submit-ip", "token-user", "token-ip", "auth-failure-ip")
        rates = {name: GENEROUS for name in names}
        rates.update({k.replace("_", "-"): v for k, v in overrides.items()})
        settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}

    return set_rates


def _submit(client, phase, address="10.0.0.1"):
    data = {"method_name": "m", **{key: prediction_file() for key in KEYS}}
    return client.post(
        f"/api/v1/phases/{phase.pk}/submissions/", data, format="multipart", REMOTE_ADDR=address
    )


def _assert_throttled(response) -> None:
    assert response.status_code == 429
    assert int(response["Retry-After"]) > 0
    assert response.json()["error"]["code"] == "throttled"


def test_submissions_are_throttled_per_user(actors, rates):
    rates(submit_user="2/hour")
    client = token_client(actors.member)
    assert _submit(client, actors.phase, "10.0.0.1").status_code == 201
    assert _submit(client, actors.phase, "10.0.0.2").status_code == 201
    _assert_throttled(_submit(client, actors.phase, "10.0.0.3"))
    # Another user is not affected.
    assert _submit(token_client(actors.other), actors.phase).status_code == 201


def test_submissions_are_throttled_per_ip_address(actors, rates):
    rates(submit_ip="1/hour")
    assert _submit(token_client(actors.member), actors.phase).status_code == 201
    _assert_throttled(_submit(token_client(actors.other), actors.phase))
    assert _submit(token_client(actors.other), actors.phase, "10.0.0.9").status_code == 201


def test_reading_is_not_throttled_by_the_submission_rates(actors, rates):
    rates(submit_user="1/hour", submit_ip="1/hour")
    client = token_client(actors.member)
    for _ in range(3):
        assert client.get("/api/v1/submissions/").status_code == 200


def test_token_creation_is_throttled_per_user(actors, rates):
    rates(token_user="2/hour")
    client = Client()
    log_in(client, actors.member)
    for _ in range(2):
        assert client.post("/accounts/profile/tokens/", {"name": "t"}).status_code == 200
    response = client.post("/accounts/profile/tokens/", {"name": "t"})
    assert response.status_code == 429
    assert int(response["Retry-After"]) > 0
    assert actors.member.api_tokens.count() == 2


def test_token_creation_is_throttled_per_ip_address(actors, rates):
    rates(token_ip="1/hour")
    first, second = Client(REMOTE_ADDR="10.1.1.1"), Client(REMOTE_ADDR="10.1.1.1")
    log_in(first, actors.member)
    log_in(second, actors.other)
    assert first.post("/accounts/profile/tokens/", {"name": "t"}).status_code == 200
    assert second.post("/accounts/profile/tokens/", {"name": "t"}).status_code == 429


def test_wrong_tokens_are_throttled_per_ip_address_and_right_ones_never_are(actors, rates):
    rates(auth_failure_ip="3/min")
    guesser = APIClient(REMOTE_ADDR="10.2.2.2")
    for n in range(3):
        guesser.credentials(HTTP_AUTHORIZATION=f"Bearer tb_guess{n}")
        assert guesser.get("/api/v1/teams/mine/").status_code == 401
    guesser.credentials(HTTP_AUTHORIZATION="Bearer tb_guess-again")
    _assert_throttled(guesser.get("/api/v1/teams/mine/"))
    # A colleague behind the same address (one NAT) with a valid token is not refused, and
    # using it does not lift the address's limit for wrong ones.
    right = token_client(actors.member)
    assert right.get("/api/v1/teams/mine/", REMOTE_ADDR="10.2.2.2").status_code == 200
    assert right.get("/api/v1/teams/mine/", REMOTE_ADDR="10.3.3.3").status_code == 200
    _assert_throttled(guesser.get("/api/v1/teams/mine/"))
