"""A throw-away site for the in-process benchmarks (``leaderboard.py``, ``signed_in.py``,
``upload.py``): private files, the embedded broker's folder and a SQLite file in a temporary
folder removed at exit, a local-memory cache, or a Postgres database dropped and created anew.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile


def fresh_database(url: str) -> None:
    """Drop and create the database of the Postgres ``url``, from the server's maintenance
    database."""
    from urllib.parse import urlsplit, urlunsplit

    import psycopg
    from psycopg import sql

    parts = urlsplit(url)
    name = parts.path.lstrip("/")
    maintenance = urlunsplit(parts._replace(path="/postgres"))
    with psycopg.connect(maintenance, autocommit=True) as connection:
        connection.execute(sql.SQL("DROP DATABASE IF EXISTS {}").format(sql.Identifier(name)))
        connection.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))


def throwaway_site(prefix: str, database_url: str = "") -> None:
    """Set the environment Django's settings read for a throw-away site: a temporary folder
    (``prefix`` starts its name), no Redis, and ``database_url``'s database made anew (empty: a
    SQLite file in the folder). Call it before ``django.setup()``."""
    workdir = tempfile.mkdtemp(prefix=prefix)
    atexit.register(shutil.rmtree, workdir, ignore_errors=True)
    os.environ["TRACKBOARD_VAR_DIR"] = workdir
    os.environ.pop("DATABASE_URL", None)
    os.environ.pop("REDIS_URL", None)
    if database_url:
        fresh_database(database_url)
        os.environ["DATABASE_URL"] = database_url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "leaderboard.settings")
