"""HTTP caching of the boards: the validator, ``Cache-Control`` and ``Vary`` of the leaderboard
page, the reader exports and the API's board, and their compression.

What a board response shows is a function of the phase's ``board_version`` (every change to
what a board is built from increments it, ``Phase.changed``), the phase's state (dates move it
from open to closed without a write) and what the viewer may see (``challenges.visibility``).
That is the validator (``ETag``): a conditional GET of an unchanged board answers 304 after one
query, the phase's, and one look in the cache. While the current board is being built, readers
get the last board built (``services.leaderboard``): the version in the validator is the one of
the board a response is made from (``services.served_version``), never the phase's alone, so
a client's copy of an older board is never confirmed as current, and what the views keep in
the cache (the page, the API's answers) is kept under the version it was made from. There is
no ``Last-Modified``: the board keeps no time of its last change, and the version already says
whether it changed.

``Cache-Control``: anonymous readers of a board they may see (a public or revealed phase) get
``public, max-age=..., stale-while-revalidate=...``, so a proxy or CDN may answer them. Anything
else is ``private``: signed-in readers (their name and a CSRF token are on the page, organisers
see more), and hidden phases, whoever asks. Every such response has ``Vary: Cookie`` (and the
API's ``Authorization, Accept``), so a shared cache never hands a signed-in answer to anyone else.

Compression: responses that hold no secret are gzipped (the API's and the exports' JSON and
CSV, and the anonymous page, which has no form). A signed-in page holds a CSRF token beside text
a reader can choose (the query string in the log-in link): it is sent uncompressed (BREACH).
"""

from __future__ import annotations

import hashlib
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponseBase
from django.middleware.gzip import GZipMiddleware
from django.utils.cache import get_conditional_response, patch_cache_control, patch_vary_headers
from django.utils.timesince import timeuntil

from leaderboard.challenges.models import Phase
from leaderboard.challenges.visibility import access

#: Bump when a release changes what a board response looks like for the same board version.
RELEASE = 1


def public(phase: Phase, user: Any) -> bool:
    """Whether a shared cache may keep the answer: an anonymous reader of a visible board."""
    return not user.is_authenticated and access(phase, user).board


def etag(phase: Phase, user: Any, *variant: object, served: str | None = None) -> str:
    """The validator of a board response for ``user``: the board's version, the phase's state,
    what ``user`` may see, and ``variant`` (the view's own choices: format, page, query).

    ``served``: the version of the board the response is made from, when it is known and may
    not be the phase's (``services.served_version``)."""
    rights = access(phase, user)
    seen = "".join(
        "1" if r else "0"
        for r in (rights.organiser, rights.board, rights.snapshots, rights.own_full)
    )
    who = f"user{user.pk}" if user.is_authenticated else "anonymous"
    version = phase.board_version if served is None else served
    parts = [RELEASE, phase.pk, version, phase.state, seen, who, *variant]
    digest = hashlib.sha256(":".join(map(str, parts)).encode()).hexdigest()[:32]
    return f'"{digest}"'


def countdown(phase: Phase) -> str:
    """The page's countdown as it reads now ("closes in 2 days, 3 hours"): part of the page's
    validator, so a page kept by the browser never shows an old countdown."""
    if phase.state == "open":
        return timeuntil(phase.closes_at)
    return timeuntil(phase.opens_at) if phase.state == "upcoming" else ""


def not_modified(request: HttpRequest, tag: str) -> HttpResponseBase | None:
    """The 304 (or 412) that answers ``request`` when it already holds ``tag``, else None."""
    return get_conditional_response(request, etag=tag)


def finish(
    request: HttpRequest,
    response: HttpResponseBase,
    *,
    tag: str,
    shared: bool,
    vary: tuple[str, ...] = (),
    compress: bool = True,
) -> HttpResponseBase:
    """Set the validator, ``Cache-Control`` and ``Vary`` of a board response (a 304 too), then
    compress it if ``compress`` and the client accepts gzip."""
    response["ETag"] = tag
    if shared:
        patch_cache_control(
            response,
            public=True,
            max_age=settings.LEADERBOARD_MAX_AGE,
            stale_while_revalidate=settings.LEADERBOARD_STALE_SECONDS,
        )
    else:
        # the browser keeps it for itself and asks again every time (a 304 when unchanged)
        patch_cache_control(response, private=True, no_cache=True, max_age=0)
    patch_vary_headers(response, ("Cookie", *vary))
    if compress and response.status_code == 200:
        response = GZipMiddleware(lambda r: response).process_response(request, response)
    return response
