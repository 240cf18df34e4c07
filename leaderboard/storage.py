"""Private file storage for references, prediction files and the files of a phase.

Files are stored under random names (never the uploaded name) outside MEDIA_ROOT, and ``url()``
refuses: nothing in Trackboard may link to a hidden reference or another team's predictions.
Code reads them through ``open()`` only; the files organisers publish with a phase are served
by a view of their own (``challenges.views.phase_file``).
"""

from __future__ import annotations

import hashlib
import uuid
from typing import Any

from django.core.files.storage import FileSystemStorage, Storage, storages
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.utils.functional import LazyObject, empty


class PrivateStorage(FileSystemStorage):
    def url(self, name: str | None) -> str:
        raise ValueError("private files have no URL")


class _PrivateStorageProxy(LazyObject):
    """Resolves ``storages["private"]`` lazily, like Django's ``default_storage``.

    A FileField evaluates its storage callable once, at import; this proxy lets the location
    follow the STORAGES setting when it changes (tests give each test its own directory).
    """

    def _setup(self) -> None:
        self._wrapped = storages["private"]


_private = _PrivateStorageProxy()


@receiver(setting_changed)
def _reset(*, setting: str, **kwargs: Any) -> None:
    if setting == "STORAGES":
        _private._wrapped = empty


def private_storage() -> Storage:
    """The ``private`` storage alias; a callable so migrations do not freeze its location."""
    return _private  # type: ignore[return-value]


def random_name(prefix: str) -> str:
    """A stored name that reveals nothing about the uploaded file."""
    return f"{prefix}/{uuid.uuid4().hex}"


def reference_upload_to(instance: object, filename: str) -> str:
    return random_name("references")


def phase_file_upload_to(instance: object, filename: str) -> str:
    return random_name("phase-files")


def submission_upload_to(instance: object, filename: str) -> str:
    return random_name("submissions")


def sha256_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
