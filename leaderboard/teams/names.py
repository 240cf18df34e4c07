"""Team names: what a name may contain, its stored form, and the key two names are compared by.

A name is stored in Unicode NFKC (full-width letters become ASCII ones, compatibility forms
their plain letters, every kind of space a plain space) with its spaces collapsed; the case the
team typed is kept for display. A name with an invisible character (zero-width spaces and
joiners, fillers, variation selectors), a control character or a bidirectional control (a
right-to-left override, isolates, marks) is refused: such a name can look like another one, or
make the text around it read backwards, and nothing a team needs to write uses them.

Two names are the same name when their keys are equal: the Unicode TR39 confusable skeleton of
the case-folded NFKC form (``disarm.skeleton_key`` with TR39's digit classes, so ``1`` reads as
``l`` and ``0`` as ``O``, as they do in many fonts). ``Team \u0391lpha`` with a Greek capital alpha,
Cyrillic letters standing in for Latin ones and ``team alpha`` all have the key of
``Team Alpha``. disarm rather than the better known confusable-homoglyphs: that one tells
whether one string mixes scripts dangerously but has no skeleton to compare two names by, and
ICU's spoof checker (PyICU) needs ICU compiled on the machine; disarm ships TR39's tables in a
wheel.
"""

from __future__ import annotations

import unicodedata

from disarm import skeleton_key

#: The longest stored name (``Team.name``).
MAX_LENGTH = 100
#: Categories refused: controls, format characters (zero-width characters, bidirectional
#: controls, soft hyphen, byte-order mark), surrogates, private use, unassigned code points,
#: line and paragraph separators.
REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
#: Default-ignorable code points outside those categories (Unicode's
#: ``Default_Ignorable_Code_Point`` that are letters or marks), and the blank braille pattern:
#: each draws nothing, or nothing but a space.
INVISIBLE = frozenset(
    {0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x2800, 0x3164, 0xFFA0}
    | set(range(0x180B, 0x1810))
    | set(range(0xFE00, 0xFE10))
    | set(range(0xE0100, 0xE01F0))
)
#: Combining marks allowed on one character (more stack into text that spills over its line).
MAX_MARKS = 3


class InvalidName(ValueError):
    """A name that cannot be a team's; the message says why and is safe to show."""


def _describe(char: str) -> str:
    name = unicodedata.name(char, "")
    return f"U+{ord(char):04X}" + (f" {name}" if name else "")


def _check_characters(text: str) -> None:
    marks = 0
    for char in text:
        category = unicodedata.category(char)
        if category in {"Mn", "Me"}:
            marks += 1
            if marks > MAX_MARKS:
                raise InvalidName(
                    f"A team name may carry at most {MAX_MARKS} accents or marks on one letter."
                )
        else:
            marks = 0
        if (
            unicodedata.bidirectional(char)
            in {"LRE", "RLE", "LRO", "RLO", "PDF", "LRI", "RLI", "FSI", "PDI"}
            or char in "\u200e\u200f\u061c"
        ):
            raise InvalidName(
                f"A team name cannot contain {_describe(char)}: it changes the direction in "
                "which the text around it is shown. Type the name without it."
            )  # fmt: skip
        if category in REFUSED_CATEGORIES or ord(char) in INVISIBLE:
            what = "a control character" if category == "Cc" else "an invisible character"
            raise InvalidName(
                f"A team name cannot contain {_describe(char)}, {what}. Type the name "
                "without it (it can come with text copied from elsewhere)."
            )


def normalise(raw: str) -> str:
    """The name as stored: NFKC, spaces collapsed and trimmed. Raises ``InvalidName`` for an
    empty name, one without a letter or digit, an over-long one, or one with an invisible,
    control or bidirectional control character."""
    _check_characters(raw)
    name = " ".join(unicodedata.normalize("NFKC", raw).split())
    _check_characters(name)
    if not name:
        raise InvalidName("A team needs a name.")
    if not any(unicodedata.category(c)[0] in {"L", "N"} for c in name):
        raise InvalidName("A team name needs at least one letter or digit.")
    if len(name) > MAX_LENGTH:
        raise InvalidName(f"A team name has at most {MAX_LENGTH} characters.")
    return name


def key(name: str) -> str:
    """What two names are compared by: the TR39 skeleton of the case-folded NFKC form (defined
    for any text, also a name stored before these rules)."""
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())
    return skeleton_key(folded, digit_policy="tr39")


#: Right-to-left override and what ends it (pop directional formatting, a paragraph's end).
_RLO, _ENDS = "\u202e", "\u202c\n"


def _visual(text: str) -> str:
    """``text`` in the order a right-to-left override shows it: each overridden span
    reversed (an approximation of the bidirectional algorithm that covers overrides, the one
    control that shows Latin letters backwards)."""
    out, i = [], 0
    while i < len(text):
        if text[i] != _RLO:
            out.append(text[i])
            i += 1
            continue
        end = i + 1
        while end < len(text) and text[end] not in _ENDS:
            end += 1
        out.append(text[i + 1 : end][::-1])
        i = end
    return "".join(out)


def shown_keys(raw: str) -> set[str]:
    """The keys of what a refused name would show: the name without its invisible and control
    characters, and as a right-to-left override displays it (to say which team it imitates)."""
    found = {key(raw), key(_visual(raw))}
    found.discard("")
    return found
