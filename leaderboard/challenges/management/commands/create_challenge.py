from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

import scoring
from leaderboard.challenges.config import ConfigError, create_challenge, load_config


class Command(BaseCommand):
    help = "Create a challenge, its phases, conditions and references from a YAML or JSON file."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path", type=Path)

    def handle(self, *args: Any, path: Path, **options: Any) -> None:
        path = path.resolve()
        if not path.is_file():
            raise CommandError(f"no such file: {path}")
        try:
            challenge = create_challenge(load_config(path), path.parent)
        except (ConfigError, scoring.ScoringError) as exc:
            raise CommandError(str(exc)) from exc
        phases = challenge.phases.count()
        self.stdout.write(
            self.style.SUCCESS(f"created challenge {challenge.slug!r} with {phases} phase(s)")
        )
