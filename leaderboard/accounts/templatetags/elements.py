"""``attrs|html_attrs:"name id ..."`` and ``attrs|button_attrs``: the attributes allauth hands
one of its form elements (templates/allauth/elements), written as HTML, so that the element's
template prints them instead of testing each one."""

from __future__ import annotations

from typing import Any

from django import template
from django.forms.utils import flatatt
from django.utils.safestring import SafeString

register = template.Library()


@register.filter
def html_attrs(attrs: dict[str, Any], names: str) -> SafeString:
    """The attributes of ``attrs`` named in ``names`` (space-separated), each after a space:
    ``True`` as a bare attribute, a missing, ``None``, ``False`` or empty one left out."""
    given = {name: attrs.get(name) for name in names.split()}
    return flatatt({k: v for k, v in given.items() if v not in (None, False, "")})


#: allauth's button tags that the site draws as its secondary button.
SECONDARY = {"secondary", "danger", "outline"}


@register.filter
def button_attrs(attrs: dict[str, Any]) -> SafeString:
    """A ``<button>``'s attributes but its type (which the template writes, ``submit`` by
    default): allauth's own, and the site's secondary class for the buttons allauth tags as
    secondary, dangerous or outlined."""
    given = {name: attrs.get(name) for name in ("form", "id", "name", "value")}
    if SECONDARY & set(attrs.get("tags") or ()):
        given["class"] = "secondary"
    return flatatt({k: v for k, v in given.items() if v not in (None, False, "")})
