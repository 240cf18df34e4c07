"""The site's rules for django-allauth's account and sign-in flows.

- Mail: every account mail (an address's confirmation, a password reset) is composed in the
  request and handed to a worker (``tasks.send_account_mail``) once the request commits, so a
  slow, hung or stopped mail server delays the mail only, never the page.
- Links in mail are absolute on the site's public address (``SITE_URL``), not on whatever host
  the request named.
- Limits count the client address every other limit counts (``addresses.client_address``, which
  trusts only the configured proxies).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from allauth.account.adapter import DefaultAccountAdapter
from allauth.socialaccount.adapter import DefaultSocialAccountAdapter
from allauth.socialaccount.models import SocialApp
from django.conf import settings
from django.contrib.sites.shortcuts import get_current_site
from django.core.mail import EmailMessage, EmailMultiAlternatives
from django.http import Http404, HttpRequest
from django.urls import reverse

from leaderboard.addresses import client_address
from leaderboard.background import SEND_ACCOUNT_MAIL
from leaderboard.celery import send


def absolute(path: str) -> str:
    """``path`` on the site's public address (``SITE_URL``): links in mail are absolute."""
    return f"{settings.SITE_URL}{path}"


def mail_fields(message: EmailMessage) -> dict[str, Any]:
    """What a worker needs to send ``message`` again: plain JSON for the broker."""
    alternatives = getattr(message, "alternatives", [])
    return {
        "subject": message.subject,
        "body": message.body,
        "from_email": message.from_email,
        "to": list(message.to),
        "alternatives": [[content, mimetype] for content, mimetype in alternatives],
    }


def mail_from_fields(fields: dict[str, Any]) -> EmailMultiAlternatives:
    """The message ``mail_fields`` described."""
    message = EmailMultiAlternatives(
        fields["subject"], fields["body"], fields["from_email"], fields["to"]
    )
    for content, mimetype in fields.get("alternatives", []):
        message.attach_alternative(content, mimetype)
    return message


class AccountAdapter(DefaultAccountAdapter):
    def send_mail(self, template_prefix: str, email: str, context: dict[str, Any]) -> None:
        """Compose the mail here (its links and names are known now) and let a worker send it."""
        request = context.get("request") or self.request
        full = {
            "email": email,
            "site_url": settings.SITE_URL,
            "days": settings.ACCOUNT_EMAIL_CONFIRMATION_EXPIRE_DAYS,
            **context,
        }
        if request is not None:
            full.setdefault("request", request)
            full.setdefault("current_site", get_current_site(request))
        send(SEND_ACCOUNT_MAIL, mail_fields(self.render_mail(template_prefix, email, full)))

    def get_email_confirmation_url(self, request: HttpRequest, emailconfirmation: Any) -> str:
        return absolute(reverse("account_confirm_email", args=[emailconfirmation.key]))

    def get_reset_password_from_key_url(self, key: str) -> str:
        path = reverse("account_reset_password_from_key", kwargs={"uidb36": "UID", "key": "KEY"})
        return absolute(path.replace("UID-KEY", quote(key)))

    def get_client_ip(self, request: HttpRequest) -> str:
        return client_address(request)


class SocialAccountAdapter(DefaultSocialAccountAdapter):
    """Identity providers come from the environment (``SOCIALACCOUNT_PROVIDERS``); the log-in
    and callback pages of one the operator did not configure are not found (404), not a server
    error."""

    def get_app(self, request: HttpRequest, provider: Any, client_id: Any = None) -> Any:
        try:
            return super().get_app(request, provider, client_id)
        except SocialApp.DoesNotExist:
            raise Http404("This sign-in provider is not offered on this site.") from None
