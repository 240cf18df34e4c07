"""An OpenID Connect identity provider in the settings, as the environment sets one."""

from __future__ import annotations

from typing import Any


def use_provider(settings: Any, issuer: str, name: str = "Campus ID") -> None:
    """Settings as TRACKBOARD_OIDC_ISSUER/_CLIENT_ID/_SECRET/_NAME make them, on ``issuer``
    (its origin allowed as a form's target, as settings.py allows a configured provider's)."""
    app = {"provider_id": "oidc", "name": name, "client_id": "trackboard", "secret": "s3cret"}
    app["settings"] = {"server_url": issuer}
    settings.SOCIALACCOUNT_PROVIDERS = {"openid_connect": {"APPS": [app]}}
    settings.CONTENT_SECURITY_POLICY = settings.CONTENT_SECURITY_POLICY.replace(
        "form-action 'self'", f"form-action 'self' {issuer}"
    )
