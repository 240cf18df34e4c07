"""The project's modules import each other without cycles, and only downwards through the layers
of docs/architecture.md ("Layers"). An import that closes a cycle or goes up a layer (including
one inside a function, or under ``TYPE_CHECKING``) means a small module is missing (board
types, an invalidation seam, reference loading, a neutral helper), not a local import to add."""

from __future__ import annotations

import sys

import grimp

PACKAGES = ("scoring", "leaderboard", "trackboard_cli")

#: The root modules of the project below every app, and those above every app.
BASE = ("env", "settings", "ids", "numbers", "plotting", "storage", "addresses", "celery",
        "background", "beat", "spreadsheets", "throttles", "leases", "adminsite",
        "requestids")  # fmt: skip
TOP = ("api", "accounts", "operations", "organisers", "demo", "urls", "views", "security",
       "errorpages", "wsgi", "asgi", "gunicorn")  # fmt: skip

#: The layers, lowest first: a module may import modules of its own layer and of lower ones,
#: never of a higher one. A name covers the module of that name and every module under it
#: (the longest name that covers a module places it), except ``leaderboard`` itself, which
#: covers only the package's ``__init__``; ``PAGES`` of every app are in the top layer.
LAYERS: dict[str, tuple[str, ...]] = {
    "scoring": ("scoring",),
    "client": ("trackboard_cli",),
    "base": ("leaderboard", *(f"leaderboard.{name}" for name in BASE)),
    "challenges": ("leaderboard.challenges",),
    "teams": ("leaderboard.teams",),
    "submissions": ("leaderboard.submissions",),
    "rankings": ("leaderboard.rankings",),
    "analyses": ("leaderboard.analyses",),
    "top": tuple(f"leaderboard.{name}" for name in TOP),
}
#: An app's pages, whatever its layer: ``leaderboard.<app>.<page>`` and everything under it.
PAGES = ("views", "admin", "urls", "templatetags", "management")
#: What the client, which participants install without the server, may import besides itself
#: and the standard library: the scorer, and the shell-completion library that the participant
#: package depends on (participant/pyproject.toml).
CLIENT_MAY_IMPORT = ("scoring", "argcomplete")

ORDER = {name: i for i, name in enumerate(LAYERS)}


def _covers(name: str, module: str) -> bool:
    if name == "leaderboard":
        return module == name
    return module == name or module.startswith(name + ".")


def layer_of(module: str) -> str | None:
    """The layer ``module`` is in; None for a module outside the project (an external package)
    and for one of the project that no layer names."""
    parts = module.split(".")
    if parts[0] == "leaderboard" and len(parts) >= 3 and parts[2] in PAGES:
        return "top"
    found = [
        (len(name), layer) for layer, names in LAYERS.items() for name in names
        if _covers(name, module)
    ]  # fmt: skip
    return max(found)[1] if found else None


def unplaced(graph: grimp.ImportGraph) -> list[str]:
    """The project's modules no layer names."""
    return sorted(m for m in graph.modules if m.split(".")[0] in PACKAGES and layer_of(m) is None)


def upward(graph: grimp.ImportGraph) -> list[str]:
    """Every direct import that breaks the layers: from a lower layer to a higher one, or from
    the client to anything but itself, ``CLIENT_MAY_IMPORT`` and the standard library."""
    found = []
    for importer in sorted(graph.modules):
        low = layer_of(importer)
        if low is None:
            continue
        for imported in sorted(graph.find_modules_directly_imported_by(importer)):
            high = layer_of(imported)
            if high is not None and ORDER[high] > ORDER[low]:
                found.append(f"{importer} ({low}) -> {imported} ({high})")
            elif low == "client" and not _client_may_import(imported):
                found.append(f"{importer} (client) -> {imported} (not for the client)")
    return found


def _client_may_import(module: str) -> bool:
    top = module.split(".")[0]
    return top in ("trackboard_cli", *CLIENT_MAY_IMPORT) or top in sys.stdlib_module_names


