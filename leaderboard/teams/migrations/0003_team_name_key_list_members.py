"""Team names are compared by their confusable skeleton (``teams.names.key``), kept on the row;
and a team's page lists its members to everyone only when the team chooses to.

Existing names are left as they are (a name stored before the rules may hold a character they
refuse; its team can rename it). Their keys are filled in here; two existing teams whose names
now have the same key keep both names: the check at registration names the clash when one of
them registers for a challenge the other is in."""

from __future__ import annotations

from typing import Any

from django.db import migrations, models

from leaderboard.teams import names


def fill(apps: Any, schema_editor: Any) -> None:
    Team = apps.get_model("teams", "Team")
    for team in Team.objects.only("pk", "name"):
        Team.objects.filter(pk=team.pk).update(name_key=names.key(team.name))


class Migration(migrations.Migration):
    dependencies = [("teams", "0002_team_alias")]

    operations = [
        migrations.AddField(
            model_name="team",
            name="name_key",
            field=models.TextField(db_index=True, default="", editable=False),
        ),
        migrations.AddField(
            model_name="team",
            name="list_members",
            field=models.BooleanField(default=False),
        ),
        migrations.RunPython(fill, migrations.RunPython.noop),
    ]
