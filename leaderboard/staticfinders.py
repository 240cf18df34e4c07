"""Third-party front-end assets served from installed Python packages, never from a CDN or a
copy in the repository.

plotly.js ships inside the ``plotly`` Python package (``plotly/package_data/plotly.min.js``);
this finder exposes that one file as ``vendor/plotly.min.js``, so ``{% static %}``, runserver,
whitenoise (which lists finders) and ``collectstatic`` all see it, and its version always
matches the pinned ``plotly`` package. Only the listed files are exposed, not the whole
package directory (which also holds sample data sets).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.contrib.staticfiles.finders import BaseFinder
from django.core.files.storage import FileSystemStorage

PREFIX = "vendor"


def _plotly_dir() -> Path:
    import plotly

    return Path(plotly.__file__).resolve().parent / "package_data"


#: static path (under ``vendor/``) -> (package directory, file name inside it)
FILES = {"plotly.min.js": _plotly_dir}


class PackageAssetFinder(BaseFinder):
    """Find ``vendor/<name>`` in the installed package that ships it."""

    def _storage(self, name: str) -> FileSystemStorage:
        storage = FileSystemStorage(location=str(FILES[name]()))
        storage.prefix = PREFIX  # type: ignore[attr-defined]  # read by collectstatic/whitenoise
        return storage

    def check(self, **kwargs: Any) -> list[Any]:
        return []

    def find(self, path: str, find_all: bool = False, **kwargs: Any) -> Any:
        prefix, _, name = path.replace("\\", "/").partition("/")
        if prefix != PREFIX or name not in FILES:
            return [] if find_all else None
        found = str(FILES[name]() / name)
        if not Path(found).is_file():
            return [] if find_all else None
        return [found] if find_all else found

    def list(self, ignore_patterns: Any) -> Any:
        for name in FILES:
            storage = self._storage(name)
            if storage.exists(name):
                yield name, storage
