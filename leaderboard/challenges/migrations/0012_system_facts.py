"""Declared system facts (``challenges.facts``): what a challenge asks each submission, and
what each submission says."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('challenges', '0011_announcement'),
    ]

    operations = [
        migrations.AddField(
            model_name='challenge',
            name='system_facts',
            field=models.JSONField(blank=True, default=list, help_text='fields a submission must or may carry, e.g. [{"key": "asr", "label": "ASR system", "kind": "choice", "choices": ["provided ASR", "Whisper", "other"], "required": true}]; kinds: text, choice, number (with a "unit"), flag', verbose_name='declared system facts'),
        ),
    ]
