"""Every write through the admin leaves an audit entry: one mechanism, in the admin site
itself, not a call each page must remember.

The site (``AuditedSite``, the project's default admin site: ``leaderboard.adminsite``)
gives every page registered on it, ours and those of the libraries (users, groups, sign-in
lockouts), ``Audited`` as its first base.

The admin itself names every write it makes: it builds a change message from the saved form
and the saved inline formsets (``construct_change_message``) after any add, change, list edit
or password change, and it logs every deletion, one object or a selection
(``log_deletions``), both inside the transaction of the write. ``Audited`` writes the audit
entry at those two points, with each changed field's value before and after, the inline rows
added, changed (field by field) and deleted; a save that changes nothing writes nothing. A
test walks every registered admin page and inline and checks that a change leaves an entry.

The entry belongs to the challenge the row belongs to (``roles.CHALLENGE_PATHS``), one entry
per challenge for a team registered for several, and to no challenge for rows of the site as
a whole (users, groups, sign-in lockouts): those are the operators' trail, read in the admin's
audit list. Secrets are never copied into it: a password, a token or an invite code is
recorded as changed, without its value."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from functools import wraps
from typing import Any

from django import forms
from django.contrib import admin
from django.contrib.auth import REDIRECT_FIELD_NAME
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.db import models
from django.http import HttpRequest, HttpResponse, HttpResponseBase, HttpResponseRedirect
from django.urls import reverse

from leaderboard.challenges import audit, factors, roles

#: a field whose name holds one of these is recorded as changed, never with its value
SECRET_PARTS = ("password", "invite_code", "token", "secret", "key_hash")
HIDDEN = "(changed; not recorded)"


def _secret(name: str) -> bool:
    return any(part in name for part in SECRET_PARTS)


def _plain(value: Any) -> Any:
    """A form value as the log keeps it: rows by name, lists of rows as sorted names, files by
    name, anything else JSON cannot hold as text."""
    if isinstance(value, models.Model):
        return str(value)
    if isinstance(value, list | tuple | set) or hasattr(value, "model"):
        return sorted(str(v) for v in value)
    if value is None or isinstance(value, str | int | float | bool | dict):
        return value
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return str(value)


def _initial(form: forms.BaseForm, name: str) -> Any:
    """The value a field had before the save, as the form was shown (a foreign key's initial
    value is its id: read back as the row it names)."""
    value = form.initial.get(name, form.fields[name].initial)
    field = form.fields[name]
    if (
        isinstance(field, forms.ModelChoiceField)
        and not isinstance(field, forms.ModelMultipleChoiceField)
        and field.queryset is not None
        and value not in (None, "")
        and not isinstance(value, models.Model)
    ):
        found = field.queryset.model._default_manager.filter(pk=value).first()
        return found if found is not None else value
    return value


def _same_second(old: Any, new: Any) -> bool:
    return (
        isinstance(old, dt.datetime)
        and isinstance(new, dt.datetime)
        and old.replace(microsecond=0) == new.replace(microsecond=0)
    )


def changed_fields(form: forms.BaseForm) -> set[str]:
    """The fields whose values a save of ``form`` really changes (a form may call a field
    changed whose value it only wrote another way)."""
    return set(_form_changes(form)[1])


def _form_changes(form: forms.BaseForm, prefix: str = "") -> tuple[dict[str, Any], dict[str, Any]]:
    """(before, after) of each field ``form`` changed, each name after ``prefix``."""
    before: dict[str, Any] = {}
    after: dict[str, Any] = {}
    cleaned = getattr(form, "cleaned_data", {}) or {}
    for name in form.changed_data:
        key = f"{prefix}{name}"
        if _secret(name):  # the password form names "password", a field it does not have
            before[key] = after[key] = HIDDEN
            continue
        if name not in form.fields:
            continue
        old, new = _initial(form, name), cleaned.get(name)
        if _same_second(old, new):
            continue  # the form shows whole seconds: a save drops only the microseconds
        old, new = _plain(old), _plain(new)
        if old != new:
            before[key], after[key] = old, new
    return before, after


def _formset_changes(formsets: Iterable[Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(before, after) of every inline row the save added, changed or deleted."""
    before: dict[str, Any] = {}
    after: dict[str, Any] = {}
    for formset in formsets or ():
        name = str(formset.model._meta.verbose_name)
        for obj in getattr(formset, "new_objects", ()):
            after[f"{name} “{obj}”"] = "added"
        changed = {id(obj) for obj, _ in getattr(formset, "changed_objects", ())}
        for form in formset.initial_forms:
            if id(form.instance) in changed:
                b, a = _form_changes(form, f"{name} “{form.instance}”: ")
                before.update(b)
                after.update(a)
        for obj in getattr(formset, "deleted_objects", ()):
            before[f"{name} “{obj}”"] = "present"
            after[f"{name} “{obj}”"] = "deleted"
    return before, after


