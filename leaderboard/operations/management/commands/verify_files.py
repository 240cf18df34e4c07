"""``manage.py verify_files``: every stored reference file (gold and extra files) and prediction
file matches its sha256.

Prints one line per missing or altered file and exits with status 1 when there is any.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from leaderboard.operations.verify import verify_files


class Command(BaseCommand):
    help = (
        "Check every stored reference file (gold and extra files) and prediction file against "
        "its recorded sha256."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        checked, problems = verify_files()
        for problem in problems:
            self.stdout.write(str(problem))
        if problems:
            raise CommandError(
                f"{len(problems)} of {checked} stored files are missing or altered", returncode=1
            )
        self.stdout.write(f"{checked} stored files match their sha256")
