"""Create a challenge from a YAML or JSON description (the ``create_challenge`` command).

Shape (paths of reference files are relative to the config file)::

    challenge: {slug, title, description, rules, task, primary_metric, registration,
                max_team_size, scorer_options: {<the task's options>, n_boot, level, seed},
                organisers: [username]}
    phases:
      - {name, slug, order, opens_at, closes_at, daily_quota, total_quota, allow_partial,
         results_visibility, split_fraction, split_seed, max_final_selections,
         show_own_public_score,
         conditions: [{key, label, order, reference: path, <a reference file of the task>: path}]}

``task`` names a task of ``scoring`` (``dstc11``, ``multiwoz22``, ``dvd``); ``primary_metric``
one of its metrics (empty: the task's own). ``scorer_options`` holds the task's options (its
``Task.options``, e.g. ``profile`` and ``missing`` for dstc11, ``match`` for multiwoz22) and
the bootstrap's ``n_boot`` (whole number, 1-100000), ``level`` (0.5 to below 1) and ``seed``
(whole number); what is left out takes the scorer's default. A condition names
the gold file (``reference``) and the task's other reference files by their names in the task
(``multiwoz22`` needs a ``schema``; a task with seen/unseen support takes an optional
``training_values`` list). Every name and value is checked before anything is written.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import yaml
from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django.utils.text import slugify

import scoring
from leaderboard.challenges.models import RESAMPLING_KEYS, Challenge, Condition, Phase
from leaderboard.challenges.references import ExtraFiles, check_reference
from leaderboard.challenges.services import add_reference

CHALLENGE_FIELDS = (
    "title",
    "description",
    "rules",
    "task",
    "primary_metric",
    "registration",
    "scorer_options",
    "max_team_size",
)
PHASE_FIELDS = (
    "daily_quota",
    "total_quota",
    "allow_partial",
    "results_visibility",
    "split_fraction",
    "split_seed",
    "max_final_selections",
    "show_own_public_score",
    "revealed",
)

CONDITION_FIELDS = ("key", "label", "order", "reference")


class ConfigError(ValueError):
    """The config file cannot be used; the message says which field and why."""


def load_config(path: Path) -> dict[str, Any]:
    text = path.read_text(encoding="utf-8")
    try:
        data = json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)
    except (ValueError, yaml.YAMLError) as exc:
        raise ConfigError(
            f"{path.name}: not valid {'JSON' if path.suffix == '.json' else 'YAML'}: {exc}"
        ) from exc
    if not isinstance(data, dict) or not isinstance(data.get("challenge"), dict):
        raise ConfigError(f"{path.name}: expected a mapping with a 'challenge' section")
    return data


def scoring_problems(challenge: Challenge) -> dict[str, str]:
    """What is wrong with ``challenge``'s task, ranked metric and scorer options, by field
    name (empty when nothing is): the checks of ``create_challenge`` and of the admin."""
    try:
        task = challenge.scoring_task()
    except scoring.ScoringError as exc:
        return {"task": str(exc)}
    problems: dict[str, str] = {}
    names = [m.name for m in task.metrics]
    if challenge.primary_metric and challenge.primary_metric not in names:
        problems["primary_metric"] = (
            f"{challenge.primary_metric!r} is not a metric of task {task.name!r}; "
            f"choose one of: {', '.join(names)} (or leave it empty for {task.primary!r})"
        )
    options = challenge.scorer_options
    if options is None:
        options = {}
    if not isinstance(options, dict):
        problems["scorer_options"] = "give a mapping of option names to values"
        return problems
    allowed = [o.name for o in task.options] + list(RESAMPLING_KEYS)
    unknown = sorted(set(options) - set(allowed))
    try:
        if unknown:
            raise scoring.ScoringError(
                f"unknown option(s) {', '.join(map(repr, unknown))} for task {task.name!r}; "
                f"the options are: {', '.join(allowed)}"
            )
        for key in ("n_boot", "seed"):
            value = options.get(key, 0)
            if isinstance(value, bool) or not isinstance(value, int):
                raise scoring.ScoringError(f"{key} must be a whole number, not {value!r}")
        level = options.get("level", 0.95)
        if isinstance(level, bool) or not isinstance(level, int | float):
            raise scoring.ScoringError(f"level must be a number such as 0.95, not {level!r}")
        challenge.task_options()
        challenge.resampling()
    except scoring.ScoringError as exc:
        problems["scorer_options"] = str(exc)
    return problems


def _unknown(given: dict[str, Any], known: Any, where: str) -> None:
    extra = sorted(set(given) - set(known))
    if extra:
        raise ConfigError(
            f"{where}: unknown key(s) {', '.join(map(repr, extra))}; "
            f"known keys are: {', '.join(known)}"
        )


def _when(value: Any, field: str) -> dt.datetime:
    if isinstance(value, dt.datetime):
        parsed = value
    elif isinstance(value, dt.date):
        parsed = dt.datetime.combine(value, dt.time())
    else:
        parsed = parse_datetime(str(value)) if value is not None else None
    if parsed is None:
        raise ConfigError(f"{field}: {value!r} is not a date-time (use ISO 8601)")
    return parsed if timezone.is_aware(parsed) else timezone.make_aware(parsed, dt.UTC)


def create_challenge(config: dict[str, Any], base_dir: Path) -> Challenge:
    """Validate everything (references included) first, then create the challenge.

    Raises ``ConfigError`` (or ``scoring.InvalidFile`` for a bad reference) before writing
    anything when the config is wrong or the slug is taken.
    """
    spec = config["challenge"]
    slug = spec.get("slug") or slugify(spec.get("title", ""))
    if not slug or not spec.get("title"):
        raise ConfigError("challenge: 'title' (and a usable 'slug') are required")
    if Challenge.objects.filter(slug=slug).exists():
        raise ConfigError(f"a challenge with slug {slug!r} already exists; pick another slug")
    phases = config.get("phases") or spec.get("phases") or []
    if not phases:
        raise ConfigError("at least one phase is required")

    _unknown(spec, ("slug", "title", *CHALLENGE_FIELDS, "organisers", "phases"), "challenge")
    draft = Challenge(slug=slug, **{k: spec[k] for k in CHALLENGE_FIELDS if k in spec})
    problems = scoring_problems(draft)
    if problems:
        raise ConfigError("; ".join(f"challenge.{k}: {v}" for k, v in problems.items()))
    files = [f.name for f in draft.scoring_task().reference_files]
    references: dict[Path, bytes] = {}
    extras: dict[tuple[int, int], ExtraFiles] = {}
    for p, phase in enumerate(phases):
        if not isinstance(phase, dict):
            raise ConfigError(f"phases[{p}]: expected a mapping")
        known = ("name", "slug", "order", "opens_at", "closes_at", *PHASE_FIELDS, "conditions")
        _unknown(phase, known, f"phases[{p}]")
        if not phase.get("conditions"):
            raise ConfigError(f"phases[{p}]: at least one condition is required")
        opens = _when(phase.get("opens_at"), f"phases[{p}].opens_at")
        closes = _when(phase.get("closes_at"), f"phases[{p}].closes_at")
        if closes <= opens:
            raise ConfigError(f"phases[{p}]: closes_at must be after opens_at")
        for c, condition in enumerate(phase["conditions"]):
            if not isinstance(condition, dict):
                raise ConfigError(f"phases[{p}].conditions[{c}]: expected a mapping")
            _unknown(condition, (*CONDITION_FIELDS, *files), f"phases[{p}].conditions[{c}]")
            if not condition.get("key"):
                raise ConfigError(f"phases[{p}].conditions[{c}]: 'key' is required")
            extra = {}
            for name in files:
                if condition.get(name):
                    extra_path = (base_dir / condition[name]).resolve()
                    if not extra_path.is_file():
                        raise ConfigError(f"phases[{p}].conditions[{c}]: no file {extra_path}")
                    extra[name] = (extra_path.read_bytes(), extra_path.name)
            extras[(p, c)] = extra
            if condition.get("reference"):
                path = (base_dir / condition["reference"]).resolve()
                if not path.is_file():
                    raise ConfigError(f"phases[{p}].conditions[{c}]: no file {path}")
                data = references.get(path) or path.read_bytes()
                check_reference(draft, data, path.name, extra)  # raises ScoringError
                references[path] = data

    users = get_user_model().objects.filter(username__in=spec.get("organisers", []))
    pending: list[tuple[Condition, Path, ExtraFiles]] = []
    with transaction.atomic():
        challenge = Challenge.objects.create(
            slug=slug, **{k: spec[k] for k in CHALLENGE_FIELDS if k in spec}
        )
        challenge.organisers.set(users)
        for p, phase in enumerate(phases):
            created = Phase.objects.create(
                challenge=challenge,
                name=phase.get("name", f"phase {p + 1}"),
                slug=phase.get("slug") or slugify(phase.get("name", f"phase-{p + 1}")),
                order=phase.get("order", p),
                opens_at=_when(phase["opens_at"], "opens_at"),
                closes_at=_when(phase["closes_at"], "closes_at"),
                **{k: phase[k] for k in PHASE_FIELDS if k in phase},
            )
            for c, condition in enumerate(phase["conditions"]):
                row = Condition.objects.create(
                    phase=created,
                    key=condition["key"],
                    label=condition.get("label", condition["key"]),
                    order=condition.get("order", c),
                )
                if condition.get("reference"):
                    path = (base_dir / condition["reference"]).resolve()
                    pending.append((row, path, extras[(p, c)]))
    # Storage writes stay outside the transaction above; add_reference has its own.
    for condition, path, extra in pending:
        add_reference(condition, references[path], path.name, extra)
    return challenge
