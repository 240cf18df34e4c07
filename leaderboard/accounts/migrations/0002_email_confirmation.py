"""Confirmed e-mail addresses, and one account per address whatever its case.

1. ``EmailConfirmation``: the address a user confirmed by opening the link mailed to it.
2. Addresses shared by several accounts when case is ignored (``DANA@example.org`` beside
   ``dana@example.org``, allowed before) stay with the oldest account (the first to sign up);
   the later accounts lose theirs (set empty) and are printed by username. They can still log
   in, and set and confirm an address of their own on their profile; until then they cannot
   take part. A password reset for the address now reaches the oldest account only.
3. Every account that has an address after step 2 counts as confirmed: the accounts of a site
   upgraded while a challenge runs keep taking part (they signed up when no confirmation was
   asked). New accounts confirm theirs.
4. A unique index on the lower-cased address (empty addresses aside), so no two accounts can
   hold one address again whatever its case, whatever writes it. SQLite's ``LOWER`` folds
   ASCII letters only, as its case-insensitive lookups do.
"""

from __future__ import annotations

from typing import Any

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models
from django.db.models.functions import Lower
from django.utils import timezone

INDEX = "accounts_user_email_ci_unique"


def _users(apps: Any) -> Any:
    app_label, model = settings.AUTH_USER_MODEL.split(".")
    return apps.get_model(app_label, model)


def shared_addresses(User: Any) -> list[Any]:
    """The accounts that must give their address up: all but the oldest of each group of
    accounts whose addresses are equal when case is ignored."""
    seen: set[str] = set()
    later = []
    rows = (
        User.objects.exclude(email="")
        .annotate(folded=Lower("email"))
        .order_by("date_joined", "pk")
        .only("pk", "username", "email")
    )
    for user in rows:
        if user.folded in seen:
            later.append(user)
        seen.add(user.folded)
    return later


def forward(apps: Any, schema_editor: Any) -> None:
    User = _users(apps)
    EmailConfirmation = apps.get_model("accounts", "EmailConfirmation")
    later = shared_addresses(User)
    if later:
        print(
            "\n  accounts whose address an older account shares (case ignored), now without "
            "one: " + ", ".join(f"{u.username} ({u.email})" for u in later)
        )
    User.objects.filter(pk__in=[u.pk for u in later]).update(email="")
    now = timezone.now()
    EmailConfirmation.objects.bulk_create(
        [
            EmailConfirmation(user_id=pk, email=email, confirmed_at=now)
            for pk, email in User.objects.exclude(email="").values_list("pk", "email")
        ],
        batch_size=1000,
    )
    table = schema_editor.quote_name(User._meta.db_table)
    column = schema_editor.quote_name("email")
    schema_editor.execute(
        f"CREATE UNIQUE INDEX {INDEX} ON {table} (LOWER({column})) WHERE {column} <> ''"
    )


def backward(apps: Any, schema_editor: Any) -> None:
    schema_editor.execute(f"DROP INDEX IF EXISTS {INDEX}")


class Migration(migrations.Migration):

    dependencies = [
        ("accounts", "0001_mail_preferences"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="EmailConfirmation",
            fields=[
                (
                    "user",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        primary_key=True,
                        related_name="email_confirmation",
                        serialize=False,
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                ("email", models.EmailField(max_length=254)),
                ("confirmed_at", models.DateTimeField()),
            ],
        ),
        migrations.RunPython(forward, backward),
    ]
