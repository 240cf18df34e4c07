"""HTTP caching of the boards (``rankings.caching``): the validator and 304 of the page, its
tables, the exports and the API's board, all made from the stored board; ``Cache-Control``
public for anonymous readers of a visible board only, private for signed-in readers and hidden
phases; ``Vary``; compression; CORS for any site on the public exports and the API's board,
without credentials."""

from __future__ import annotations

import gzip

import pytest
from django.contrib import messages
from django.contrib.messages.storage.cookie import CookieStorage
from django.http import HttpRequest, HttpResponse
from django.test import Client
from django.urls import reverse

from leaderboard.challenges.models import Phase
from tests.leaderboard.api.conftest import token_client
from tests.leaderboard.boards import built
from tests.leaderboard.factories import (
    UserFactory,
    approved_team,
    phase_with_references,
    with_second_factor,
)
from tests.leaderboard.web import GOLD_BYTES, log_in, scored_submission

pytestmark = pytest.mark.django_db


@pytest.fixture
def phase():
    phase = phase_with_references(GOLD_BYTES)
    scored_submission(approved_team(phase), phase)
    return phase


def _urls(phase) -> dict[str, str]:
    args = [phase.challenge.slug, phase.slug]
    page = reverse("rankings:leaderboard", args=args)
    return {
        "page": page,
        "fragment": page + "?fragment=1",
        "json": reverse("rankings:export-json", args=args),
        "csv": reverse("rankings:export-csv", args=args),
        "api": f"/api/v1/phases/{phase.pk}/leaderboard/",
    }


def _control(response) -> set[str]:
    return {part.strip() for part in response["Cache-Control"].split(",")}


def _vary(response) -> set[str]:
    return {part.strip().lower() for part in response.get("Vary", "").split(",")}


@pytest.mark.parametrize("kind", ["page", "fragment", "json", "csv", "api"])
def test_an_unchanged_board_answers_304_and_a_changed_one_200(client, phase, kind):
    url = _urls(phase)[kind]
    first = client.get(url)
    assert first.status_code == 200
    tag = first["ETag"]
    again = client.get(url, HTTP_IF_NONE_MATCH=tag)
    assert again.status_code == 304 and again.content == b""
    assert again["ETag"] == tag
    # a 304 carries the same caching rules as the 200 it stands for
    assert _control(again) == _control(first) and "cookie" in _vary(again)
    # a new result is a new version of the board: the old validator no longer matches
    scored_submission(approved_team(phase), phase, "Later")
    changed = client.get(url, HTTP_IF_NONE_MATCH=tag)
    assert changed.status_code == 200 and changed["ETag"] != tag


@pytest.mark.parametrize("kind", ["page", "fragment", "json", "csv", "api"])
def test_anonymous_readers_of_a_public_board_may_be_answered_by_a_shared_cache(client, phase, kind):
    response = client.get(_urls(phase)[kind])
    assert _control(response) == {"public", "max-age=5", "stale-while-revalidate=30"}
    # a shared cache keeps one answer per cookie: a signed-in reader never gets this one
    assert "cookie" in _vary(response)


@pytest.mark.parametrize("kind", ["page", "fragment", "json", "csv", "api"])
def test_signed_in_readers_are_never_answered_from_a_shared_cache(client, phase, kind):
    log_in(client, UserFactory())
    response = client.get(_urls(phase)[kind])
    assert response.status_code == 200
    control = _control(response)
    assert "public" not in control and "private" in control
    assert "no-cache" in control or "no-store" in control
    assert "cookie" in _vary(response)


@pytest.mark.parametrize("kind", ["json", "csv", "api"])
def test_the_public_exports_and_api_board_may_be_read_by_any_site_without_credentials(
    client, phase, kind
):
    url = _urls(phase)[kind]
    response = client.get(url, HTTP_ORIGIN="https://workshop.example.org")
    assert response["Access-Control-Allow-Origin"] == "*"
    assert "Access-Control-Allow-Credentials" not in response
    again = client.get(url, HTTP_IF_NONE_MATCH=response["ETag"])
    assert again.status_code == 304 and again["Access-Control-Allow-Origin"] == "*"
    # what a signed-in reader's cookies get is never open to another site
    log_in(client, UserFactory())
    assert "Access-Control-Allow-Origin" not in client.get(url)


@pytest.mark.parametrize("kind", ["page", "fragment"])
def test_the_page_is_not_open_to_other_sites(client, phase, kind):
    assert "Access-Control-Allow-Origin" not in client.get(_urls(phase)[kind])


def test_a_hidden_board_is_not_open_to_other_sites(client, phase):
    Phase.objects.filter(pk=phase.pk).update(results_visibility=Phase.Visibility.HIDDEN)
    for kind in ("json", "csv", "api"):
        assert "Access-Control-Allow-Origin" not in client.get(_urls(phase)[kind]), kind


