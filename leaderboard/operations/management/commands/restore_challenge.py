"""``manage.py restore_challenge IN.zip``: restore a ``backup_challenge`` archive.

Refuses when a challenge with the backup's slug exists (nothing is overwritten).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from leaderboard.operations.backup import BackupError, restore_challenge


class Command(BaseCommand):
    help = "Restore a challenge from a backup_challenge zip file."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("archive", type=Path, help="the zip file to read")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            counts = restore_challenge(options["archive"])
        except BackupError as exc:
            raise CommandError(str(exc)) from None
        summary = ", ".join(f"{n} {label}" for label, n in counts.items())
        self.stdout.write(f"restored {options['archive']}: {summary}")
