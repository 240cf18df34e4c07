from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("operations", "0001_worker_heartbeat"),
    ]

    operations = [
        migrations.CreateModel(
            name="SchedulerHeartbeat",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("seen_at", models.DateTimeField()),
            ],
        ),
    ]
