"""What every Plotly figure of the site shares: the font, and text made safe for Plotly.

Plotly renders a few HTML tags inside labels and hover text, so every user-controlled string
(team, method, slot names) goes through ``text()``: escaped markup is shown by Plotly as
literal text, never interpreted.
"""

from __future__ import annotations

import html
import re

# a method name that already ends by saying it is a baseline ("Whisper + TripPy baseline",
# "TripPy (baseline)") is not marked a second time
_SAYS_BASELINE = re.compile(r"\bbaseline\)?\s*$", re.IGNORECASE)

FONT = {"family": "system-ui, -apple-system, Segoe UI, Roboto, sans-serif", "size": 13}


def text(value: object) -> str:
    """``value`` as Plotly-safe text: markup escaped, shown verbatim by Plotly."""
    return html.escape(str(value), quote=False)


def wrap(label: str, width: int = 12) -> str:
    """``label`` on two lines when longer than ``width``, broken after its last hyphen or
    space before the middle (Plotly's ``<br>``): category ticks that fit a phone's width."""
    if len(label) <= width:
        return label
    cut = max(label.rfind("-", 0, len(label) // 2 + 2), label.rfind(" ", 0, len(label) // 2 + 2))
    if cut <= 0:
        return label
    keep = label[: cut + 1] if label[cut] == "-" else label[:cut]
    return keep + "<br>" + label[cut + 1 :]


def baseline_method(method: str) -> str:
    """A baseline's method as charts name it: ``method (baseline)``, unless the name already
    ends with the word baseline."""
    return method if _SAYS_BASELINE.search(method) else f"{method} (baseline)"


def wrap_words(label: str, width: int = 20) -> str:
    """``label`` broken at spaces into lines of at most ``width`` characters (a longer word
    keeps a line of its own), joined by Plotly's ``<br>``: a long team name as a tick or a
    legend entry that fits a phone's width."""
    lines: list[str] = []
    for word in label.split(" "):
        if lines and len(lines[-1]) + 1 + len(word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return "<br>".join(lines)