def project_graph() -> grimp.ImportGraph:
    # External packages are in the graph (each as one module) for the client's rule.
    return grimp.build_graph(*PACKAGES, cache_dir=None, include_external_packages=True)


def cycles(graph: grimp.ImportGraph) -> list[str]:
    """Every direct import that has a chain of imports back to its importer, with that chain."""
    found = []
    for importer in sorted(graph.modules):
        for imported in sorted(graph.find_modules_directly_imported_by(importer)):
            back = graph.find_shortest_chain(importer=imported, imported=importer)
            if back is not None:
                found.append(" -> ".join((importer, *back)))
    return found


def test_the_projects_modules_import_each_other_without_cycles():
    graph = grimp.build_graph(*PACKAGES, cache_dir=None)
    assert "leaderboard.rankings.boards" in graph.modules
    assert cycles(graph) == []


def test_a_cycle_is_found_wherever_its_imports_are():
    graph = grimp.ImportGraph()
    for module in ("a", "a.b", "a.c", "a.d"):
        graph.add_module(module)
    graph.add_import(importer="a.b", imported="a.c")
    graph.add_import(importer="a.c", imported="a.d")
    graph.add_import(importer="a.d", imported="a.b")
    assert cycles(graph) == ["a.b -> a.c -> a.d -> a.b", "a.c -> a.d -> a.b -> a.c",
                             "a.d -> a.b -> a.c -> a.d"]  # fmt: skip


def test_every_module_of_the_project_is_in_a_layer():
    assert unplaced(project_graph()) == []


def test_no_module_imports_from_a_higher_layer():
    graph = project_graph()
    assert "leaderboard.rankings.boards" in graph.modules
    assert upward(graph) == []


def test_an_import_from_a_lower_layer_to_a_higher_one_is_reported_alone():
    graph = project_graph()
    graph.add_import(
        importer="leaderboard.challenges.models", imported="leaderboard.rankings.boards"
    )
    assert upward(graph) == [
        "leaderboard.challenges.models (challenges) -> leaderboard.rankings.boards (rankings)"
    ]


def test_the_client_may_import_only_itself_scoring_completion_and_the_standard_library():
    graph = project_graph()
    graph.add_import(importer="trackboard_cli.main", imported="leaderboard.env")
    graph.add_import(importer="trackboard_cli.client", imported="numpy")
    assert upward(graph) == [
        "trackboard_cli.client (client) -> numpy (not for the client)",
        "trackboard_cli.main (client) -> leaderboard.env (base)",
    ]


def test_each_module_is_in_the_layer_the_architecture_gives_it():
    assert {
        module: layer_of(module)
        for module in (
            "scoring.stats", "trackboard_cli.main", "leaderboard", "leaderboard.throttles",
            "leaderboard.challenges.models", "leaderboard.challenges.migrations.0001_initial",
            "leaderboard.teams.services", "leaderboard.submissions.impact",
            "leaderboard.rankings.compute", "leaderboard.analyses.exports",
            "leaderboard.analyses.views", "leaderboard.challenges.urls",
            "leaderboard.rankings.templatetags.scores",
            "leaderboard.rankings.management.commands.build_boards",
            "leaderboard.organisers.dashboard", "leaderboard.urls", "django.db", "leaderboard.new",
        )
    } == {
        "scoring.stats": "scoring", "trackboard_cli.main": "client", "leaderboard": "base",
        "leaderboard.throttles": "base", "leaderboard.challenges.models": "challenges",
        "leaderboard.challenges.migrations.0001_initial": "challenges",
        "leaderboard.teams.services": "teams", "leaderboard.submissions.impact": "submissions",
        "leaderboard.rankings.compute": "rankings", "leaderboard.analyses.exports": "analyses",
        "leaderboard.analyses.views": "top", "leaderboard.challenges.urls": "top",
        "leaderboard.rankings.templatetags.scores": "top",
        "leaderboard.rankings.management.commands.build_boards": "top",
        "leaderboard.organisers.dashboard": "top", "leaderboard.urls": "top",
        "django.db": None, "leaderboard.new": None,
    }  # fmt: skip
