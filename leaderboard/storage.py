"""Private file storage for references, prediction files and the files of a phase.

Files are stored under random names (never the uploaded name) outside MEDIA_ROOT, and ``url()``
refuses: nothing in Trackboard may link to a hidden reference or another team's predictions.
Code reads them through ``open()`` only; the files organisers publish with a phase are served
by a view of their own (``challenges.views.phase_file``).
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import uuid
from typing import Any, cast

from django.core.files.base import ContentFile
from django.core.files.storage import FileSystemStorage, Storage, storages
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.utils.functional import LazyObject, empty

log = logging.getLogger(__name__)


class StorageUnavailable(OSError):
    """Private storage did not take or give back a file (a full or read-only disk, an object
    store refusing requests): a fault of the site, never of the request. The site answers it
    with 503 and ``Retry-After``; scoring retries it like any other fault of the site."""


class PrivateStorage(FileSystemStorage):
    def url(self, name: str | None) -> str:
        raise ValueError("private files have no URL")


class _PrivateStorageProxy(LazyObject):
    """Resolves ``storages["private"]`` lazily, like Django's ``default_storage``.

    A FileField evaluates its storage callable once, at import; this proxy lets the location
    follow the STORAGES setting when it changes (tests give each test its own directory).
    """

    _wrapped: object  # the storage, or ``empty`` before the first use

    def _setup(self) -> None:
        self._wrapped = storages["private"]


_private = _PrivateStorageProxy()


@receiver(setting_changed)
def _reset(*, setting: str, **kwargs: Any) -> None:
    if setting == "STORAGES":
        _private._wrapped = empty


def private_storage() -> Storage:
    """The ``private`` storage alias; a callable so migrations do not freeze its location."""
    return cast(Storage, _private)  # the proxy passes every attribute on to the storage


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


def store_whole(prefix: str, data: bytes) -> str:
    """Store ``data`` under a new random name in private storage and return the name; when
    the storage fails part-way (a disk that fills up during the write leaves an empty or
    partial file), remove what it left and raise ``StorageUnavailable``."""
    storage = private_storage()
    name = random_name(prefix)
    try:
        return storage.save(name, ContentFile(data))
    except Exception as exc:
        log.exception("private storage could not store %s", name)
        with contextlib.suppress(Exception):
            storage.delete(name)  # the random name is new: whatever is there is this write's
        raise StorageUnavailable(f"private storage could not store {name}") from exc
