# Tokens get a scope and an end; the rows made before are given theirs by 0003.

import django.utils.timezone
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("api", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="apitoken",
            name="scope",
            field=models.CharField(
                choices=[
                    ("read", "read: read anything you may read"),
                    ("submit", "submit: read, upload runs, edit and choose your runs"),
                    ("team", "team: submit, and change teams, membership and registrations"),
                    ("organise", "organise: everything you may do, the organiser API included"),
                ],
                default="submit",
                max_length=16,
            ),
        ),
        migrations.AddField(
            model_name="apitoken",
            name="expires_at",
            field=models.DateTimeField(default=django.utils.timezone.now),
            preserve_default=False,
        ),
    ]
