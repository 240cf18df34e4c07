"""The leaderboard page of a phase (``?fragment=1`` returns only its tables, for polling), the
published snapshots, the reveal's preview and confirmation, and the exports. Every view asks
``challenges.visibility.access`` what this user may see."""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.core.cache import cache
from django.core.serializers.json import DjangoJSONEncoder
from django.db.models import Max
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.cache import add_never_cache_headers, patch_vary_headers
from django.utils.safestring import mark_safe
from django.views.decorators.clickjacking import xframe_options_exempt
from django.views.decorators.http import require_http_methods

from leaderboard.analyses import exports
from leaderboard.analyses.crossteam import may_see
from leaderboard.analyses.views import snapshot_number
from leaderboard.challenges import announcements
from leaderboard.challenges.announcements import Announcement
from leaderboard.challenges.factors import second_factor_required
from leaderboard.challenges.models import Phase
from leaderboard.challenges.visibility import Access, access, phase_or_404
from leaderboard.rankings import caching, pages
from leaderboard.rankings.board import Leaderboard
from leaderboard.rankings.boards import Stored, stored
from leaderboard.rankings.charts import CHART_LIMIT
from leaderboard.rankings.facts import declared_facts, filtered
from leaderboard.rankings.facts import filters as fact_filters
from leaderboard.rankings.snapshots import RevealError, latest, load, preview, reveal

#: Seconds between two refreshes of the tables by the page's script (a 304 when unchanged),
#: while the phase is open; a closed phase's board changes seldom (a re-score, a reveal).
REFRESH_SECONDS = 1
REFRESH_CLOSED_SECONDS = 10
#: Rows of each table on the page; ``?all=1`` shows every row.
TABLE_LIMIT = 20
#: Rows of each table of the embeddable board.
EMBED_LIMIT = 10


def phase_leaderboard(request: HttpRequest, slug: str, phase: str) -> HttpResponseBase:
    """The page (or with ``?fragment=1`` its tables), from the stored public board; each table
    lists the first ``TABLE_LIMIT`` rows unless ``?all=1``. The fragment is the same for
    every viewer with the same rights, so it is revalidated (304) for everyone; the whole page
    only for anonymous readers, whose page is kept whole in the cache per stored board
    (``caching.respond``)."""
    user = request.user
    selected = phase_or_404(slug, phase, user)
    fragment = request.GET.get("fragment") == "1"
    show_all = request.GET.get("all") == "1"
    rights = access(selected, user)
    if not fragment and (user.is_authenticated or len(messages.get_messages(request))):
        # the reader's name, a CSRF token or messages: never kept, never compressed
        found = stored(selected) if rights.board else None
        response = _page(request, selected, rights, show_all, found)
        add_never_cache_headers(response)
        return response
    return caching.respond(
        request,
        selected,
        lambda found: _page(request, selected, rights, show_all, found),
        variant=("page", fragment, show_all, caching.countdown(selected), request.get_full_path()),
        # kept for the addresses the page links to, not for any query string a reader invents
        keep=set(request.GET) <= {"fragment", "all"},  # a filtered board is not kept
        rights=rights,
    )


@xframe_options_exempt
def embed(request: HttpRequest, slug: str, phase: str) -> HttpResponseBase:
    """The embeddable public board: each condition's first ``EMBED_LIMIT`` rows (rank, team,
    the primary metric), no navigation, framed only by the sites the challenge lists
    (``Challenge.embed_origins``; none: ``frame-ancestors 'none'`` as everywhere else). It is
    the public board whoever asks (a framed page gets no cookies from another site anyway), so
    it goes through the same conditional GET and shared cache as the page."""
    selected = phase_or_404(slug, phase)
    challenge = selected.challenge
    ancestors = challenge.frame_ancestors()

    def make(found: Stored | None) -> HttpResponse:
        board = found.board if found is not None else None
        columns = board.columns if board is not None else ()
        context = {
            "phase": selected,
            "challenge": challenge,
            "primary": challenge.scoring_task().metric(challenge.primary),
            "visible": found is not None,
            "board": board,
            "stored": found,
            "embedded": pages.embed_tables(board, EMBED_LIMIT) if board is not None else (),
            "description": (
                f"The {selected.name} leaderboard of {challenge.title}, embedded: each team's "
                "scores with confidence intervals."
            ),
            # the ranked column: first or second of the board's (``rankings.board.columns``)
            "label": next((c.label for c in columns if c.primary), ""),
        }
        return render(request, "rankings/embed.html", context)

    response = caching.respond(
        request,
        selected,
        make,
        # the sites allowed are part of the answer (its header): a new list, a new validator
        variant=("embed", ancestors),
        keep=not request.GET,
    )
    policy = re.sub(r"\s*frame-ancestors [^;]*;?", "", settings.CONTENT_SECURITY_POLICY)
    response["Content-Security-Policy"] = f"{policy.rstrip('; ')}; frame-ancestors {ancestors}"
    if ancestors == "'none'":
        response["X-Frame-Options"] = "DENY"
    return response


