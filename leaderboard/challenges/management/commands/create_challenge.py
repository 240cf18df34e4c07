"""``manage.py create_challenge CONFIG [--dry-run]``: check a challenge's YAML or JSON file
(every key and value, every reference with the scorer), print what it holds and, unless
``--dry-run``, create it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

import scoring
from leaderboard.challenges import roles
from leaderboard.challenges.config import (
    ConfigError,
    Plan,
    check_config,
    create_challenge,
    load_config,
)


class Command(BaseCommand):
    help = "Create a challenge, its phases, conditions and references from a YAML or JSON file."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path", type=Path)
        parser.add_argument(
            "--dry-run",
            action="store_true",
            help="check the file and print what would be created; write nothing",
        )

    def handle(self, *args: Any, path: Path, **options: Any) -> None:
        path = path.resolve()
        if not path.is_file():
            raise CommandError(f"no such file: {path}")
        try:
            config = load_config(path)
            plan = check_config(config, path.parent)
            if not options["dry_run"]:
                create_challenge(config, path.parent, plan)
        except (ConfigError, scoring.ScoringError) as exc:
            raise CommandError(f"{path.name}: nothing was created:\n{exc}") from exc
        self.dry_run = bool(options["dry_run"])
        self._summary(plan)
        if options["dry_run"]:
            self.stdout.write(f"dry run: {path.name} is valid; nothing was written")
        else:
            self.stdout.write(
                self.style.SUCCESS(
                    f"created challenge {plan.slug!r} with {len(plan.phases)} phase(s)"
                )
            )

    def _summary(self, plan: Plan) -> None:
        self.stdout.write(f"challenge {plan.slug!r}: phases {', '.join(plan.phases)}")
        self.stdout.write(f"organisers: {', '.join(plan.organisers) or 'none'}")
        if plan.organisers and not self.dry_run:
            self.stdout.write(
                f"  each now staff and in the {roles.GROUP} group: they reach the admin and "
                "the dashboard of this challenge"
            )
        for reference in plan.references:
            self.stdout.write(f"  {reference.describe()}")
