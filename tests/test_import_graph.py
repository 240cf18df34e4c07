"""The project's modules import each other without cycles: an import that closes a cycle
(including one inside a function, or under ``TYPE_CHECKING``) means a small module is
missing (board types, an invalidation seam, reference loading), not a local import to add."""

from __future__ import annotations

import grimp

PACKAGES = ("scoring", "leaderboard", "trackboard_cli")


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
