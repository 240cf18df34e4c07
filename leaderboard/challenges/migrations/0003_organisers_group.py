"""The "Organisers" permission group (``leaderboard.challenges.roles``)."""

from __future__ import annotations

from typing import Any

from django.db import migrations


def create_group(apps: Any, schema_editor: Any) -> None:
    from leaderboard.challenges import roles

    roles.create_group(apps, schema_editor.connection.alias)


def remove_group(apps: Any, schema_editor: Any) -> None:
    from leaderboard.challenges import roles

    apps.get_model("auth", "Group").objects.filter(name=roles.GROUP).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
        ("challenges", "0002_challenge_pages"),
        ("teams", "0001_initial"),
        ("submissions", "0001_initial"),
        ("rankings", "0001_initial"),
    ]

    operations = [migrations.RunPython(create_group, remove_group)]
