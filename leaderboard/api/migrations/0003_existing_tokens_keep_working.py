"""The tokens made before scopes and expiry keep working: each gets the widest scope its owner
could choose today ("organise" for those who organise a challenge or are staff, "team" for
everyone else: they could do all of that before) and 90 days from this migration to be renewed
on the profile page."""

import datetime as dt
from typing import Any

from django.db import migrations
from django.utils import timezone

#: ``leaderboard.api.services.DEFAULT_LIFETIME_DAYS``, fixed here as it was when written.
DAYS = 90


def forwards(apps: Any, schema_editor: Any) -> None:
    ApiToken = apps.get_model("api", "ApiToken")
    Challenge = apps.get_model("challenges", "Challenge")
    organisers = Challenge.organisers.through.objects.values("user_id")
    expires = timezone.now() + dt.timedelta(days=DAYS)
    ApiToken.objects.update(scope="team", expires_at=expires)
    ApiToken.objects.filter(user__is_staff=True).update(scope="organise")
    ApiToken.objects.filter(user_id__in=organisers).update(scope="organise")


class Migration(migrations.Migration):
    dependencies = [
        ("api", "0002_apitoken_scope_expires_at"),
        ("challenges", "0013_phase_team_chooses_public_run"),
    ]

    operations = [migrations.RunPython(forwards, migrations.RunPython.noop)]
