"""Running the real ``trackboard`` console script as a subprocess."""

from __future__ import annotations

import http.server
import json
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

# The web tests' isolation (private storage, cache prefix, queue), fast password hashing and
# the enqueue recorder apply to the live server these tests drive.
from tests.leaderboard.conftest import (  # noqa: F401
    _fast_password_hashing,
    _isolated,
    enqueued,
    isolation,
    postgres,
    published,
    redis_url,
    start_worker,
)


def trackboard_command() -> list[str]:
    script = Path(sys.executable).with_name("trackboard")
    if script.exists():
        return [str(script)]
    found = shutil.which("trackboard")
    return [found] if found else [sys.executable, "-m", "trackboard_cli"]


@pytest.fixture
def cli_env(tmp_path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HTTP_PROXY", "http_proxy"))}
    env["TRACKBOARD_CONFIG"] = str(tmp_path / "config" / "trackboard.json")
    env["NO_PROXY"] = "*"
    return env


@pytest.fixture
def run_cli(cli_env):
    def run(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*trackboard_command(), *args],
            capture_output=True,
            text=True,
            env=cli_env,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
        )

    return run


class FakeSite:
    """A stand-in for a Trackboard site on a local port: answers GETs from ``pages`` (path ->
    JSON) and records every request, so a test can tell that nothing was uploaded."""

    def __init__(self, pages: dict[str, object]) -> None:
        self.pages = pages
        self.requests: list[tuple[str, str]] = []
        #: the body and the headers of each request, in order
        self.bodies: list[bytes] = []
        self.headers: list[dict[str, str]] = []
        site = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def _answer(self) -> None:
                site.requests.append((self.command, self.path))
                length = int(self.headers.get("Content-Length") or 0)
                site.bodies.append(self.rfile.read(length))
                site.headers.append(dict(self.headers.items()))
                path = self.path.split("?")[0].removeprefix("/api/v1/")
                # a POST's answer is under "POST path" (none: 404)
                key = path if self.command == "GET" else f"{self.command} {path}"
                found = site.pages.get(key)
                status = 200
                if isinstance(found, list):  # answers in turn: (status, JSON)
                    status, found = found.pop(0) if len(found) > 1 else found[0]
                body = json.dumps(
                    found if found is not None else {"error": {"code": "not_found",
                    "message": "Not found.", "details": {}}}
                ).encode()  # fmt: skip
                self.send_response(status if found is not None else 404)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_POST = _answer

            def log_message(self, *args: object) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def posts(self) -> list[str]:
        return [path for method, path in self.requests if method != "GET"]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def fake_site(cli_env):
    """``fake_site(pages)`` starts a FakeSite and logs the command in to it."""
    sites: list[FakeSite] = []

    def start(pages: dict[str, object]) -> FakeSite:
        site = FakeSite(pages)
        sites.append(site)
        path = Path(cli_env["TRACKBOARD_CONFIG"])
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"url": site.url, "token": "tb_x"}))
        return site

    yield start
    for site in sites:
        site.close()
