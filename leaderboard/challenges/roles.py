"""The organiser role: the "Organisers" permission group and what an organiser may reach.

A challenge's organisers are the users listed on it (``Challenge.organisers``). Staff status
opens the admin; the "Organisers" group grants the admin permissions an organiser needs.
Every admin page and form choice limits them to the challenges they organise (``organised``;
superusers see everything there); the dashboard, the downloads and the organiser API answer
only the challenge's organisers (``Challenge.is_organised_by``).
"""

from __future__ import annotations

from typing import Any

from django.apps import apps as registry
from django.contrib.auth.models import AnonymousUser, User
from django.db.models import Model, QuerySet

from leaderboard.challenges import audit

GROUP = "Organisers"

#: (app label, model, actions) the "Organisers" group grants; teams are read only, team
#: memberships and users are not granted at all.
PERMISSIONS: list[tuple[str, str, tuple[str, ...]]] = [
    ("challenges", "challenge", ("view", "change")),
    ("challenges", "phase", ("view", "add", "change")),
    ("challenges", "condition", ("view", "add", "change")),
    ("challenges", "reference", ("view", "add", "change")),
    ("challenges", "phasefile", ("view", "add", "change", "delete")),
    ("teams", "team", ("view",)),
    ("teams", "participation", ("view", "change")),
    ("submissions", "submission", ("view", "change")),
    ("submissions", "result", ("view",)),
    ("rankings", "snapshot", ("view",)),
    ("rankings", "reportedresult", ("view", "add", "change", "delete")),
]

#: how each model that belongs to a challenge reaches the challenge (a lookup path)
CHALLENGE_PATHS: dict[tuple[str, str], str] = {
    ("challenges", "challenge"): "pk",
    ("challenges", "phase"): "challenge",
    ("challenges", "condition"): "phase__challenge",
    ("challenges", "reference"): "condition__phase__challenge",
    ("challenges", "phasefile"): "phase__challenge",
    ("teams", "participation"): "challenge",
    ("teams", "team"): "participations__challenge",
    ("submissions", "submission"): "phase__challenge",
    ("submissions", "result"): "submission__phase__challenge",
    ("rankings", "snapshot"): "phase__challenge",
    ("rankings", "reportedresult"): "phase__challenge",
}


def sync_group(apps: Any) -> None:
    """Create (or bring up to date) the "Organisers" group with exactly ``PERMISSIONS``.

    ``apps`` is a migration's app registry or ``django.apps.apps``. A permission of a model the
    registry does not have yet is left out: a change to ``PERMISSIONS`` comes with a migration
    that calls this again (``add_organiser`` calls it too)."""
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    group, _ = Group.objects.get_or_create(name=GROUP)
    wanted = Permission.objects.none()
    for app_label, model, actions in PERMISSIONS:
        wanted |= Permission.objects.filter(
            content_type__app_label=app_label,
            codename__in=[f"{action}_{model}" for action in actions],
        )
    group.permissions.set(wanted)


def grant(challenge: Any, user: Any, *, actor: Any = None, actor_name: str = "") -> None:
    """Make ``user`` an organiser of ``challenge``: listed on it, staff (the admin) and in
    the "Organisers" group (its permissions); recorded in the audit log. Call it inside a
    transaction."""
    sync_group(registry)
    group = registry.get_model("auth", "Group").objects.get(name=GROUP)
    type(user).objects.filter(pk=user.pk).update(is_staff=True)
    user.is_staff = True
    user.groups.add(group)
    if not challenge.organisers.filter(pk=user.pk).exists():
        challenge.organisers.add(user)
        audit.record(
            challenge, "organiser-added", actor=actor, actor_name=actor_name,
            subject=user.get_username(),
        )  # fmt: skip


def revoke(challenge: Any, user: Any, *, actor: Any = None, actor_name: str = "") -> None:
    """``user`` no longer organises ``challenge``; the group and staff status go too when they
    organise no other challenge (a superuser keeps staff); recorded in the audit log."""
    challenge.organisers.remove(user)
    if not user.organised_challenges.exists():
        group = registry.get_model("auth", "Group").objects.filter(name=GROUP).first()
        if group is not None:
            user.groups.remove(group)
        if not user.is_superuser:
            type(user).objects.filter(pk=user.pk).update(is_staff=False)
    audit.record(
        challenge, "organiser-removed", actor=actor, actor_name=actor_name,
        subject=user.get_username(),
    )  # fmt: skip


def create_group(apps: Any, using: str = "default") -> None:
    """The permissions of the apps ``PERMISSIONS`` names now (Django creates them only once
    every migration has run, and some of these apps come after this one), then the group
    (``sync_group``). The group's migration calls it, and so does every ``migrate`` or
    ``flush`` afterwards (``post_migrate``), which keeps the group in line with
    ``PERMISSIONS``."""
    from django.contrib.auth.management import create_permissions
    from django.db.migrations.state import AppConfigStub

    named = {app_label for app_label, _model, _actions in PERMISSIONS}
    for app_config in apps.get_app_configs():
        if app_config.label not in named:
            continue
        # a migration's registry has no models modules, which create_permissions wants
        stub = isinstance(app_config, AppConfigStub)
        if stub:
            app_config.models_module = True
        create_permissions(app_config, verbosity=0, using=using)
        if stub:
            app_config.models_module = None
    sync_group(apps)


def _after_migrate(sender: Any, using: str = "default", **kwargs: Any) -> None:
    from django.apps import apps

    create_group(apps, using)


def organised(queryset: QuerySet[Any], user: User | AnonymousUser) -> QuerySet[Any]:
    """``queryset`` limited to the rows of the challenges ``user`` organises (all rows for a
    superuser, none for anyone else)."""
    if user.is_authenticated and user.is_superuser:
        return queryset
    if not user.is_authenticated:
        return queryset.none()
    path = challenge_path(queryset.model)
    lookup = "organisers" if path == "pk" else f"{path}__organisers"
    return queryset.filter(**{lookup: user}).distinct()


def challenge_path(model: type[Model]) -> str:
    key = (model._meta.app_label, model._meta.model_name or "")
    if key not in CHALLENGE_PATHS:
        raise LookupError(f"{key[0]}.{key[1]} does not belong to a challenge")
    return CHALLENGE_PATHS[key]


def path_label(obj: Model) -> str:
    """ "challenge / phase / condition" for a phase, a condition or what hangs from one, so
    choices that share a label ("TTS-Verbatim" in every phase) can be told apart."""
    from leaderboard.challenges.models import Challenge, Condition, Phase, Reference

    if isinstance(obj, Challenge):
        return obj.slug
    if isinstance(obj, Phase):
        return f"{obj.challenge.slug} / {obj.name}"
    if isinstance(obj, Condition):
        return f"{obj.phase.challenge.slug} / {obj.phase.name} / {obj.label or obj.key}"
    if isinstance(obj, Reference):
        return f"{path_label(obj.condition)} @ {obj.sha256[:8]}"
    return str(obj)