def _where(obj: models.Model) -> list[tuple[int | None, int | None]]:
    """(challenge id, phase id) of each challenge ``obj`` belongs to; (None, None) for a row of
    the site as a whole."""
    model = type(obj)
    key = (model._meta.app_label, model._meta.model_name)
    phase_id = obj.pk if key == ("challenges", "phase") else getattr(obj, "phase_id", None)
    if key not in roles.CHALLENGE_PATHS or obj.pk is None:
        return [(None, None)]
    path = roles.CHALLENGE_PATHS[key]
    found = model._default_manager.filter(pk=obj.pk).values_list(path, flat=True).distinct()
    challenges = [pk for pk in found if pk is not None]
    return [(pk, phase_id) for pk in challenges] or [(None, None)]


#: the admin's own action names for the models whose changes the dashboard names apart
CHANGED: dict[tuple[str, str | None], str] = {
    ("challenges", "challenge"): "challenge-changed",
    ("challenges", "phase"): "phase-changed",
}


def record_save(
    request: HttpRequest, obj: models.Model, form: Any, formsets: Any, add: bool
) -> None:
    """The audit entry of one admin save (nothing when it changed nothing)."""
    before, after = _form_changes(form)
    if add:
        before, after = {}, {"added": str(obj), **after}
    b, a = _formset_changes(formsets)
    before.update(b)
    after.update(a)
    if not before and not after:
        return
    key = (obj._meta.app_label, obj._meta.model_name)
    action = "admin-added" if add else CHANGED.get(key, "admin-changed")
    subject = str(obj) if key in CHANGED else f"{obj._meta.verbose_name} “{obj}”"
    for challenge, phase in _where(obj):
        audit.record(
            challenge, action, actor=request.user, phase=phase, subject=subject,
            before=before, after=after,
        )  # fmt: skip


def record_deletions(request: HttpRequest, objects: Iterable[models.Model]) -> None:
    """One entry per deleted row, written before it goes (its challenge is still known)."""
    for obj in objects:
        subject = f"{obj._meta.verbose_name} “{obj}”"
        for challenge, phase in _where(obj):
            audit.record(
                challenge, "admin-deleted", actor=request.user, phase=phase, subject=subject,
                before={"row": str(obj)}, after={"row": "deleted"},
            )  # fmt: skip


class Audited(admin.ModelAdmin):
    """The base of every admin page: each save and each deletion is in the audit log."""

    def construct_change_message(
        self, request: HttpRequest, form: Any, formsets: Any, add: bool = False
    ) -> Any:
        message = super().construct_change_message(request, form, formsets, add)
        # a model form's row; the password form's user
        obj = getattr(form, "instance", None) or getattr(form, "user", None)
        if obj is not None:
            record_save(request, obj, form, formsets, add)
        return message

    def log_deletions(self, request: HttpRequest, queryset: Any) -> Any:
        record_deletions(request, list(queryset))
        return super().log_deletions(request, queryset)


class AuditedSite(admin.AdminSite):
    """The admin site: every page registered on it is ``Audited``; every page asks for a
    second factor (``factors``) and the log-in is allauth's, which asks for its code."""

    def admin_view(self, view: Any, cacheable: bool = False) -> Any:
        """Every admin page (the admin's own and each registered model's): staff without a
        second factor are sent to set one up; signing out stays open to them."""

        @wraps(view)
        def checked(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
            leaving = request.path == reverse("admin:logout", current_app=self.name)
            if not leaving and factors.needs_second_factor(request.user):
                return factors.setup_redirect(request)
            return view(request, *args, **kwargs)

        return super().admin_view(checked, cacheable)

    def login(self, request: HttpRequest, extra_context: Any = None) -> HttpResponse:
        """allauth's log-in, never the admin's own form (which would skip the second factor's
        code); someone signed in who may not use the admin is refused, not sent round."""
        if request.user.is_authenticated and not self.has_permission(request):
            raise PermissionDenied("This account may not use the admin.")
        index = reverse("admin:index", current_app=self.name)
        wanted = request.GET.get(REDIRECT_FIELD_NAME) or index
        if request.user.is_authenticated:
            return HttpResponseRedirect(index)
        return redirect_to_login(wanted, reverse("account_login"))

    def register(self, model_or_iterable: Any, admin_class: Any = None, **options: Any) -> None:
        base = admin_class or admin.ModelAdmin
        if not issubclass(base, Audited):
            base = type(base.__name__, (Audited, base), {"__module__": base.__module__})
        super().register(model_or_iterable, base, **options)
