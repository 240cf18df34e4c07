"""``manage.py rescore --challenge SLUG [--phase SLUG] [--condition KEY] [--include-failed]
[--now]``: score every scored submission again (after a scorer version change or a reference
fix), and with ``--include-failed`` every failed one too. The new Results are new rows; the
old ones stay with their signatures, no longer current."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from leaderboard.challenges.models import Challenge
from leaderboard.submissions import services


class Command(BaseCommand):
    help = "Re-score the scored submissions of a challenge, phase or condition."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--challenge", required=True)
        parser.add_argument("--phase", default="")
        parser.add_argument("--condition", default="", help="a condition key (needs --phase)")
        parser.add_argument(
            "--include-failed",
            action="store_true",
            help="queue failed submissions again too (they stay uncharged)",
        )
        parser.add_argument(
            "--now", action="store_true", help="score in this process instead of the workers"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        challenge = Challenge.objects.filter(slug=options["challenge"]).first()
        if challenge is None:
            raise CommandError(f"no challenge {options['challenge']!r}")
        scope: dict[str, Any] = {
            "challenge": challenge,
            "include_failed": options["include_failed"],
        }
        phase = None
        if options["phase"]:
            phase = challenge.phases.filter(slug=options["phase"]).first()
            if phase is None:
                raise CommandError(f"{challenge.slug} has no phase {options['phase']!r}")
            scope["phase"] = phase
        if options["condition"]:
            if phase is None:
                raise CommandError("--condition needs --phase")
            condition = phase.conditions.filter(key=options["condition"]).first()
            if condition is None:
                raise CommandError(f"{phase.slug} has no condition {options['condition']!r}")
            scope["condition"] = condition
        if options["now"]:
            # Nothing is sent to the broker: requeue, then score here, one by one.
            ids = services.rescore_all(**scope, enqueue=False, actor_name="operator (rescore)")
            outcomes = [services.run_scoring(pk) for pk in ids]
            self.stdout.write(f"re-scored {outcomes.count('scored')} of {len(ids)} submission(s)")
        else:
            ids = services.rescore_all(**scope, actor_name="operator (rescore)")
            self.stdout.write(f"queued {len(ids)} submission(s) for re-scoring")
