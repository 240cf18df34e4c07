"""The fuzz tests use the web tests' isolation and fixtures."""

from tests.leaderboard.conftest import (  # noqa: F401
    _fast_password_hashing,
    _isolated,
    enqueued,
    isolation,
    published,
    worker,
)
