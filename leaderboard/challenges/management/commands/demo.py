from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from leaderboard.challenges import demo


class Command(BaseCommand):
    help = "Create the demo challenge, accounts and scored submissions (safe to run again)."

    def handle(self, *args: Any, **options: Any) -> None:
        challenge = demo.build(stdout=self.stdout)
        self.stdout.write(self.style.SUCCESS(f"demo challenge: {challenge.slug}"))
        for username, password, role in demo.logins():
            self.stdout.write(f"  login {username} / {password}  ({role})")
