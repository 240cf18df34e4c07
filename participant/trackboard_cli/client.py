"""A small HTTP client for the Trackboard API on the standard library (urllib): JSON in and
out, multipart uploads, the API's error shape turned into :class:`ApiError`.

The token is a password: it is sent over https, or plain http to this machine (loopback) only,
unless the user says the network is trusted (``--allow-insecure-http`` or
``TRACKBOARD_ALLOW_INSECURE_HTTP=1``), and it never follows a redirect to another origin
(another scheme, host or port): urllib copies every header onto the redirected request, so
``Authorization`` is taken off there."""

from __future__ import annotations

import ipaddress
import json
import os
import secrets
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator, Mapping
from http.client import HTTPMessage
from pathlib import Path
from typing import IO, Any

from trackboard_cli import __version__

TIMEOUT = 60.0
#: The environment variable that allows a token over plain http to another machine.
ALLOW_HTTP_VARIABLE = "TRACKBOARD_ALLOW_INSECURE_HTTP"


def _origin(url: str) -> tuple[str, str, int | None]:
    parts = urllib.parse.urlsplit(url)
    default = {"http": 80, "https": 443}.get(parts.scheme)
    return parts.scheme, (parts.hostname or "").lower(), parts.port or default


def is_loopback(host: str) -> bool:
    """Whether ``host`` is this machine: ``localhost`` or a loopback address."""
    host = host.strip("[]").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def insecure_http_allowed(flag: bool = False) -> bool:
    """The ``--allow-insecure-http`` flag, or ``TRACKBOARD_ALLOW_INSECURE_HTTP`` set to a true
    value (1, true, yes, on)."""
    value = os.environ.get(ALLOW_HTTP_VARIABLE, "").strip().lower()
    return flag or value in {"1", "true", "yes", "on"}


class _SameOriginRedirects(urllib.request.HTTPRedirectHandler):
    """Follows redirects as urllib does, but sends ``Authorization`` on only to the origin it
    was meant for."""

    def redirect_request(
        self,
        req: urllib.request.Request,
        fp: IO[bytes],
        code: int,
        msg: str,
        headers: HTTPMessage,
        newurl: str,
    ) -> urllib.request.Request | None:
        new = super().redirect_request(req, fp, code, msg, headers, newurl)
        if new is not None and _origin(new.full_url) != _origin(req.full_url):
            for name in list(new.headers):
                if name.lower() == "authorization":
                    del new.headers[name]
        return new


_opener = urllib.request.build_opener(_SameOriginRedirects)


class ApiError(Exception):
    """An error answer (or no answer) from the server; ``str()`` is the server's message."""

    def __init__(
        self, message: str, *, status: int = 0, code: str = "", details: Any = None
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.details = details or {}


class Client:
    def __init__(self, url: str, token: str = "", *, allow_http: bool = False) -> None:
        self.base = url.rstrip("/") + "/api/v1/"
        self.token = token
        self.allow_http = insecure_http_allowed(allow_http)

    def url(self, path: str, params: Mapping[str, Any] | None = None) -> str:
        url = path if path.startswith(("http://", "https://")) else self.base + path.lstrip("/")
        query = {k: v for k, v in (params or {}).items() if v is not None}
        if query:
            url += ("&" if "?" in url else "?") + urllib.parse.urlencode(query)
        return url

    def get(self, path: str, params: Mapping[str, Any] | None = None) -> Any:
        return self._send(urllib.request.Request(self.url(path, params), method="GET"))

    def get_all(self, path: str, params: Mapping[str, Any] | None = None) -> Iterator[Any]:
        """Every item of a paginated list, following ``next`` links."""
        page = self.get(path, params)
        while True:
            yield from page["results"]
            if not page.get("next"):
                return
            page = self.get(page["next"])

    def post(self, path: str, body: Mapping[str, Any] | None = None) -> Any:
        """POST ``body`` as JSON (nothing without it)."""
        data = b"" if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.url(path), data=data, method="POST")
        if body is not None:
            request.add_header("Content-Type", "application/json")
        return self._send(request)

    def post_multipart(
        self,
        path: str,
        fields: Mapping[str, str],
        files: Mapping[str, Path],
        idempotency_key: str = "",
    ) -> Any:
        boundary = "trackboard-" + secrets.token_hex(16)
        body = bytearray()
        for name, value in fields.items():
            head = f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n'
            body += head.encode()
            body += value.encode() + b"\r\n"
        for name, file in files.items():
            body += (
                f"--{boundary}\r\nContent-Disposition: form-data; "
                f'name="{name}"; filename="{_quote(file.name)}"\r\n'
                "Content-Type: application/octet-stream\r\n\r\n"
            ).encode()
            body += file.read_bytes() + b"\r\n"
        body += f"--{boundary}--\r\n".encode()
        request = urllib.request.Request(self.url(path), data=bytes(body), method="POST")
        request.add_header("Content-Type", f"multipart/form-data; boundary={boundary}")
        if idempotency_key:
            request.add_header("Idempotency-Key", idempotency_key)
        return self._send(request)

    def check_transport(self, url: str) -> None:
        """Refuse to send the token to ``url`` over plain http unless it is this machine or
        the user allowed it."""
        scheme, host, _ = _origin(url)
        if self.token and scheme == "http" and not is_loopback(host) and not self.allow_http:
            raise ApiError(
                f"Refusing to send your API token over plain http to {host}: anyone on the "
                "network could read it. Use the site's https:// address; if you trust this "
                "network, pass --allow-insecure-http (or set "
                f"{ALLOW_HTTP_VARIABLE}=1)."
            )

    def download(self, path: str) -> bytes:
        """The body of a GET as bytes (a file, not JSON)."""
        raw: bytes = self._send(urllib.request.Request(self.url(path), method="GET"), raw=True)
        return raw

    def _send(self, request: urllib.request.Request, *, raw: bool = False) -> Any:
        request.add_header("Accept", "application/json")
        request.add_header("User-Agent", f"trackboard-cli/{__version__}")
        if self.token:
            self.check_transport(request.full_url)
            request.add_header("Authorization", f"Bearer {self.token}")
        try:
            with _opener.open(request, timeout=TIMEOUT) as response:
                body = response.read()
                return body if raw else json.loads(body or b"null")
        except urllib.error.HTTPError as exc:
            raise _error_from(exc) from None
        except urllib.error.URLError as exc:
            raise ApiError(f"Cannot reach {request.full_url}: {exc.reason}") from None
        except (TimeoutError, ConnectionError) as exc:
            raise ApiError(f"Cannot reach {request.full_url}: {exc}") from None
        except ValueError:
            raise ApiError(f"{request.full_url} did not answer with JSON.") from None


def _quote(name: str) -> str:
    return name.replace("\\", "_").replace('"', "_").replace("\r", "_").replace("\n", "_")


def _error_from(exc: urllib.error.HTTPError) -> ApiError:
    try:
        error = json.loads(exc.read())["error"]
        message, code, details = str(error["message"]), str(error["code"]), error.get("details")
    except (ValueError, KeyError, TypeError):
        message, code, details = f"The server answered {exc.code} {exc.reason}.", "", None
    if exc.code == 429 and exc.headers.get("Retry-After"):
        message += f" (retry after {exc.headers['Retry-After']} s)"
    return ApiError(message, status=exc.code, code=code, details=details)