def _page(
    request: HttpRequest, selected: Phase, rights: Access, show_all: bool, found: Stored | None
) -> HttpResponse:
    """The page (or its tables) of the stored public board ``found`` (None: not visible), for
    a viewer with ``rights``."""
    snapshot = latest(selected) if rights.snapshots and selected.revealed else None
    board = found.board if found is not None else None
    asked: dict[str, str] = {}
    if board is not None:
        # a filter shows the rows of the submissions that declared these values, each with
        # its rank on the whole board; a filter the board does not have is left out
        asked = fact_filters(board, request.GET)[0]
        board = filtered(board, asked)
    refresh = REFRESH_SECONDS if selected.state == "open" else REFRESH_CLOSED_SECONDS
    context = {
        "phase": selected,
        "challenge": selected.challenge,
        "visible": rights.board,
        "board": board,
        "stored": found,
        "snapshot": snapshot,
        "final": pages.final_summary(load(snapshot)) if snapshot is not None else None,
        "reported": pages.reported(board) if board is not None else (),
        "withdrawn": pages.withdrawn(board),
        "refresh_seconds": refresh,
        "refresh_every": "second" if refresh == 1 else f"{refresh} seconds",
        "refresh_url": f"{request.path}?fragment=1{'&all=1' if show_all else ''}",
        "table_limit": None if show_all else TABLE_LIMIT,
        "show_all": show_all,
        "facts": declared_facts(board) if board is not None else (),
        "fact_filters": asked,
        "description": (
            f"The {selected.name} leaderboard of {selected.challenge.title}: each team's scores "
            "with confidence intervals and rank intervals."
        ),
    }
    # when the board was built and whether a newer one is coming, then the tables, which do
    # not depend on it (a change marks the board behind without rendering its tables again)
    context["tables_html"] = render_to_string("rankings/_built.html", context) + _tables_html(
        context
    )
    if request.GET.get("fragment") == "1":
        return HttpResponse(context["tables_html"])
    context["header"] = _header_html(
        selected,
        rights,
        signed_in=request.user.is_authenticated,
        published=snapshot is not None,
        several_conditions=board is not None and len(board.conditions) > 1,
    )
    return render(request, "rankings/leaderboard.html", context)


#: Where ``rankings/_header.html`` leaves the countdown, which the page renders per request.
_COUNTDOWN = "<!--countdown-->"
#: The phase's fields not shown by any page: ``board_version`` moves with every result.
_UNSHOWN = frozenset({"board_version"})


def _header_html(
    selected: Phase, rights: Access, *, signed_in: bool, published: bool, several_conditions: bool
) -> tuple[str, str]:
    """The page's header (``rankings/_header.html``: breadcrumbs, the phase's state and dates,
    the ranking's wording, the links), before and after the countdown, rendered once and kept
    beside the tables. The countdown ("closes in 3 hours") is left to the page, rendered per
    request; nothing of the reader is in the header's context, so nothing of theirs is kept.

    The header is rendered from its context alone, and the key is everything that context is
    made of: every field of the phase and its challenge (edited in the admin without a new
    stored board), the phase's state now (dates move it without a write), each of the viewer's
    rights (``Access``: an organiser's links are never kept for a participant), whether a reader
    is signed in, whether a final ranking is published and whether the board has several
    conditions.
    """
    challenge = selected.challenge
    values = [
        (f.attname, getattr(row, f.attname))
        for row in (selected, challenge)
        for f in type(row)._meta.concrete_fields
        if f.attname not in _UNSHOWN
    ]
    shown = hashlib.sha256(repr(values).encode()).hexdigest()[:32]
    seen = "".join("1" if r else "0" for r in vars(rights).values())
    flags = "".join("1" if f else "0" for f in (signed_in, published, several_conditions))
    key = caching.cache_key("header", selected.pk, shown, selected.state, seen, flags)
    kept = cache.get(key)
    if kept is None:
        task = challenge.scoring_task()
        context = {
            "phase": selected,
            "challenge": challenge,
            "header": pages.header(
                selected,
                primary=task.metric(challenge.primary),
                tiebreak=task.metric(challenge.tiebreak),
                several_conditions=several_conditions,
                signed_in=signed_in,
                visible=rights.board,
                organiser=rights.organiser,
            ),
            "countdown": mark_safe(_COUNTDOWN),
        }
        before, found, after = render_to_string("rankings/_header.html", context).partition(
            _COUNTDOWN
        )
        if not found:
            raise ValueError("rankings/_header.html leaves no place for the countdown")
        kept = (before, after)
        cache.set(key, kept, settings.LEADERBOARD_CACHE_SECONDS)
    return kept


