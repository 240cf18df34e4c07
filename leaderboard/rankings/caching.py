"""HTTP caching of the board responses (the leaderboard page and its tables, the reader
exports, the API's board): their one conditional GET (``respond``), validator, ``Cache-Control``,
``Vary`` and compression, and every key under which a rendered board response is kept.

What a board response shows is a function of the stored board it is made from (its version,
and whether the phase has changed since: then the page says a newer board is on its way), the
phase's state (dates move it from open to closed without a write) and what the viewer may see
(``challenges.visibility``). That is the validator (``ETag``): a conditional GET of an
unchanged board answers 304 after two small queries (the phase's, the stored board's version),
whatever process built the board. A response is made from the stored board read after its
version (``boards.stored``), which can only be as new or newer: its validator is the board's
own, so a client's copy is never confirmed for a board it does not hold. There is no
``Last-Modified``: the version already says whether the board changed.

``Cache-Control``: anonymous readers of a board they may see (a public or revealed phase) get
``public, max-age=..., stale-while-revalidate=...``, so a proxy or CDN may answer them. Anything
else is ``private``: signed-in readers (their name and a CSRF token are on the page, organisers
see more), and hidden phases, whoever asks. Every such response has ``Vary: Cookie`` (and the
API's ``Authorization, Accept``), so a shared cache never hands a signed-in answer to anyone else.

CORS: the reader exports and the API's board are open to pages of any site (``cors``): a
public answer (the one a shared cache may keep) carries ``Access-Control-Allow-Origin: *``,
without ``Allow-Credentials``, so a browser hands another site only what any anonymous reader
gets, and never an answer made for a signed-in reader's cookies.

Compression: responses that hold no secret are gzipped (the API's and the exports' JSON and
CSV, and the anonymous page, which has no form). A signed-in page holds a CSRF token beside text
a reader can choose (the query string in the log-in link): it is sent uncompressed (BREACH).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest, HttpResponseBase
from django.middleware.gzip import GZipMiddleware
from django.utils.cache import get_conditional_response, patch_cache_control, patch_vary_headers
from django.utils.timesince import timeuntil

from leaderboard.challenges.models import Phase
from leaderboard.challenges.visibility import Access, access
from leaderboard.rankings.boards import State, Stored, state, stored

#: Part of every key and validator: bump it when a release changes what a board response
#: looks like for the same stored board.
RELEASE = 2


def cache_key(what: str, *parts: object) -> str:
    """The key of a rendered board response kept in the cache: ``what`` it is and what it
    depends on (a validator, or a stored board's row and version)."""
    return ":".join(["board", str(RELEASE), what, *map(str, parts)])


def public(user: Any, rights: Access) -> bool:
    """Whether a shared cache may keep the answer: an anonymous reader of a visible board
    (``rights``: what ``user`` may see of the phase)."""
    return not user.is_authenticated and rights.board


def etag(phase: Phase, user: Any, rights: Access, board: State | None, *variant: object) -> str:
    """The validator of a board response for ``user``: the stored ``board`` it shows (None:
    no board, for whoever may not see it), the phase's state, what ``user`` may see
    (``rights``), and ``variant`` (the view's own choices: format, page, query)."""
    seen = "".join(
        "1" if r else "0"
        for r in (rights.organiser, rights.board, rights.snapshots, rights.own_full)
    )
    who = f"user{user.pk}" if user.is_authenticated else "anonymous"
    shown = "none" if board is None else f"{board.identity}:{int(board.behind)}"
    parts = [RELEASE, phase.pk, shown, phase.state, seen, who, *variant]
    digest = hashlib.sha256(":".join(map(str, parts)).encode()).hexdigest()[:32]
    return f'"{digest}"'


def respond(
    request: HttpRequest,
    phase: Phase,
    make: Callable[[Stored | None], HttpResponseBase],
    *,
    variant: tuple[object, ...],
    keep: bool = False,
    shareable: bool = True,
    vary: tuple[str, ...] = (),
    compress: bool = True,
    cors: bool = False,
    rights: Access | None = None,
) -> HttpResponseBase:
    """Every board response's conditional GET: 304 when the client holds the validator of
    the stored public board this viewer would be shown, else ``make(stored)`` (None for a
    viewer who may not see the board), finished by ``finish``. With ``keep``, the response
    made is kept in the cache under its validator, and the next reader of the same board with
    the same rights gets it without loading the board (for addresses the pages link to, never
    a query string a reader invents: the caller decides). ``shareable=False``: never for a
    shared cache, whoever asks. ``cors``: a public answer may be read by pages of any site.
    ``rights``: what the viewer may see of the phase, when the caller has asked already."""
    user = request.user
    rights = access(phase, user) if rights is None else rights
    known = state(phase) if rights.board else None
    tag = etag(phase, user, rights, known, *variant)
    response: HttpResponseBase | None = get_conditional_response(request, etag=tag)
    if response is None:
        response = cache.get(cache_key("response", tag)) if keep else None
        if response is None:
            found = None if known is None else stored(phase, known=known)
            if found is not None and known is not None and found.identity != known.identity:
                tag = etag(phase, user, rights, found, *variant)  # built since ``known`` was read
            response = make(found)
            if keep and response.status_code == 200:
                cache.set(cache_key("response", tag), response, settings.LEADERBOARD_CACHE_SECONDS)
    shared = shareable and public(user, rights)
    return finish(
        request, response, tag=tag, shared=shared, vary=vary, compress=compress, cors=cors
    )


def countdown(phase: Phase) -> str:
    """The page's countdown as it reads now ("closes in 2 days, 3 hours"): part of the page's
    validator, so a page kept by the browser never shows an old countdown."""
    if phase.state == "open":
        return timeuntil(phase.closes_at)
    return timeuntil(phase.opens_at) if phase.state == "upcoming" else ""


def finish(
    request: HttpRequest,
    response: HttpResponseBase,
    *,
    tag: str,
    shared: bool,
    vary: tuple[str, ...] = (),
    compress: bool = True,
    cors: bool = False,
) -> HttpResponseBase:
    """Set the validator, ``Cache-Control`` and ``Vary`` of a board response (a 304 too), with
    ``cors`` the CORS header of a shared one, then compress it if ``compress`` and the client
    accepts gzip."""
    response["ETag"] = tag
    if cors and shared:
        response["Access-Control-Allow-Origin"] = "*"
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
