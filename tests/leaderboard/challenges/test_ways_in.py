"""The challenge page and the submit page show how to upload from a script: the client's
command and the API's, each one copyable line that works as written."""

from __future__ import annotations

import html
import re
import shlex

import pytest
from django.urls import resolve, reverse

from tests.leaderboard.factories import KEYS, approved_team, phase_with_references
from tests.leaderboard.web import GOLD_BYTES, log_in
from trackboard_cli.main import _parser

pytestmark = pytest.mark.django_db


def _commands(page: str) -> tuple[list[str], list[str]]:
    found = {
        name: shlex.split(html.unescape(text))
        for name, text in re.findall(r'<code id="(cli|api)-command">([^<]+)</code>', page)
    }
    assert 'data-copy="cli-command"' in page and 'data-copy="api-command"' in page
    return found["cli"], found["api"]


def _check(phase, cli: list[str], api: list[str]) -> None:
    assert cli[0] == "TRACKBOARD_URL=http://testserver"
    args = _parser().parse_args(cli[2:])
    assert args.phase == f"{phase.challenge.slug}/{phase.slug}" and args.wait
    assert sorted(args.file) == sorted(f"{key}={key}.json" for key in KEYS)
    assert api[:3] == ["curl", "-H", "Authorization: Bearer $TRACKBOARD_TOKEN"]
    url = api[-1]
    assert url == f"http://testserver/api/v1/phases/{phase.pk}/submissions/"
    assert resolve(url.removeprefix("http://testserver")).url_name == "submit"
    assert {f"{key}=@{key}.json" for key in KEYS} <= set(api)


def test_the_challenge_page_shows_the_cli_and_api_way_in(client):
    phase = phase_with_references(GOLD_BYTES)
    page = client.get(reverse("challenges:detail", args=[phase.challenge.slug])).text
    _check(phase, *_commands(page))
    assert 'href="/api/v1/docs/"' in page


def test_the_submit_page_shows_the_cli_and_api_way_in(client):
    phase = phase_with_references(GOLD_BYTES)
    log_in(client, approved_team(phase).created_by)
    page = client.get(reverse("submissions:submit", args=[phase.challenge.slug, phase.slug])).text
    _check(phase, *_commands(page))
    assert "#page-data" in page  # the samples
