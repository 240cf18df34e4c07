"""A challenge's announcements as an Atom feed (``challenges/<slug>/announcements.atom``),
linked from the challenge's page: public as the page is, newest first, each entry's content
the announcement rendered as the page renders it (sanitised)."""

from __future__ import annotations

import datetime as dt

from django.contrib.syndication.views import Feed
from django.http import HttpRequest
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.utils.feedgenerator import Atom1Feed

from leaderboard.challenges import announcements
from leaderboard.challenges.announcements import Announcement
from leaderboard.challenges.models import Challenge
from leaderboard.challenges.pages import render

#: the newest entries the feed holds (a reader keeps the older ones it has read)
ENTRIES = 50


class AnnouncementFeed(Feed):
    feed_type = Atom1Feed

    def get_object(self, request: HttpRequest, slug: str) -> Challenge:
        return get_object_or_404(Challenge, slug=slug)

    def title(self, challenge: Challenge) -> str:
        return f"{challenge.title}: announcements"

    def subtitle(self, challenge: Challenge) -> str:
        return f"What the organisers of {challenge.title} announce, newest first."

    def link(self, challenge: Challenge) -> str:
        return reverse("challenges:detail", args=[challenge.slug])

    def feed_url(self, challenge: Challenge) -> str:
        return reverse("challenges:announcements_feed", args=[challenge.slug])

    def author_name(self, challenge: Challenge) -> str:
        return f"The organisers of {challenge.title}"

    def items(self, challenge: Challenge) -> list[Announcement]:
        return list(announcements.of(challenge).select_related("challenge")[:ENTRIES])

    def item_title(self, item: Announcement) -> str:
        return item.title

    def item_description(self, item: Announcement) -> str:
        return render(item.body)

    def item_link(self, item: Announcement) -> str:
        return item.path()

    def item_guid(self, item: Announcement) -> str:
        return f"tag:trackboard,announcement:{item.challenge.slug}:{item.pk}"

    def item_pubdate(self, item: Announcement) -> dt.datetime:
        return item.posted_at

    def item_updateddate(self, item: Announcement) -> dt.datetime:
        return item.posted_at
