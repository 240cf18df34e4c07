"""Where the client sends the API token: never on to another origin a redirect points to (a
server answering 302 to another port, scheme or host), only over https or to this machine
unless the user allows plain http (``--allow-insecure-http`` or
``TRACKBOARD_ALLOW_INSECURE_HTTP``). The redirect tests run the real console script against
two servers on loopback."""

from __future__ import annotations

import http.server
import json
import threading
from collections.abc import Iterator

import pytest

from trackboard_cli.client import ALLOW_HTTP_VARIABLE, ApiError, Client, is_loopback

EMPTY = {"count": 0, "next": None, "previous": None, "results": []}


class Recorder:
    """A server on loopback recording each request's path and Authorization header; answers
    ``redirects[path]`` with a 302 there, anything else with an empty page of teams."""

    def __init__(self, host: str = "127.0.0.1") -> None:
        self.seen: list[tuple[str, str | None]] = []
        self.redirects: dict[str, str] = {}
        recorder = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                recorder.seen.append((self.path, self.headers.get("Authorization")))
                target = recorder.redirects.get(self.path)
                if target:
                    self.send_response(302)
                    self.send_header("Location", target)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                body = json.dumps(EMPTY).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer((host, 0), Handler)
        self.port = self.server.server_address[1]
        self.url = f"http://{host}:{self.port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def servers() -> Iterator[tuple[Recorder, Recorder]]:
    first, other = Recorder(), Recorder()
    yield first, other
    first.close()
    other.close()


TOKEN = "tb_secret-token-of-the-test"


def test_a_redirect_to_another_port_never_receives_the_token(servers, run_cli):
    site, elsewhere = servers
    site.redirects["/api/v1/teams/mine/"] = f"{elsewhere.url}/api/v1/teams/mine/"
    done = run_cli("login", "--url", site.url, "--token", TOKEN)
    assert done.returncode == 0, done.stderr
    assert site.seen == [("/api/v1/teams/mine/", f"Bearer {TOKEN}")]
    assert elsewhere.seen == [("/api/v1/teams/mine/", None)]


def test_a_redirect_to_the_same_origin_keeps_the_token(servers, run_cli):
    site, _ = servers
    site.redirects["/api/v1/teams/mine/"] = "/api/v1/teams/mine/?page=1"
    assert run_cli("login", "--url", site.url, "--token", TOKEN).returncode == 0
    assert site.seen == [
        ("/api/v1/teams/mine/", f"Bearer {TOKEN}"),
        ("/api/v1/teams/mine/?page=1", f"Bearer {TOKEN}"),
    ]


def test_another_host_name_for_the_same_machine_is_another_origin(servers, run_cli):
    site, elsewhere = servers
    site.redirects["/api/v1/teams/mine/"] = f"http://localhost:{elsewhere.port}/api/v1/teams/mine/"
    assert run_cli("login", "--url", site.url, "--token", TOKEN).returncode == 0
    assert elsewhere.seen == [("/api/v1/teams/mine/", None)]


def test_plain_http_to_another_machine_is_refused_before_anything_is_sent(run_cli, cli_env):
    cli_env.pop(ALLOW_HTTP_VARIABLE, None)
    done = run_cli("login", "--url", "http://trackboard.example", "--token", TOKEN)
    assert done.returncode == 1
    assert "Refusing to send your API token over plain http to trackboard.example" in done.stderr
    assert "--allow-insecure-http" in done.stderr and ALLOW_HTTP_VARIABLE in done.stderr
    assert "Traceback" not in done.stderr


def test_the_flag_and_the_variable_allow_plain_http(monkeypatch):
    monkeypatch.delenv(ALLOW_HTTP_VARIABLE, raising=False)
    url = "http://trackboard.example/api/v1/teams/mine/"
    with pytest.raises(ApiError, match="Refusing"):
        Client("http://trackboard.example", TOKEN).check_transport(url)
    Client("http://trackboard.example", TOKEN, allow_http=True).check_transport(url)
    monkeypatch.setenv(ALLOW_HTTP_VARIABLE, "1")
    Client("http://trackboard.example", TOKEN).check_transport(url)
    monkeypatch.setenv(ALLOW_HTTP_VARIABLE, "no")
    with pytest.raises(ApiError):
        Client("http://trackboard.example", TOKEN).check_transport(url)
    # https anywhere, and plain http to this machine, need nothing; nor does a request
    # without a token (the public pages)
    Client("https://trackboard.example", TOKEN).check_transport("https://trackboard.example/")
    Client("http://trackboard.example").check_transport(url)


@pytest.mark.parametrize(
    ("host", "loopback"),
    [("localhost", True), ("127.0.0.1", True), ("127.8.9.1", True), ("[::1]", True),
     ("app.localhost", True), ("10.0.0.1", False), ("trackboard.example", False),
     ("localhost.example.org", False)],
)  # fmt: skip
def test_what_counts_as_this_machine(host, loopback):
    assert is_loopback(host) is loopback
