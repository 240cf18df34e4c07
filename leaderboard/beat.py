"""Beat's scheduler (settings.CELERY_BEAT_SCHEDULER): Celery's file-backed one, which creates
the folder of its schedule file first. By default that file lives in TRACKBOARD_VAR_DIR, which
no other process may have created (on Postgres and Redis nothing else is written there)."""

from __future__ import annotations

from pathlib import Path

from celery import beat


class PersistentScheduler(beat.PersistentScheduler):
    def setup_schedule(self) -> None:
        folder = Path(self.schedule_filename).parent  # type: ignore[attr-defined]  # set in __init__, not in the stubs
        folder.mkdir(parents=True, exist_ok=True)
        super().setup_schedule()