def test_the_signed_in_page_is_not_revalidated_and_not_compressed(client, phase):
    """It holds the reader's name and a CSRF token (BREACH)."""
    user = UserFactory()
    log_in(client, user)
    response = client.get(_urls(phase)["page"], HTTP_ACCEPT_ENCODING="gzip")
    assert user.get_username() in response.text
    assert "ETag" not in response and "Content-Encoding" not in response
    assert "no-store" in _control(response)


def test_an_api_token_is_never_answered_from_a_shared_cache(phase):
    response = token_client(UserFactory()).get(_urls(phase)["api"])
    assert response.status_code == 200
    assert "public" not in _control(response) and "private" in _control(response)
    assert {"authorization", "cookie", "accept"} <= _vary(response)


@pytest.mark.parametrize("kind", ["page", "fragment", "json", "csv"])
def test_a_hidden_phase_is_never_public_whoever_asks(client, phase, kind):
    Phase.objects.filter(pk=phase.pk).update(results_visibility=Phase.Visibility.HIDDEN)
    url = _urls(phase)[kind]
    anonymous = client.get(url)
    assert "public" not in _control(anonymous) and "private" in _control(anonymous)
    organiser = UserFactory()
    phase.challenge.organisers.add(with_second_factor(organiser))
    signed_in = Client()
    log_in(signed_in, organiser)
    seen = signed_in.get(url)
    assert "public" not in _control(seen) and "private" in _control(seen)
    # the organiser's view and the anonymous one never share a validator (the readers'
    # exports of a hidden board are a 404, which has none)
    if "ETag" in seen and "ETag" in anonymous:
        assert seen["ETag"] != anonymous["ETag"]
        assert client.get(url, HTTP_IF_NONE_MATCH=seen["ETag"]).status_code == 200


def test_the_hidden_api_board_is_refused_not_cached(client, phase):
    Phase.objects.filter(pk=phase.pk).update(results_visibility=Phase.Visibility.HIDDEN)
    response = client.get(_urls(phase)["api"])
    assert response.status_code == 403
    assert "public" not in response.get("Cache-Control", "")


def test_a_reveal_changes_what_anonymous_readers_are_sent(client, phase):
    Phase.objects.filter(pk=phase.pk).update(results_visibility=Phase.Visibility.HIDDEN)
    hidden = client.get(_urls(phase)["page"] + "?fragment=1")
    assert client.get(_urls(phase)["json"]).status_code == 404
    Phase.objects.filter(pk=phase.pk).update(revealed=True)
    page = client.get(_urls(phase)["page"] + "?fragment=1", HTTP_IF_NONE_MATCH=hidden["ETag"])
    assert page.status_code == 200
    shown = client.get(_urls(phase)["json"])
    assert shown.status_code == 200 and shown.json()["public"] is not None
    assert "public" in _control(shown)


@pytest.mark.parametrize("kind", ["page", "fragment", "json", "csv", "api"])
def test_anonymous_answers_are_compressed_when_the_client_accepts_gzip(client, phase, kind):
    plain = client.get(_urls(phase)[kind])
    packed = client.get(_urls(phase)[kind], HTTP_ACCEPT_ENCODING="gzip")
    assert packed["Content-Encoding"] == "gzip"
    assert "accept-encoding" in _vary(packed)
    assert gzip.decompress(packed.content) == plain.content
    # the compressed answer revalidates like the plain one
    assert client.get(_urls(phase)[kind], HTTP_IF_NONE_MATCH=packed["ETag"]).status_code == 304


def test_a_message_for_one_anonymous_reader_is_never_kept_for_the_others(client, phase):
    storage = CookieStorage(HttpRequest())
    storage.add(messages.INFO, "A note for this reader only")
    carrier = HttpResponse()
    storage.update(carrier)
    client.cookies["messages"] = carrier.cookies["messages"].value
    mine = client.get(_urls(phase)["page"])
    assert "A note for this reader only" in mine.text
    assert "public" not in _control(mine) and "ETag" not in mine
    other = Client().get(_urls(phase)["page"])
    assert "A note for this reader only" not in other.text


def test_show_all_lists_every_row_and_keeps_doing_so_on_refresh(client, phase):
    for n in range(21):
        scored_submission(approved_team(phase), phase, f"Run {n}")
    url = _urls(phase)["page"]
    short = client.get(url).text
    assert "Show all 22</a>" in short
    assert short.count("<tr") - short.count("<thead") == 4 * 20  # overview + three conditions
    full = client.get(url + "?all=1").text
    assert "Show all" not in full
    assert full.count("<tr") - full.count("<thead") == 4 * 22
    assert f'data-refresh-url="{url}?fragment=1&amp;all=1"' in full
    assert client.get(url + "?fragment=1&all=1").text.count("<tbody>") == 4


def test_a_warm_board_costs_two_queries_the_phases_and_the_stored_boards(
    client, phase, django_assert_num_queries
):
    urls = _urls(phase)
    for kind in ("page", "fragment", "api"):
        client.get(urls[kind])
        with django_assert_num_queries(2):
            assert client.get(urls[kind]).status_code == 200
        with django_assert_num_queries(2):
            assert client.get(urls[kind], HTTP_IF_NONE_MATCH="nothing-like-it").status_code == 200


