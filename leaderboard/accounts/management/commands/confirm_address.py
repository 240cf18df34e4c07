"""``manage.py confirm_address USERNAME...``: count these accounts' current e-mail addresses as
confirmed, as if their owners had opened the mailed link (for an operator who checked the
address another way, e.g. a participant whose mail server drops the site's mail)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from leaderboard.accounts.services import confirm


class Command(BaseCommand):
    help = "Count the accounts' current e-mail addresses as confirmed."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("usernames", nargs="+", metavar="USERNAME")

    def handle(self, *args: Any, **options: Any) -> None:
        users = get_user_model().objects
        for username in options["usernames"]:
            user = users.filter(username=username).first()
            if user is None:
                raise CommandError(f"No account {username!r}.")
            if not user.email:
                raise CommandError(f"{username} has no e-mail address to confirm.")
            confirm(user)
            self.stdout.write(f"{username}: {user.email} confirmed")
