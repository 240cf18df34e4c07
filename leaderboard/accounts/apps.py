from __future__ import annotations

from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "leaderboard.accounts"
    label = "accounts"
    verbose_name = "Accounts"

    def ready(self) -> None:
        from allauth.account.signals import password_reset

        from leaderboard.accounts.services import lift_login_lock

        password_reset.connect(lift_login_lock, dispatch_uid="accounts.lift_login_lock")
