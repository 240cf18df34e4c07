"""``MailPreference.announcement_mail``: whether a user gets the announcements organisers
mail (on for everyone, as submission mail is, until they turn it off)."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0002_email_confirmation"),
    ]

    operations = [
        migrations.AddField(
            model_name="mailpreference",
            name="announcement_mail",
            field=models.BooleanField(default=True),
        ),
    ]
