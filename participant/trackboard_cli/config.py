"""Where ``trackboard login`` keeps the site's URL and the token: a JSON file readable by its
owner only (mode 0600) in ``$XDG_CONFIG_HOME/trackboard/`` (or ``~/.config/trackboard/``);
``TRACKBOARD_CONFIG`` names another file (tests use it).

``TRACKBOARD_URL`` and ``TRACKBOARD_TOKEN``, when set, take the place of the file's values (a
CI job keeps its token in the environment and needs no file at all)."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path


class ConfigError(Exception):
    """The configuration is missing or unreadable; the message says what to do."""


@dataclass(frozen=True)
class Config:
    url: str
    token: str


def config_path() -> Path:
    explicit = os.environ.get("TRACKBOARD_CONFIG")
    if explicit:
        return Path(explicit).expanduser()
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base).expanduser() / "trackboard" / "config.json"


def save(config: Config) -> Path:
    path = config_path()
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    temporary = path.with_name(path.name + ".tmp")
    # Created with 0600 from the start: the token is never readable by others, even briefly.
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump({"url": config.url, "token": config.token}, handle, indent=2)
        handle.write("\n")
    os.chmod(temporary, 0o600)
    os.replace(temporary, path)
    return path


URL_VARIABLE = "TRACKBOARD_URL"
TOKEN_VARIABLE = "TRACKBOARD_TOKEN"


def load(token: str = "") -> Config:
    """The site and token: ``token`` (a command's ``--token``), then ``TRACKBOARD_URL`` /
    ``TRACKBOARD_TOKEN``, over the saved file."""
    url = os.environ.get(URL_VARIABLE, "").strip()
    token = token.strip() or os.environ.get(TOKEN_VARIABLE, "").strip()
    if url and token:
        return Config(url=url, token=token)
    path = config_path()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return Config(url=url or str(data["url"]), token=token or str(data["token"]))
    except FileNotFoundError:
        if url:  # public reads need no token
            return Config(url=url, token="")
        raise ConfigError(
            "Not logged in: run 'trackboard login --url URL' first, or set "
            f"{URL_VARIABLE} and {TOKEN_VARIABLE}."
        ) from None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ConfigError(
            f"Cannot read {path} ({exc}); run 'trackboard login --url URL' again."
        ) from None