def test_a_signed_in_reader_of_a_warm_board_costs_four_queries(
    client, phase, django_assert_num_queries
):
    # the session, its user, the phase with whether the user organises the challenge (asked
    # in the phase's query, once per request, whatever the view and the conditional GET need
    # of it), and the stored board's version
    client.force_login(UserFactory())
    urls = _urls(phase)
    for kind in ("page", "api"):
        client.get(urls[kind])
        with django_assert_num_queries(4):
            assert client.get(urls[kind]).status_code == 200


def test_the_api_keeps_each_answer_per_stored_board_and_address(client, phase, monkeypatch):
    for n in range(3):
        scored_submission(approved_team(phase), phase, f"Run {n}")
    url = _urls(phase)["api"]
    first, second = client.get(url + "?page_size=2"), client.get(url + "?page_size=2&page=2")
    assert [r["method_name"] for r in first.json()["results"]] != [
        r["method_name"] for r in second.json()["results"]
    ]
    assert first.json()["next"] == "http://testserver" + url + "?page=2&page_size=2"
    other_host = client.get(url + "?page_size=2", HTTP_HOST="127.0.0.1")
    assert other_host.json()["next"] == "http://127.0.0.1" + url + "?page=2&page_size=2"

    # Warm: the answers come from the cache, the board is never loaded.
    def refuse(*args, **kwargs):
        raise AssertionError("the board was loaded for a kept answer")

    monkeypatch.setattr("leaderboard.rankings.caching.stored", refuse)
    assert client.get(url + "?page_size=2&page=2").json() == second.json()
    assert client.get(url + "?page_size=2").json() == first.json()
    # A query string of the reader's own is answered, and never kept.
    monkeypatch.undo()
    invented = client.get(url + "?page_size=2&page=2&anything=1")
    assert invented.json()["results"] == second.json()["results"]
    monkeypatch.setattr("leaderboard.rankings.caching.stored", refuse)
    with pytest.raises(AssertionError, match="was loaded"):
        client.get(url + "?page_size=2&page=2&anything=1")
    # A change to the board is a new stored board: the next answer is made again.
    monkeypatch.undo()
    scored_submission(approved_team(phase), phase, "Run 3")
    assert client.get(url + "?page_size=2").json()["count"] == first.json()["count"] + 1


@pytest.mark.parametrize("kind", ["page", "fragment", "json", "csv", "api"])
def test_until_the_worker_builds_the_new_board_readers_get_the_last_one_said_to_be_updating(
    client, phase, kind
):
    """A change moves the phase's version at once; the board is built by a worker after the
    commit. Meanwhile readers get the last board built, marked as being updated (a new
    validator, since the answer says so, then 304 while nothing else changes), and never a
    board the worker has not built; once it has, the new board, under a new validator."""
    url = _urls(phase)[kind]
    old = client.get(url)
    assert old.status_code == 200 and "Second run" not in old.content.decode()
    scored_submission(approved_team(phase), phase, "Second run", build=False)
    waiting = client.get(url, HTTP_IF_NONE_MATCH=old["ETag"])
    assert waiting.status_code == 200 and "Second run" not in waiting.content.decode()
    assert waiting["ETag"] != old["ETag"]
    if kind in ("page", "fragment"):
        assert "an update is on its way" in waiting.text
    elif kind == "json":
        assert waiting.json()["updating"] is True
    elif kind == "api":
        assert waiting.json()["updating"] is True and waiting.json()["built_at"]
    assert client.get(url, HTTP_IF_NONE_MATCH=waiting["ETag"]).status_code == 304
    Phase.changed(phase.pk)  # more changes before the worker's build: still the same answer
    assert client.get(url, HTTP_IF_NONE_MATCH=waiting["ETag"]).status_code == 304
    built(phase)  # the worker's build
    fresh = client.get(url, HTTP_IF_NONE_MATCH=waiting["ETag"])
    assert fresh.status_code == 200 and "Second run" in fresh.content.decode()
    assert fresh["ETag"] not in (old["ETag"], waiting["ETag"])
    assert "an update is on its way" not in fresh.content.decode()
    assert client.get(url, HTTP_IF_NONE_MATCH=fresh["ETag"]).status_code == 304


@pytest.mark.parametrize("kind", ["page", "fragment", "json", "csv", "api"])
def test_a_phase_whose_board_was_never_built_is_answered_not_refused(client, kind):
    """A new phase, before its worker's first build: an empty board, said to be coming."""
    phase = phase_with_references(GOLD_BYTES)
    response = client.get(_urls(phase)[kind])
    assert response.status_code == 200
    if kind in ("page", "fragment"):
        assert "has not been built yet" in response.text
        assert "No scored submissions yet" not in response.text
    elif kind == "api":
        assert response.json()["built_at"] is None and response.json()["results"] == []
        assert response.json()["updating"] is True
    elif kind == "json":
        assert response.json()["built_at"] is None and response.json()["updating"] is True
