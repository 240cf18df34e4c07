"""Every API error has one JSON shape: {"error": {"code", "message", "details"}}."""

from __future__ import annotations

import pytest

from tests.leaderboard.api.conftest import token_client

pytestmark = pytest.mark.django_db


def _shape(response) -> dict:
    assert response["Content-Type"].startswith("application/json")
    body = response.json()
    assert set(body) == {"error"}
    assert set(body["error"]) == {"code", "message", "details"}
    assert isinstance(body["error"]["message"], str) and body["error"]["message"]
    return body["error"]


def test_unknown_paths_and_objects_are_json_404s(actors):
    client = token_client(actors.member)
    for url in ("/api/v1/nothing-here/", "/api/v1/challenges/nope/", "/api/v1/submissions/999/"):
        response = client.get(url)
        assert response.status_code == 404
        assert _shape(response)["code"] == "not_found"
    assert _shape(client.get("/api/v1/phases/999/leaderboard/"))["code"] == "not_found"


def test_a_missing_or_wrong_token_is_a_json_401_with_a_challenge():
    anonymous = token_client().get("/api/v1/submissions/")
    assert anonymous.status_code == 401
    assert _shape(anonymous)["code"] == "not_authenticated"
    assert anonymous["WWW-Authenticate"].startswith("Bearer")
    wrong = token_client()
    wrong.credentials(HTTP_AUTHORIZATION="Bearer tb_wrong")
    response = wrong.get("/api/v1/challenges/")
    assert response.status_code == 401
    assert _shape(response)["code"] == "authentication_failed"


def test_a_wrong_method_is_a_json_405(actors):
    response = token_client(actors.member).delete("/api/v1/challenges/")
    assert response.status_code == 405
    assert _shape(response)["code"] == "method_not_allowed"


def test_validation_errors_name_the_fields(actors):
    response = token_client(actors.member).post(
        f"/api/v1/phases/{actors.phase.pk}/submissions/", {"url": "not a url"}, format="multipart"
    )
    assert response.status_code == 400
    error = _shape(response)
    assert error["code"] == "invalid"
    assert set(error["details"]) == {"method_name", "url"}


def test_an_unknown_condition_on_the_leaderboard_is_a_400(actors):
    response = token_client().get(f"/api/v1/phases/{actors.phase.pk}/leaderboard/?condition=x")
    assert response.status_code == 400
    assert "condition" in _shape(response)["details"]


def test_an_invalid_page_is_a_json_404(actors):
    response = token_client().get("/api/v1/challenges/?page=99")
    assert response.status_code == 404
    _shape(response)


def test_an_unexpected_failure_is_json_without_internals(client, monkeypatch):
    from leaderboard.api import views

    def broken(*args, **kwargs):
        raise RuntimeError("secret internals: /srv/private/gold.json")

    monkeypatch.setattr(views.ChallengeList, "get_queryset", broken)
    client.raise_request_exception = False
    response = client.get("/api/v1/challenges/")
    assert response.status_code == 500
    body = response.json()
    assert body["error"]["code"] == "server_error"
    assert "secret" not in response.text and "Traceback" not in response.text
