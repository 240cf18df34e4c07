"""The admin application with the project's own default site, whose every page records its
writes in the audit log (``challenges.admin_trail.AuditedSite``)."""

from __future__ import annotations

from django.contrib.admin.apps import AdminConfig


class AuditedAdminConfig(AdminConfig):
    """``django.contrib.admin`` with ``AuditedSite`` as ``admin.site``."""

    default_site = "leaderboard.challenges.admin_trail.AuditedSite"
