"""Per-dialogue statistics as numpy arrays in bytes (``submissions.ratios``).

Forward, every Result's ``dialogues["columns"]`` (``{metric: [[numerators], [denominators]]}``)
moves to ``ratios`` (every metric) and ``primary_ratios`` (its challenge's primary metric),
and ``dialogues`` keeps the dialogue ids and the per-turn verdicts. Backward puts the columns
back into ``dialogues`` as lists (a whole number stored as ``2.0`` comes back as ``2``).
"""

from __future__ import annotations

from typing import Any

from django.db import migrations, models

from leaderboard.submissions import ratios
from scoring import ScoringError, get_task

#: Results converted per query
BATCH = 200


def _primary(task: str, chosen: str) -> str:
    """``Challenge.primary`` of a challenge with ``task`` and ``primary_metric`` ``chosen``."""
    try:
        spec = get_task(task)
    except ScoringError:
        return chosen
    return chosen if chosen in {m.name for m in spec.metrics} else spec.primary


def _batches(Result: Any, rows: Any) -> Any:
    pks = list(rows.order_by("pk").values_list("pk", flat=True))
    for start in range(0, len(pks), BATCH):
        yield Result.objects.filter(pk__in=pks[start : start + BATCH])


def forward(apps: Any, schema_editor: Any) -> None:
    Condition = apps.get_model("challenges", "Condition")
    Result = apps.get_model("submissions", "Result")
    primary = {
        pk: _primary(task, chosen)
        for pk, task, chosen in Condition.objects.values_list(
            "pk", "phase__challenge__task", "phase__challenge__primary_metric"
        )
    }
    for batch in _batches(Result, Result.objects.filter(dialogues__has_key="columns")):
        changed = []
        for pk, condition_id, stored in batch.values_list("pk", "condition_id", "dialogues"):
            columns = {m: (num, den) for m, (num, den) in stored["columns"].items()}
            metric = primary[condition_id]
            chosen = {metric: columns[metric]} if metric in columns else {}
            dialogues = {"ids": stored.get("ids") or [], "turns": stored.get("turns") or []}
            changed.append(
                Result(
                    pk=pk,
                    dialogues=dialogues,
                    ratios=ratios.encode(columns),
                    primary_ratios=ratios.encode(chosen),
                )
            )
        Result.objects.bulk_update(changed, ["dialogues", "ratios", "primary_ratios"])


def backward(apps: Any, schema_editor: Any) -> None:
    Result = apps.get_model("submissions", "Result")
    for batch in _batches(Result, Result.objects.exclude(ratios=b"")):
        changed = []
        for pk, stored, data in batch.values_list("pk", "dialogues", "ratios"):
            columns = {m: [n.tolist(), d.tolist()] for m, (n, d) in ratios.decode(data).items()}
            changed.append(Result(pk=pk, dialogues={**(stored or {}), "columns": columns}))
        Result.objects.bulk_update(changed, ["dialogues"])


class Migration(migrations.Migration):
    dependencies = [
        ("challenges", "0003_organisers_group"),
        ("submissions", "0002_submission_notified_status"),
    ]

    operations = [
        migrations.AddField(
            model_name="result",
            name="ratios",
            field=models.BinaryField(default=b""),
        ),
        migrations.AddField(
            model_name="result",
            name="primary_ratios",
            field=models.BinaryField(default=b""),
        ),
        migrations.RunPython(forward, backward),
    ]
