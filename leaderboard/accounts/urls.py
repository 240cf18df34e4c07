from __future__ import annotations

from django.urls import path

from leaderboard.accounts import views

app_name = "accounts"
urlpatterns = [
    path("signup/", views.signup, name="signup"),
    path("confirm/", views.confirm_sent, name="confirm-sent"),
    path("confirm/resend/", views.resend_confirmation, name="confirm-resend"),
    path("confirm/<uidb64>/<token>/", views.confirm, name="confirm"),
    path("profile/email/", views.change_address, name="address"),
    path("profile/", views.profile, name="profile"),
    path("profile/mail/", views.mail, name="mail"),
    path("profile/export/", views.export, name="export"),
    path("profile/delete/", views.delete, name="delete"),
    path("profile/tokens/", views.create_token, name="token-create"),
    path("profile/tokens/<int:pk>/revoke/", views.revoke_token, name="token-revoke"),
    path("profile/tokens/<int:pk>/renew/", views.renew_token, name="token-renew"),
]
