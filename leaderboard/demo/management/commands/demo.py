from __future__ import annotations

from typing import Any

from django.core.management import call_command
from django.core.management.base import BaseCommand

from leaderboard.demo import dev_reference, dstc11, other_tasks


class Command(BaseCommand):
    help = (
        "Create the demo challenges (DSTC11, MultiWOZ 2.2, DVD-DST), accounts and scored "
        "submissions (safe to run again)."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        challenge = dstc11.build(stdout=self.stdout)
        other_tasks.build(stdout=self.stdout)
        # a public development reference each, so that a first local score takes a minute
        dev_reference.ship_all()
        # the boards, as the board's worker builds them, so the first reader finds them
        call_command("build_boards", verbosity=0, stdout=self.stdout)
        self.stdout.write(self.style.SUCCESS(f"demo challenge: {challenge.slug}"))
        self.stdout.write(f"  also: {other_tasks.MULTIWOZ_SLUG} and {other_tasks.DVD_SLUG}")
        # scripts/run prints them in its own banner, last (-v 0): each line once
        if options["verbosity"] >= 1:
            for username, password, role in dstc11.logins():
                self.stdout.write(f"  login {username} / {password}  ({role})")
