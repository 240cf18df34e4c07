"""``EmailConfirmation`` is gone: allauth's verified ``EmailAddress`` is the one record of a
confirmed address (0004 copied every confirmation there)."""

from __future__ import annotations

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("accounts", "0004_addresses_to_allauth")]

    operations = [migrations.DeleteModel(name="EmailConfirmation")]
