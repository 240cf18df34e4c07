"""``Phase.closed``: the phase's close, recorded. Phases whose close has passed (or that were
revealed) are recorded closed; their boards are already built for it (until now the clock
decided), so their versions do not move."""

from django.db import migrations, models
from django.db.models import Q
from django.utils import timezone


def record_past_closes(apps, schema_editor):
    Phase = apps.get_model("challenges", "Phase")
    Phase.objects.filter(Q(revealed=True) | Q(closes_at__lte=timezone.now())).update(closed=True)


class Migration(migrations.Migration):
    dependencies = [
        ("challenges", "0008_audit_log"),
    ]

    operations = [
        migrations.AddField(
            model_name="phase",
            name="closed",
            field=models.BooleanField(default=False, editable=False),
        ),
        migrations.RunPython(record_past_closes, migrations.RunPython.noop),
    ]
