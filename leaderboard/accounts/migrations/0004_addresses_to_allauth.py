"""The confirmed addresses move to django-allauth, which now signs people up and in.

Every account with an address gets allauth's ``EmailAddress`` for it (lower-cased, as allauth
keeps and looks addresses up), primary, verified if and only if the account had confirmed that
very address (its ``EmailConfirmation``, the address compared without regard to case): accounts confirmed before still take part, unconfirmed ones
still see the link to confirm. Their passwords are untouched, so everyone logs in as before.
Backwards: a verified primary address becomes an ``EmailConfirmation`` again.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import migrations
from django.utils import timezone


def _users(apps: Any) -> Any:
    app_label, model = settings.AUTH_USER_MODEL.split(".")
    return apps.get_model(app_label, model)


def forward(apps: Any, schema_editor: Any) -> None:
    User = _users(apps)
    EmailConfirmation = apps.get_model("accounts", "EmailConfirmation")
    EmailAddress = apps.get_model("account", "EmailAddress")
    confirmed = {
        row.user_id: row.email.casefold() for row in EmailConfirmation.objects.all().iterator()
    }
    existing = set(EmailAddress.objects.values_list("user_id", flat=True))
    rows = [
        EmailAddress(
            user_id=user.pk,
            email=user.email.lower(),
            primary=True,
            verified=confirmed.get(user.pk) == user.email.casefold(),
        )
        for user in User.objects.exclude(email="").only("pk", "email").iterator()
        if user.pk not in existing
    ]
    EmailAddress.objects.bulk_create(rows, batch_size=1000)


def backward(apps: Any, schema_editor: Any) -> None:
    EmailConfirmation = apps.get_model("accounts", "EmailConfirmation")
    EmailAddress = apps.get_model("account", "EmailAddress")
    now = timezone.now()
    for row in EmailAddress.objects.filter(primary=True, verified=True).iterator():
        EmailConfirmation.objects.update_or_create(
            user_id=row.user_id, defaults={"email": row.email, "confirmed_at": now}
        )


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0003_announcement_mail"),
        ("account", "0009_emailaddress_unique_primary_email"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [migrations.RunPython(forward, backward)]
