from __future__ import annotations

from django.urls import path

from leaderboard.teams import views

app_name = "teams"
urlpatterns = [
    path("", views.mine, name="mine"),
    path("new/", views.create, name="create"),
    path("join/", views.join, name="join"),
    path("join/<str:code>/", views.join_link, name="join_link"),
    path("<slug:slug>/", views.detail, name="detail"),
    path("<slug:slug>/leave/", views.leave, name="leave"),
    path("<slug:slug>/invite-code/", views.regenerate, name="regenerate"),
    path("<slug:slug>/anonymous/", views.anonymous, name="anonymous"),
    path("<slug:slug>/rename/", views.rename, name="rename"),
    path("<slug:slug>/members-listed/", views.list_members, name="list_members"),
]
