from __future__ import annotations

from django.urls import path

from leaderboard.accounts import views

app_name = "accounts"
urlpatterns = [
    path("profile/", views.profile, name="profile"),
    path("profile/mail/", views.mail, name="mail"),
    path("profile/export/", views.export, name="export"),
    path("profile/delete/", views.delete, name="delete"),
    path("profile/tokens/", views.create_token, name="token-create"),
    path("profile/tokens/<int:pk>/revoke/", views.revoke_token, name="token-revoke"),
    path("profile/tokens/<int:pk>/renew/", views.renew_token, name="token-renew"),
]
