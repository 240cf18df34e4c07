from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from leaderboard.challenges.models import Phase
from leaderboard.rankings import builds


class Command(BaseCommand):
    help = (
        "Build the boards of every phase (or of the phases given) that are behind, in this "
        "process, as the board's worker task does: after a restore, or to see a board now."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("phases", nargs="*", type=int, help="phase ids (default: all)")

    def handle(self, *args: Any, **options: Any) -> None:
        ids = options["phases"] or list(Phase.objects.values_list("pk", flat=True))
        built = sum(builds.build(pk) for pk in ids)
        self.stdout.write(f"{built} board(s) built for {len(ids)} phase(s)")
