"""``{% mail_is_printed %}``: whether the site prints its mail instead of sending it (the
embedded default, no mail server configured), so that a page that says "check your e-mail"
can say where that mail really is: in the terminal running the site."""

from __future__ import annotations

from django import template
from django.conf import settings

register = template.Library()

PRINTED = "django.core.mail.backends.console.EmailBackend"


@register.simple_tag
def mail_is_printed() -> bool:
    return bool(settings.EMAIL_BACKEND == PRINTED)