def _tables_html(context: dict[str, Any]) -> str:
    """The tables and chart data of the stored board, rendered once per stored board.

    The partial depends on nothing but the stored board and whether every row is shown (no
    user, no request), and a page of 500 teams takes ~20 ms to render: every reader after
    the first gets the cached HTML, and a new board is a new entry.
    """
    found = context["stored"]
    if not isinstance(found, Stored) or not found.built or context["fact_filters"]:
        return render_to_string("rankings/tables.html", _with_tables(context))
    rows = "all" if context["show_all"] else context["table_limit"]
    key = caching.cache_key("tables", found.identity, rows)
    html = cache.get(key)
    if html is None:
        html = render_to_string("rankings/tables.html", _with_tables(context))
        cache.set(key, html, settings.LEADERBOARD_CACHE_SECONDS)
    return str(html)


def _with_tables(context: dict[str, Any]) -> dict[str, Any]:
    """``context`` with what ``rankings/tables.html`` prints of its board (``pages.tables``;
    None when the reader may not see it)."""
    board = context["board"]
    found = context.get("stored")
    shown = None
    if context["visible"] and isinstance(board, Leaderboard):
        shown = pages.tables(
            board,
            facts=context.get("facts") or (),
            asked=context.get("fact_filters") or {},
            table_limit=context["table_limit"],
            chart_limit=CHART_LIMIT,
            built=found is None or bool(getattr(found, "built", True)),
            has_split=context["phase"].has_split,
        )
    return {**context, "tables": shown}


def snapshots(request: HttpRequest, slug: str, phase: str) -> HttpResponse:
    """The published snapshots, newest first; before a reveal (or for whoever may not see
    them yet) the page says that nothing is published, rather than answering 404."""
    selected = phase_or_404(slug, phase, request.user)
    published = access(selected, request.user).snapshots
    found = list(selected.snapshots.order_by("-number")) if published else []
    context = {
        "phase": selected,
        "challenge": selected.challenge,
        "snapshots": found,
        "nothing": "" if found else pages.nothing_published(selected),
        "description": (
            f"The published final rankings of the {selected.name} phase of "
            f"{selected.challenge.title}."
        ),
    }
    return render(request, "rankings/snapshots.html", context)


def snapshot(request: HttpRequest, slug: str, phase: str, number: int) -> HttpResponse:
    """The permalink of one published snapshot: the same tables and charts, frozen."""
    selected = phase_or_404(slug, phase, request.user)
    if not access(selected, request.user).snapshots:
        raise Http404
    found = get_object_or_404(selected.snapshots, number=number)
    board = load(found)
    context = {
        "phase": selected,
        "challenge": selected.challenge,
        "snapshot": found,
        "board": board,
        "withdrawn": pages.withdrawn(board),
        "description": (
            f"Final ranking #{found.number} of the {selected.name} phase of "
            f"{selected.challenge.title}, as published."
        ),
        "visible": True,
        "on_part": pages.private_part(selected, "; "),
        # the paper tables and analyses of this snapshot; the cross-team error analysis for
        # whoever may have it
        "links": pages.snapshot_links(
            selected,
            found.number,
            several=len(board.conditions) > 1,
            errors=may_see(selected, request.user),
        ),
        "table_limit": None,
    }
    return render(request, "rankings/snapshot.html", _with_tables(context))


@second_factor_required
@require_http_methods(["GET", "POST"])
def reveal_phase(request: HttpRequest, slug: str, phase: str) -> HttpResponse:
    """Organisers only: the private board exactly as it would be published (GET), and its
    publication once confirmed from that preview (POST, with the preview's fingerprint)."""
    selected = phase_or_404(slug, phase, request.user)
    if not access(selected, request.user).organiser:
        raise Http404
    if request.method == "POST":
        expected = request.POST.get("fingerprint", "")
        if not expected:
            messages.error(request, "Nothing was published: preview the ranking first.")
            return redirect("rankings:reveal", selected.challenge.slug, selected.slug)
        try:
            published = reveal(selected, request.user, expected=expected)
        except RevealError as exc:
            messages.error(request, str(exc))
            return redirect("rankings:reveal", selected.challenge.slug, selected.slug)
        announced = ""
        if request.POST.get("announce") == "yes":
            final = _announce_final_results(selected, published.number, request.user)
            announced = f" The announcement {final.title!r} is posted and being mailed."
        messages.success(
            request,
            f"Published snapshot {published.number} of {selected.name}: this final ranking is "
            "now public at this permanent address and on the phase's leaderboard page, and "
            "every team sees its private scores. Later re-scores do not change it; publishing "
            f"again adds a new snapshot.{announced}",
        )
        return redirect(
            "rankings:snapshot", selected.challenge.slug, selected.slug, published.number
        )
    shown = preview(selected)
    context = {
        "phase": selected,
        "challenge": selected.challenge,
        "board": shown.board,
        "stored": shown.stored,
        "fingerprint": shown.fingerprint,
        "on_part": pages.private_part(selected, ", "),
        "description": (
            f"A preview of the final ranking of the {selected.name} phase of "
            f"{selected.challenge.title}, before it is published."
        ),
        "ready": shown.ready,
        "number": (selected.snapshots.aggregate(n=Max("number"))["n"] or 0) + 1,
        "can_publish": selected.state in ("closed", "revealed") and shown.ready,
        "visible": True,
        "table_limit": None,
    }
    return render(request, "rankings/reveal.html", _with_tables(context))


