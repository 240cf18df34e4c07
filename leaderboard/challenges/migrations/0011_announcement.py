"""``Announcement``: what a challenge's organisers announce, on its page, in the API and the
feed, optionally mailed to the members of every registered team."""

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("challenges", "0010_audit_site_wide"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="Announcement",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("title", models.CharField(max_length=200)),
                ("body", models.TextField(help_text="Markdown")),
                ("posted_at", models.DateTimeField(default=django.utils.timezone.now)),
                ("mailed", models.BooleanField(default=False)),
                (
                    "author",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "challenge",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="announcements",
                        to="challenges.challenge",
                    ),
                ),
            ],
            options={
                "ordering": ["-posted_at", "-pk"],
                "indexes": [
                    models.Index(fields=["challenge", "posted_at"], name="announcement_posted")
                ],
            },
        ),
    ]
