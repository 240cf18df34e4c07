"""Mail tests' set-up: a real SMTP server on loopback (aiosmtpd), and the accounts' mail tasks
run in this process as a worker would run them."""

from __future__ import annotations

import socket
import threading
import time

import pytest
from aiosmtpd.controller import Controller

SITE = "https://trackboard.example.org"


class Inbox:
    """An aiosmtpd handler keeping what the server accepted."""

    def __init__(self) -> None:
        self.received: list[tuple[list[str], str]] = []

    async def handle_DATA(self, server, session, envelope):
        self.received.append((list(envelope.rcpt_tos), envelope.content.decode("utf-8")))
        return "250 OK"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def use_smtp(settings, port: int) -> None:
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", port
    settings.EMAIL_USE_TLS = settings.EMAIL_USE_SSL = False
    settings.EMAIL_HOST_USER = settings.EMAIL_HOST_PASSWORD = ""
    settings.SITE_URL = SITE


@pytest.fixture
def smtp(settings):
    inbox = Inbox()
    port = free_port()
    controller = Controller(inbox, hostname="127.0.0.1", port=port)
    controller.start()
    use_smtp(settings, port)
    yield inbox
    controller.stop()


class HungServer:
    """A mail server that accepts connections and never says a word (as a stuck one does);
    counts the connections it accepted. It hangs up ``GIVE_UP`` seconds after accepting one,
    so a client without a timeout of its own ends with another error than a timeout instead
    of waiting for ever."""

    GIVE_UP = 60

    def __init__(self) -> None:
        self.socket = socket.socket()
        self.socket.bind(("127.0.0.1", 0))
        self.socket.listen(16)
        self.port = self.socket.getsockname()[1]
        self.connections: list[socket.socket] = []
        self._stop = threading.Event()
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self) -> None:
        self.socket.settimeout(0.1)
        accepted: list[tuple[float, socket.socket]] = []
        while not self._stop.is_set():
            for at, connection in accepted:
                if time.monotonic() - at > self.GIVE_UP:
                    connection.close()
            try:
                connection, _ = self.socket.accept()
            except OSError:
                continue
            self.connections.append(connection)
            accepted.append((time.monotonic(), connection))

    def close(self) -> None:
        self._stop.set()
        self.thread.join(2)
        for connection in self.connections:
            connection.close()
        self.socket.close()


@pytest.fixture
def hung_smtp(settings):
    server = HungServer()
    use_smtp(settings, server.port)
    settings.EMAIL_TIMEOUT = 1
    yield server
    server.close()
