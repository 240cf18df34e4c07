"""``manage.py backup_challenge SLUG OUT.zip``: a challenge's rows and private files in a zip."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from leaderboard.operations.backup import BackupError, backup_challenge


class Command(BaseCommand):
    help = "Back up one challenge (database rows and private files) to a zip file."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("slug", help="the challenge's slug")
        parser.add_argument("out", type=Path, help="the zip file to write")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            counts = backup_challenge(options["slug"], options["out"])
        except BackupError as exc:
            raise CommandError(str(exc)) from None
        summary = ", ".join(f"{n} {label}" for label, n in counts.items())
        self.stdout.write(f"wrote {options['out']}: {summary}")
