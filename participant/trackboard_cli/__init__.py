"""``trackboard``: submit to a Trackboard site and read its results from the command line."""

from __future__ import annotations

from scoring.version import __version__

__all__ = ["__version__"]
