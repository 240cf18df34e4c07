"""Where ``trackboard login`` keeps the site's URL and the token: a JSON file readable by its
owner only (mode 0600) in ``$XDG_CONFIG_HOME/trackboard/`` (or ``~/.config/trackboard/``);
``TRACKBOARD_CONFIG`` names another file (tests use it)."""

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


def load() -> Config:
    path = config_path()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return Config(url=str(data["url"]), token=str(data["token"]))
    except FileNotFoundError:
        raise ConfigError("Not logged in: run 'trackboard login --url URL' first.") from None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ConfigError(
            f"Cannot read {path} ({exc}); run 'trackboard login --url URL' again."
        ) from None
