"""Private storage on an S3-compatible object store (django-storages, the ``s3`` extra).

Objects are written with the ``private`` ACL and ``url()`` refuses, as on disk: no public or
pre-signed link to a reference or a prediction file is ever produced. Imported only when
``TRACKBOARD_PRIVATE_STORAGE=s3``.
"""

from __future__ import annotations

from storages.backends.s3 import S3Storage


class PrivateS3Storage(S3Storage):
    default_acl = "private"

    def url(self, name: str, *args: object, **kwargs: object) -> str:
        raise ValueError("private files have no URL")
