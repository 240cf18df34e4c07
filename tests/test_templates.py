"""Every template of the site stays readable in a review: no line over 120 characters (the
``max_line_length`` djLint formats them to, which does not wrap long text or tags)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LIMIT = 120


def long_lines(roots: list[Path]) -> list[str]:
    """``path:line (length)`` of every template line over ``LIMIT`` characters."""
    found = []
    for root in roots:
        for path in sorted(root.rglob("*.html")):
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if len(line) > LIMIT:
                    found.append(f"{path.relative_to(ROOT)}:{number} ({len(line)})")
    return found


def test_no_template_line_is_over_120_characters():
    roots = [ROOT / "leaderboard", ROOT / "templates"]
    assert [p for r in roots for p in r.rglob("*.html")], "no template found"
    assert long_lines(roots) == []


def test_a_long_line_is_named_with_its_file_and_number(tmp_path, monkeypatch):
    monkeypatch.setattr(f"{__name__}.ROOT", tmp_path)
    page = tmp_path / "app" / "page.html"
    page.parent.mkdir()
    page.write_text("<p>short</p>\n<p>" + "x" * 114 + "</p>\n", encoding="utf-8")  # 121 wide
    assert long_lines([tmp_path / "app"]) == ["app/page.html:2 (121)"]
