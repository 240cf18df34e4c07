"""Every URL pattern of the project, found by walking Django's resolver, with its kwargs filled
from the objects a test made: pages added later are covered without editing a list."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from django.urls import URLPattern, URLResolver, get_resolver, reverse


@dataclass(frozen=True)
class Route:
    name: str  # "namespace:name" (admin routes included)
    kwargs: tuple[str, ...]  # the names the pattern captures


def _walk(patterns, namespace: str = "", outer: tuple[str, ...] = ()) -> Iterator[Route]:
    """``outer``: the names the including patterns capture (``keys/<int:pk>/`` around
    ``edit/``)."""
    for entry in patterns:
        if isinstance(entry, URLResolver):
            inner = entry.namespace or ""
            full = f"{namespace}:{inner}" if namespace and inner else (inner or namespace)
            captured = (*outer, *entry.pattern.regex.groupindex)
            yield from _walk(entry.url_patterns, full, captured)
        elif isinstance(entry, URLPattern):
            if not entry.name:
                yield Route(f"{namespace}:<unnamed {entry.pattern}>", ())
                continue
            name = f"{namespace}:{entry.name}" if namespace else entry.name
            kwargs = (*outer, *entry.pattern.regex.groupindex)
            yield Route(name, kwargs)


def all_routes() -> list[Route]:
    seen: dict[str, Route] = {}
    for route in _walk(get_resolver().url_patterns):
        seen.setdefault(route.name, route)
    return sorted(seen.values(), key=lambda r: r.name)


def url_for(route: Route, values: dict[str, dict[str, object]]) -> str:
    """Reverse ``route`` with kwargs from ``values[route.name]`` or ``values["*"]``."""
    own = values.get(route.name, {})
    kwargs = {k: own.get(k, values["*"].get(k)) for k in route.kwargs}
    missing = [k for k, v in kwargs.items() if v is None]
    if missing:
        raise LookupError(f"no value for {missing} of URL {route.name!r}")
    return reverse(route.name, kwargs=kwargs)
