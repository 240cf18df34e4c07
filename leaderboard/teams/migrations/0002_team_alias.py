"""Anonymous teams are labelled by a random alias, not by their primary key."""

from __future__ import annotations

from typing import Any

from django.db import migrations, models

import leaderboard.teams.models


def fill(apps: Any, schema_editor: Any) -> None:
    Team = apps.get_model("teams", "Team")
    taken: set[str] = set()
    for team in Team.objects.only("pk"):
        alias = leaderboard.teams.models.new_alias()
        while alias in taken:
            alias = leaderboard.teams.models.new_alias()
        taken.add(alias)
        Team.objects.filter(pk=team.pk).update(alias=alias)


class Migration(migrations.Migration):
    dependencies = [("teams", "0001_initial")]

    operations = [
        migrations.AddField(
            model_name="team",
            name="alias",
            field=models.CharField(default="", editable=False, max_length=16),
            preserve_default=False,
        ),
        migrations.RunPython(fill, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="team",
            name="alias",
            field=models.CharField(
                default=leaderboard.teams.models.new_alias,
                editable=False,
                max_length=16,
                unique=True,
            ),
        ),
    ]
