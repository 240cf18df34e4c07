"""Declared system facts (``challenges.facts``): what a challenge asks each submission, and
what each submission says."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('submissions', '0008_withdrawal_results_kept'),
    ]

    operations = [
        migrations.AddField(
            model_name='submission',
            name='facts',
            field=models.JSONField(blank=True, default=dict),
        ),
    ]
