from __future__ import annotations

from pathlib import Path

from django.apps import AppConfig
from django.conf import settings


class OperationsConfig(AppConfig):
    name = "leaderboard.operations"
    label = "operations"
    verbose_name = "Operations"

    def ready(self) -> None:
        # Connects the worker's heartbeat to Celery's signals (a no-op outside a worker).
        from leaderboard.operations import checks, heartbeat  # noqa: F401

        # SQLite creates its database file but not the folder around it: the embedded mode's
        # var/ may not exist yet (a fresh clone's first manage.py migrate).
        for database in settings.DATABASES.values():
            name = str(database.get("NAME") or "")
            on_disk = name and name != ":memory:" and not name.startswith("file:")
            if database["ENGINE"] == "django.db.backends.sqlite3" and on_disk:
                Path(name).parent.mkdir(parents=True, exist_ok=True)
        # The static files are served from the finders unless collected; the folder collected
        # files go to must still exist, or the static-file middleware warns at every start.
        if settings.STATIC_ROOT:
            Path(settings.STATIC_ROOT).mkdir(parents=True, exist_ok=True)
