"""``manage.py add_organiser CHALLENGE USERNAME [--email ADDRESS] [--remove]``: make a user an
organiser of one challenge: staff status (the admin), the "Organisers" group (its
permissions) and the challenge's organisers list. With ``--email`` a user that does not exist
yet is created without a usable password (they set one on the password-reset page).
``--remove`` takes the challenge away again (and the group and staff status when they
organise no other challenge)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction

from leaderboard.challenges import roles
from leaderboard.challenges.models import Challenge

ACTOR = "operator (add_organiser)"


class Command(BaseCommand):
    help = "Make a user an organiser of one challenge (staff, Organisers group, listed)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("challenge", help="the challenge's slug")
        parser.add_argument("username")
        parser.add_argument("--email", default="", help="create the user with this address")
        parser.add_argument("--remove", action="store_true", help="no longer an organiser")

    def handle(self, *args: Any, **options: Any) -> None:
        challenge = Challenge.objects.filter(slug=options["challenge"]).first()
        if challenge is None:
            raise CommandError(f"no challenge {options['challenge']!r}")
        User = get_user_model()
        user = User.objects.filter(username=options["username"]).first()
        with transaction.atomic():
            if options["remove"]:
                if user is None:
                    raise CommandError(f"no user {options['username']!r}")
                roles.revoke(challenge, user, actor_name=ACTOR)
                self.stdout.write(f"{user.username} no longer organises {challenge.slug}")
                return
            if user is None:
                if not options["email"]:
                    raise CommandError(
                        f"no user {options['username']!r}; give --email to create one"
                    )
                user = User.objects.create_user(
                    username=options["username"], email=options["email"], password=None
                )
            roles.grant(challenge, user, actor_name=ACTOR)
        self.stdout.write(
            f"{user.username} organises {challenge.slug}: staff, in the {roles.GROUP} group"
        )
