"""A challenge's pages (overview, data, evaluation, rules, terms): Markdown written by its
organisers, rendered to HTML and then sanitised.

The Markdown is CommonMark with tables and strikethrough, a line break kept as one; raw HTML
in it is shown as text, not interpreted. Headings move two levels down (``#`` is an ``h3``),
under the page's ``h1`` and each section's ``h2``. The sanitiser then keeps only the tags and
attributes below, links only to http(s) and mailto addresses, each marked ``nofollow noopener
noreferrer``; no image, style or script can reach a reader's browser."""

from __future__ import annotations

import nh3
from markdown_it import MarkdownIt

#: (field of Challenge, section title), in the order the challenge page shows them
PAGES = (
    ("description", "Overview"),
    ("data", "Data"),
    ("evaluation", "Evaluation"),
    ("rules", "Rules"),
    ("terms", "Terms"),
)

TAGS = {
    "p", "br", "hr", "h3", "h4", "h5", "h6", "ul", "ol", "li", "blockquote", "pre", "code",
    "em", "strong", "del", "s", "a", "table", "thead", "tbody", "tr", "th", "td",
}  # fmt: skip
ATTRIBUTES = {"a": {"href", "title"}, "ol": {"start"}}

# ``breaks``: a line break in the text is one on the page, as in plain text.
_parser = MarkdownIt("commonmark", {"html": False, "breaks": True}).enable(
    ["table", "strikethrough"]
)


def render(text: str) -> str:
    """Sanitised HTML of the Markdown ``text``."""
    tokens = _parser.parse(text or "")
    for token in tokens:
        if token.type in ("heading_open", "heading_close"):
            token.tag = f"h{min(int(token.tag[1]) + 2, 6)}"
    html = _parser.renderer.render(tokens, _parser.options, {})
    return nh3.clean(
        html,
        tags=TAGS,
        attributes=ATTRIBUTES,
        url_schemes={"http", "https", "mailto"},
        link_rel="nofollow noopener noreferrer",
    )
