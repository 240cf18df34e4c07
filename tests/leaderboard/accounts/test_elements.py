"""``html_attrs``: the attributes of an allauth form element, as its templates print them
(``flatatt``: the valued ones in alphabetical order, then the bare ones)."""

from __future__ import annotations

from leaderboard.accounts.templatetags.elements import button_attrs, html_attrs


def test_only_the_named_attributes_that_are_set_are_written():
    attrs = {"name": "code", "id": "id_code", "value": "", "required": True, "disabled": False}
    assert html_attrs(attrs, "name id value required disabled") == (
        ' id="id_code" name="code" required'
    )


def test_values_are_escaped_and_unnamed_ones_left_out():
    attrs = {"name": 'a"b', "type": "text", "errors": ["wrong"]}
    assert html_attrs(attrs, "name rows") == ' name="a&quot;b"'
    assert html_attrs({}, "name id") == ""


def test_a_button_allauth_tags_as_secondary_gets_the_sites_secondary_class():
    assert button_attrs({"type": "submit", "tags": ["danger", "delete"], "id": "x"}) == (
        ' class="secondary" id="x"'
    )
    assert button_attrs({"type": "submit", "tags": ["prominent"]}) == ""
    assert button_attrs({"form": "f1"}) == ' form="f1"'
