"""Each kind of invalid input gets its own exact, participant-safe message."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring import InvalidFile, Resampling, ScoringError, get_task
from scoring.formats import long_stretch
from tests.scoring import helpers

TASK = get_task("dstc11")

GOLD = {
    "SNG0001.json": [{"hotel": {"area": "north"}}, {"hotel": {"area": "north", "stars": "4"}}],
    "pmul0002": [{}],
}


@pytest.fixture(scope="module")
def reference() -> object:
    return helpers.reference(GOLD)


def _message(data: bytes, reference: object) -> str:
    with pytest.raises(InvalidFile) as caught:
        helpers.prediction(data, reference)
    return str(caught.value)


def _score(data: bytes, reference: object, **options: str):
    prediction = helpers.prediction(data, reference, options=options)
    return TASK.score(reference, prediction, options, Resampling(n_boot=10))


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (
            b'{"sng0001": [{}, {}],\n "pmul0002": [{]}',
            "run.json: line 2, column 16: invalid JSON (Expecting property name enclosed in "
            "double quotes).",
        ),
        (
            b'["sng0001"]',
            "run.json: the top level is a JSON array; expected an object mapping each dialogue "
            "id to its list of user-turn states.",
        ),
        (
            b'"hello"',
            "run.json: unrecognised format. Expected JSON (an object of dialogue ids) or DSTC11 "
            "manifest lines beginning with 'line_nr:'.",
        ),
        (
            b'{"sng0001": [{}, {}], "pmul0002": [{}], "mul9999": [{}]}',
            "run.json: 1 dialogue id(s) are not in the reference: mul9999.",
        ),
        (
            b'{"sng0001": [{}, {}]}',
            "run.json: 1 dialogue(s) of the reference are missing: pmul0002.",
        ),
        (
            b'{"sng0001": [{}], "pmul0002": [{}]}',
            # the second user turn is missing (turns are counted from 1)
            "run.json: dialogue 'sng0001' has 1 user turns, the reference has 2 (turn 2 is "
            "missing).",
        ),
        (
            b'{"sng0001": [{}, {}, {}], "pmul0002": [{}]}',
            "run.json: dialogue 'sng0001' has 3 user turns, the reference has 2 (turn 3 is extra).",
        ),
        (
            b'{"sng0001": [{}, {}], "SNG0001.json": [{}, {}], "pmul0002": [{}]}',
            "run.json: dialogue ids 'sng0001' and 'SNG0001.json' are the same dialogue once "
            "lower-cased (and without '.json'); keep one.",
        ),
        (
            b'{"sng0001": [{}, {"hotel": {"stars": 4}}], "pmul0002": [{}]}',
            "run.json: dialogue 'sng0001', turn 2: slot 'hotel-stars': the value must be a "
            "string, found the number 4.",
        ),
        (
            b'{"sng0001": [{}, {"hotel": {"stars": null}}], "pmul0002": [{}]}',
            "run.json: dialogue 'sng0001', turn 2: slot 'hotel-stars': the value must be a "
            "string, found null.",
        ),
        (
            b'{"sng0001": [{}, {"hotel": ["north"]}], "pmul0002": [{}]}',
            "run.json: dialogue 'sng0001', turn 2: domain 'hotel': expected an object of slot "
            "values, found a JSON array.",
        ),
        (
            b'{"sng0001": {"0": {}}, "pmul0002": [{}]}',
            "run.json: dialogue 'sng0001': expected a list of user-turn states, found a JSON "
            "object.",
        ),
        (
            b'{"sng0001": [{}, {}], "pmul0002": [{}], "sng0001": [{}, {}]}',
            "run.json: the key 'sng0001' appears twice in the same JSON object; every dialogue "
            "id, domain and slot may appear only once.",
        ),
        (
            b'{"sng0001": [{}, {"hotel": {"day": "friday", "bookday": "monday"}}], '
            b'"pmul0002": [{}]}',
            "run.json: dialogue 'sng0001', turn 2: slot 'hotel-day' is given twice (as "
            "'hotel-day' and 'hotel-bookday'); give it once.",
        ),
        (
            b'{"sng0001": [{}, {"hotel": {"area": NaN}}], "pmul0002": [{}]}',
            "run.json: invalid JSON (NaN is not allowed in JSON).",
        ),
        (
            b'{"sng0001": [{}, {"hotel": {"area": "caf\xe9"}}]}',
            "run.json: line 1: invalid UTF-8 byte 0xe9 at byte offset 40; the file must be "
            "UTF-8 text.",
        ),
        (b"", "run.json: the file is empty (or only white space)."),
        (b"  \n\t ", "run.json: the file is empty (or only white space)."),
        (
            '{"sng0001": []}'.encode("utf-16"),
            "run.json: the file is UTF-16 encoded; save it as UTF-8.",
        ),
        (b'{"a":\x00 1}', "run.json: line 1: the file contains a NUL byte; it must be text."),
        (
            b"line_nr: 0 dialog_id: sng0001.json turn_id: 1 text: user: hi state: hotel-area=x\n"
            b"line_nr: 1 dialog_id: sng0001.json turn_id: 3 text: user: four stars please\n",
            "run.json: line 2: the line has no 'state:' field.",
        ),
        (
            b"line_nr: 0 dialog_id: sng0001.json turn_id: 1 text: user: hi state: hotel-area\n",
            "run.json: line 1: state item 'hotel-area' is not 'domain-slot=value'.",
        ),
        (
            b"line_nr: 0 dialog_id: sng0001.json turn_id: 1 text: user: hi state:\n"
            b"this is not a manifest line\n",
            "run.json: line 2: not a manifest line; expected 'line_nr: N dialog_id: D.json "
            "turn_id: T text: user: ... state: ...'.",
        ),
        (
            b'{"sng0001": [{"state": {}}, {"hotel": {}}], "pmul0002": [{"state": {}}]}',
            "run.json: dialogue 'sng0001', turn 2: expected an object with a 'state' object "
            "(MultiWOZ-evaluation format), found a JSON object.",
        ),
    ],
)
def test_it_rejects_with_an_exact_message(reference, data, message):
    assert _message(data, reference) == message


DUPLICATE = (
    "run.json: the key 'area' appears twice in the same JSON object; every dialogue id, "
    "domain and slot may appear only once."
)


@pytest.mark.parametrize(
    "data",
    [
        # plain duplicate slot inside a domain
        b'{"sng0001": [{}, {"hotel": {"area": "x", "area": "y"}}], "pmul0002": [{}]}',
        # white space before a colon hides one key from a plain count of '":'
        b'{"sng0001" : [{}, {"hotel": {"area": "x", "area" : "y"}}], "pmul0002": [{}]}',
        # an escaped quote followed by a colon inside a value adds one '":' to the text
        b'{"sng0001": [{}, {"hotel": {"area": "a\\":b", "area": "y"}}], "pmul0002": [{}]}',
        # a quote written as \u0022 before a colon, in a value that stays: written out again,
        # the document has one '":' more there, as many as the key lost to the duplicate
        b'{"sng0001": [{}, {"hotel": {"area": "x", "area": "y", "name": "a\\u0022:b"}}], '
        b'"pmul0002": [{}]}',
    ],
)
def test_duplicate_keys_are_found_however_the_file_is_written(reference, data):
    assert _message(data, reference) == DUPLICATE


def test_unusual_but_valid_json_is_read(reference):
    data = (
        b'{"sng0001" : [{}, {"hotel": {"area": "north \\":", "stars" :"4"}}],\n'
        b' "pmul0002": [ { } ] }'
    )
    details = _score(data, reference).details
    # turn 0 misses hotel-area (D); turn 1 has the wrong area (S) and the right stars.
    assert (details["sub"], details["del"], details["ins"]) == (1, 1, 0)


def test_a_byte_order_mark_is_accepted(reference):
    data = b"\xef\xbb\xbf" + json.dumps(GOLD).encode()
    assert _score(data, reference).values["jga"] == 100


def test_deep_nesting_is_an_error_not_a_crash(reference):
    data = b'{"sng0001": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    message = _message(data, reference)
    assert message.startswith("run.json: ")


def test_a_manifest_matches_json(reference):
    manifest = (
        b"line_nr: 0 dialog_id: SNG0001.json turn_id: 1 text: user: north please state: "
        b"hotel-area=north\n"
        b"line_nr: 0 dialog_id: SNG0001.json turn_id: 2 text: agent: ok state:\n"
        b"line_nr: 1 dialog_id: SNG0001.json turn_id: 3 text: user: 4 stars state: "
        b"hotel-area=north; hotel-stars=4\n"
        b"line_nr: 2 dialog_id: PMUL0002.json turn_id: 1 text: user: hello state:\n"
    )
    result = _score(manifest, reference)
    assert (result.format, result.values["jga"], result.values["ser"]) == ("manifest", 100.0, 0.0)


def test_bad_options_are_scoring_errors(reference):
    prediction = helpers.prediction(GOLD, reference)
    with pytest.raises(ScoringError, match="option 'profile' of task 'dstc11' cannot be 'loose'"):
        TASK.score(reference, prediction, {"profile": "loose"})
    with pytest.raises(ScoringError, match="option 'missing' of task 'dstc11' cannot be 'skip'"):
        helpers.prediction(b"{}", reference, options={"missing": "skip"})
    with pytest.raises(ScoringError, match="task 'dstc11' has no option"):
        helpers.prediction(b"{}", reference, options={"match": "fuzzy"})
    with pytest.raises(ScoringError, match="resamples must be between 1 and 100000"):
        Resampling(n_boot=0)
    with pytest.raises(ScoringError, match=r"confidence level must be at least 0\.5"):
        Resampling(level=1.0)
    for wrong in ({"n_boot": 2.5}, {"seed": "x"}, {"n_boot": True}):
        with pytest.raises(ScoringError, match="must be a whole number"):
            Resampling(**wrong)  # type: ignore[arg-type]
    with pytest.raises(ScoringError, match="confidence level must be a number"):
        Resampling(level="0.95")  # type: ignore[arg-type]


def test_every_bad_option_and_setting_is_named_at_once():
    with pytest.raises(ScoringError) as error:
        TASK.check_options({"profile": "loose", "missing": "skip"})
    assert str(error.value) == (
        "option 'profile' of task 'dstc11' cannot be 'loose'; choose one of: default, strict\n"
        "option 'missing' of task 'dstc11' cannot be 'skip'; choose one of: reject, empty"
    )
    with pytest.raises(ScoringError) as error:
        Resampling(n_boot=-5, level=1.5)
    assert str(error.value) == (
        "the number of bootstrap resamples must be between 1 and 100000, not -5. "
        "the confidence level must be at least 0.5 and below 1 (e.g. 0.95), not 1.5."
    )


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=20,
)
# Shapes close to valid files reach deeper code paths than arbitrary JSON alone.
near_valid = st.dictionaries(
    st.sampled_from(["sng0001", "SNG0001", "pmul0002", "x"]),
    st.lists(
        st.dictionaries(
            st.sampled_from(["hotel", "state", "taxi"]),
            st.dictionaries(st.sampled_from(["area", "book day", "leave"]), json_values, max_size=3)
            | json_values,
            max_size=3,
        ),
        max_size=3,
    )
    | json_values,
    max_size=3,
)


@settings(max_examples=300, deadline=None)
@given(st.one_of(json_values, near_valid))
def test_arbitrary_json_raises_only_the_scorers_error(reference, document):
    data = json.dumps(document).encode()
    try:
        _score(data, reference, missing="empty")
    except ScoringError as error:
        assert str(error).startswith("run.json: ")


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=64))
def test_arbitrary_bytes_raise_only_the_scorers_error(reference, data):
    try:
        helpers.prediction(data, reference)
    except ScoringError as error:
        assert str(error).startswith("run.json: ")


def test_a_manifest_line_longer_than_the_limit_is_refused_before_the_file_is_read(reference):
    head = b"line_nr: 1 dialog_id: SNG0001.json turn_id: 3 text: user: "  # 58 bytes
    tail = b" state: hotel-area=north; hotel-stars=4"  # 39 bytes
    first = (
        b"line_nr: 0 dialog_id: SNG0001.json turn_id: 1 text: user: north please state: "
        b"hotel-area=north\n"
    )
    last = b"\nline_nr: 2 dialog_id: PMUL0002.json turn_id: 1 text: user: hello state:\n"
    # 58 + 65,439 + 39 = 65,536 bytes: the longest line read
    longest = head + b"x" * 65439 + tail
    assert len(longest) == 65536
    result = _score(first + longest + last, reference)
    assert (result.format, result.values["jga"]) == ("manifest", 100.0)
    # one byte more, and after a BOM and blank lines too: refused, naming the line and length
    message = _message(b"\xef\xbb\xbf\n" + first + head + b"x" * 65440 + tail + last, reference)
    assert message == (
        "run.json: line 3 is 65,537 bytes long; a manifest line (one turn's text and state) "
        "may be at most 65,536 bytes. The file was not read further."
    )


def test_a_json_prediction_with_a_giant_string_is_refused_before_it_is_parsed(reference):
    prefix = b'{"pmul0002": [{}], "'  # 20 bytes: the giant key starts at byte offset 20
    at_limit = _message(prefix + b"x" * 65536 + b'": [{}]}', reference)
    assert "in a row without a quote" not in at_limit  # read, then refused for what it says
    assert "x" * 59 in at_limit  # the unknown dialogue id, quoted (cut to 60 characters)
    message = _message(prefix + b"x" * 65537 + b'": [{}]}', reference)
    assert message == (
        "run.json: line 1: more than 65,536 bytes in a row without a quote (from byte offset "
        "20); no dialogue id, slot or value of a prediction is that long. The file was not "
        "read further."
    )


@settings(max_examples=300, deadline=None)
@given(
    data=st.lists(st.sampled_from([b"a", b"bb", b'"', b"\n", b"x" * 7]), max_size=60).map(b"".join),
    separator=st.sampled_from([b'"', b"\n"]),
    limit=st.integers(min_value=1, max_value=12),
)
def test_the_long_stretch_scan_finds_what_the_regular_expression_found(data, separator, limit):
    """The window scan gives the same verdict and offset as the regular expression it
    replaced (a run of more than ``limit`` bytes without the separator, starting at the start
    or just after a separator), on short strings where every case is reached."""
    escaped = re.escape(separator)
    pattern = re.compile(rb"(?:\A|(?<=%s))[^%s]{%d}" % (escaped, escaped, limit + 1))
    found = pattern.search(data)
    assert long_stretch(data, separator, limit) == (found.start() if found else -1)


def test_the_long_stretch_scan_on_hand_worked_cases():
    assert long_stretch(b"", b'"', 3) == -1
    assert long_stretch(b"abc", b'"', 3) == -1  # three bytes: at the limit
    assert long_stretch(b"abcd", b'"', 3) == 0
    assert long_stretch(b'ab"cd"efgh', b'"', 3) == 6  # "efgh" after the second quote
    assert long_stretch(b'ab"cd"efg', b'"', 3) == -1
    assert long_stretch(b'"abcd"', b'"', 3) == 1