def _announce_final_results(phase: Phase, number: int, user: Any) -> Announcement:
    """The "final results" announcement of a reveal: the published snapshot's permanent
    address on the site's public address, mailed to every registered team."""
    link = settings.SITE_URL + reverse(
        "rankings:snapshot", args=[phase.challenge.slug, phase.slug, number]
    )
    body = (
        f"The final ranking of {phase.name} is published (snapshot {number}); every team "
        f"now sees its private scores:\n\n<{link}>"
    )
    return announcements.post(
        phase.challenge, title=f"{phase.name}: final results", body=body, author=user, mail=True
    )


def export_json(request: HttpRequest, slug: str, phase: str) -> HttpResponseBase:
    selected = phase_or_404(slug, phase, request.user)
    return _export(request, selected, "json")


def export_csv(request: HttpRequest, slug: str, phase: str) -> HttpResponseBase:
    selected = phase_or_404(slug, phase, request.user)
    return _export(request, selected, "csv")


#: What the exports answer a reader who may not see the board, as the page says it.
HIDDEN = "Results are hidden until the organisers reveal them."


def _not_found(request: HttpRequest, message: str) -> HttpResponse:
    """A 404 that says why, never kept by any cache (it depends on who asks)."""
    response = render(request, "404.html", {"status": 404, "message": message}, status=404)
    add_never_cache_headers(response)
    patch_vary_headers(response, ("Cookie",))
    return response


def _export(request: HttpRequest, selected: Phase, kind: str) -> HttpResponseBase:
    """The reader export: what this viewer's rights show, revalidated by the stored board
    (``caching.respond``). A reader who may not see the board (a hidden phase before the
    reveal) gets a 404 that says so, not a file of headers. ``?snapshot=N`` puts published
    snapshot N of the phase where the latest would be, as the paper tables and the analyses
    take it (``analyses.views.snapshot_number``): a 404 for a snapshot this reader may not
    see, one of no snapshot of this phase, or a value that is no snapshot's number."""
    rights = access(selected, request.user)
    if not rights.board:
        return _not_found(request, HIDDEN)
    number = snapshot_number(request.GET)
    chosen = None
    if number is not None:
        chosen = selected.snapshots.filter(number=number).first() if rights.snapshots else None
        if chosen is None:
            return _not_found(
                request, f"There is no published snapshot {number} of {selected.name} you may see."
            )

    def make(found: Stored | None) -> HttpResponse:
        data = exports.reader_export(selected, request.user, found, snapshot=chosen)
        if kind == "json":
            text = json.dumps(data, cls=DjangoJSONEncoder, indent=1)
            response = HttpResponse(text, content_type="application/json")
        else:
            text = exports.reader_csv(data)
            response = HttpResponse(text, content_type="text/csv; charset=utf-8")
        name = f"{selected.challenge.slug}-{selected.slug}-leaderboard.{kind}"
        response["Content-Disposition"] = f'attachment; filename="{name}"'
        return response

    return caching.respond(
        request, selected, make, variant=(kind, number), cors=True, rights=rights
    )


@second_factor_required
def export_archive(request: HttpRequest, slug: str, phase: str) -> HttpResponse:
    """Organisers only: every Result, signature and the per-dialogue correctness matrix."""
    selected = phase_or_404(slug, phase, request.user)
    if not access(selected, request.user).organiser:
        raise Http404
    response = HttpResponse(
        json.dumps(exports.archive(selected), cls=DjangoJSONEncoder),
        content_type="application/json",
    )
    response["Content-Disposition"] = f'attachment; filename="{slug}-{phase}-archive.json"'
    add_never_cache_headers(response)
    return response
