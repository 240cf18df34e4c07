from __future__ import annotations

from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "leaderboard.accounts"
    label = "accounts"
    verbose_name = "Accounts"

    def ready(self) -> None:
        from allauth.account.signals import password_reset
        from allauth.mfa.signals import authenticator_added

        from leaderboard.accounts.services import lift_login_lock
        from leaderboard.challenges.factors import factor_added

        password_reset.connect(lift_login_lock, dispatch_uid="accounts.lift_login_lock")
        authenticator_added.connect(factor_added, dispatch_uid="accounts.factor_added")
