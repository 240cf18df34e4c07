"""The task registry: descriptions, one protocol for every task, seen/unseen, CLI, safety."""

from __future__ import annotations

import contextlib
import json
import shlex
import subprocess
import sys
import tomllib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring import Resampling, ScoringError, Source, Task, TaskResult, get_task
from scoring.dvd import synth as dvd_synth
from scoring.multiwoz22 import synth as mwz_synth
from scoring.seen import read_training_values
from scoring.taskapi import paired_tests
from scoring.tasks import TASKS
from tests.conftest import ROOT

FEW = Resampling(n_boot=50)


def run(task: Task, gold: Source, pred: Source, files=None, options=None) -> TaskResult:
    reference = task.load_reference(gold, files, options)
    return task.score(reference, task.load_prediction(pred, reference, options), options, FEW)


def test_every_task_describes_its_metrics_and_options():
    assert list(TASKS) == ["dstc11", "multiwoz22", "dvd"]
    for task in TASKS.values():
        described = task.describe()
        names = [m["name"] for m in described["metrics"]]
        assert described["primary"] in names
        assert described["tiebreak"] in names and described["tiebreak"] != described["primary"]
        assert all(m["direction"] in ("higher", "lower") for m in described["metrics"])
        json.dumps(described)
    assert get_task("dstc11").metric("ser").direction == "lower"
    assert get_task("multiwoz22").check_options({}) == {"match": "exact", "missing": "reject"}
    with pytest.raises(ScoringError):
        get_task("multiwoz22").check_options({"match": "approximate"})
    with pytest.raises(ScoringError):
        get_task("nope")


GOLD = {
    "d1": [{"hotel": {"area": "north"}}, {"hotel": {"area": "north", "stars": "4"}}],
    "d2": [{"train": {"day": "monday"}}],
}
PRED = {
    "d1": [{"hotel": {"area": "north"}}, {"hotel": {"area": "north", "stars": "5"}}],
    "d2": [{"train": {"day": "monday"}}],
}


def _src(value, name):
    return Source(json.dumps(value).encode(), name)


def test_dstc11_goes_through_the_same_protocol_as_every_task():
    task = get_task("dstc11")
    result = run(task, _src(GOLD, "gold.json"), _src(PRED, "run.json"))
    # d1: 1 of 2 turns right; d2: 1 of 1. Gold values: 1 + 2 + 1; one substitution.
    assert result.metrics()["jga"] == pytest.approx(100 * 2 / 3)
    assert result.metrics()["ser"] == pytest.approx(100 * 1 / 4)
    assert set(result.intervals()) == {"jga", "ser"}
    assert result.dialogues.columns["jga"] == ([1, 1], [2, 1])
    assert result.signature.startswith(
        "dstc11|norm:default|missing:reject|ci:bootstrap-50-dialogue-95|seed:12345|gold:sha256:"
    )


def test_dstc11_seen_unseen_brackets_the_overall_jga():
    training = _src(["hotel-area=north", "train-day=tuesday"], "train.json")
    result = run(
        get_task("dstc11"),
        _src(GOLD, "gold.json"),
        _src(PRED, "run.json"),
        files={"training_values": training},
    )
    m = result.metrics()
    # d1 t0 {area north}: seen, right. d1 t1 has stars 4 (unseen): wrong.
    # d2 t0 day monday (only tuesday was seen): unseen, right.
    assert m["jga"] == pytest.approx(100 * 2 / 3)
    assert m["jga_seen"] == pytest.approx(100.0)
    assert m["jga_unseen"] == pytest.approx(50.0)
    assert m["jga_unseen"] <= m["jga"] <= m["jga_seen"]
    assert "|train:sha256:" in result.signature
    assert result.signature.startswith("dstc11|norm:default|missing:reject|")


def test_as_dict_is_json_ready_with_per_dialogue_statistics():
    result = run(get_task("dstc11"), _src(GOLD, "g"), _src(PRED, "p"))
    out = json.loads(json.dumps(result.as_dict(per_dialogue=True), allow_nan=False))
    assert out["metrics"]["jga"] == pytest.approx(100 * 2 / 3)
    assert out["per_dialogue"]["ids"] == ["d1", "d2"]
    assert out["per_dialogue"]["columns"]["jga"] == [[1, 1], [2, 1]]
    assert out["per_dialogue"]["turns"] == ["10", "1"]
    assert set(out) >= {"task", "metrics", "intervals", "signature", "counts", "warnings"}


def test_paired_tests_work_for_any_task():
    task = get_task("dvd")
    gold = _src({"a": ["<obj1> SIZE large"], "b": ["<obj2> COLOR red"]}, "g")
    same = run(task, gold, gold)
    other = run(task, gold, _src({"a": ["<obj1> SIZE small"], "b": [""]}, "p"))
    tests = paired_tests(same.dialogues, other.dialogues, task.metrics, FEW)
    assert tests["joint"].difference == pytest.approx(100.0)
    assert "state_f1" not in tests  # its denominator depends on the prediction


def _cli(*args):
    return subprocess.run(
        [sys.executable, "-m", "scoring", *args], capture_output=True, text=True, cwd=ROOT
    )


def test_the_cli_scores_multiwoz22_with_a_schema(fixtures_dir, tmp_path):
    data = json.loads((fixtures_dir / "sgd" / "metrics_test_refdata.json").read_text())
    for name, key in (("gold.json", "frame_ref"), ("run.json", "frame_hyp")):
        dialogue = {"dialogue_id": "d1", "turns": [{"speaker": "USER", "frames": [data[key]]}]}
        (tmp_path / name).write_text(json.dumps([dialogue]))
    schema = fixtures_dir / "sgd" / "metrics_test_refschema.json"
    run_ = _cli(
        "score", "--task", "multiwoz22", "--gold", str(tmp_path / "gold.json"),
        "--schema", str(schema), "--pred", str(tmp_path / "run.json"), "--match", "fuzzy",
        "--json", "--bootstrap", "20",
    )  # fmt: skip
    assert run_.returncode == 0, run_.stderr
    out = json.loads(run_.stdout)
    assert out["metrics"]["avg_goal"] == pytest.approx(66.75)
    assert out["signature"].startswith("multiwoz22|match:fuzzy-token-sort-rounded|")
    missing = _cli("score", "--task", "multiwoz22", "--gold", "x", "--pred", "y")
    assert missing.returncode == 2
    assert missing.stderr == "error: the multiwoz22 task needs --schema FILE.\n"


def test_the_cli_scores_dvd(tmp_path):
    (tmp_path / "g.json").write_text(json.dumps({"v1": ["<frame0> <frame10> <obj1> SIZE large"]}))
    run_ = _cli(
        "score", "--task", "dvd", "--gold", str(tmp_path / "g.json"),
        "--pred", str(tmp_path / "g.json"), "--bootstrap", "20",
    )  # fmt: skip
    assert run_.returncode == 0, run_.stderr
    assert "Joint Acc IoU@0.7" in run_.stdout
    assert "signature   dvd|" in run_.stdout


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=150, deadline=None)
@given(document=json_values)
def test_arbitrary_json_raises_only_scoring_errors(document):
    data = json.dumps(document).encode()
    mwz_gold = json.dumps(
        [{"dialogue_id": "d1", "turns": [{"speaker": "USER", "frames": []}]}]
    ).encode()
    schema = json.dumps(
        [{"service_name": "hotel", "slots": [{"name": "hotel-area", "is_categorical": True}]}]
    ).encode()
    multiwoz22, dvd = get_task("multiwoz22"), get_task("dvd")
    src = Source(data, "d")
    with_schema = {"schema": Source(schema, "s")}
    mwz = multiwoz22.load_reference(Source(mwz_gold, "g"), with_schema)
    dvd_ref = dvd.load_reference(Source(b'{"d1": [""]}', "g"))
    attempts = [
        lambda: multiwoz22.load_prediction(src, mwz),
        lambda: multiwoz22.check_prediction(src),
        lambda: multiwoz22.load_reference(src, with_schema),
        lambda: multiwoz22.load_reference(Source(mwz_gold, "g"), {"schema": src}),
        lambda: dvd.load_prediction(src, dvd_ref),
        lambda: dvd.load_reference(src),
        lambda: get_task("dstc11").check_prediction(src),
        lambda: read_training_values(data, "t", str.lower, lambda _s, v: v),
    ]
    for attempt in attempts:
        with contextlib.suppress(ScoringError):
            attempt()


token = st.sampled_from(
    ["<frame1>", "<frame0>", "<obj1>", "<obj2>", "SIZE", "color", "Shape", "large", "<x>", "obj"]
)


@settings(max_examples=150, deadline=None)
@given(states=st.lists(st.lists(token, max_size=8).map(" ".join), min_size=1, max_size=2))
def test_arbitrary_token_sequences_raise_only_scoring_errors(states):
    dvd = get_task("dvd")
    reference = dvd.load_reference(_src({"d1": [""] * len(states)}, "g"))
    with contextlib.suppress(ScoringError):
        dvd.load_prediction(_src({"d1": states}, "p"), reference)


def test_synthetic_multiwoz22_data_scores_100_against_itself_and_less_when_perturbed():
    schema = _src(mwz_synth.make_schema(), "schema.json")
    gold = mwz_synth.make_gold(12, seed=3)
    task = get_task("multiwoz22")
    perfect = run(task, _src(gold, "g"), _src(gold, "p"), {"schema": schema})
    assert perfect.metrics()["jga"] == 100.0
    noisy = mwz_synth.make_prediction(gold, 0.3, seed=4, flat=True)
    result = run(task, _src(gold, "g"), _src(noisy, "p"), {"schema": schema})
    assert result.format == "flat-states"
    assert result.metrics()["jga"] < 100.0


def test_synthetic_dvd_data_scores_100_against_itself_and_less_when_perturbed():
    gold = dvd_synth.make_gold(12, seed=3)
    task = get_task("dvd")
    assert run(task, _src(gold, "g"), _src(gold, "p")).metrics()["joint"] == 100.0
    noisy = dvd_synth.make_prediction(gold, 0.3, seed=4)
    assert run(task, _src(gold, "g"), _src(noisy, "p")).metrics()["joint"] < 100.0


@pytest.mark.parametrize(
    ("task", "data", "found"),
    [
        ("dstc11", {"d1": [{"hotel": {"area": "north"}}]}, "gold-json"),
        ("multiwoz22", {"d1": [{"hotel-area": "north"}]}, "flat-states"),
        ("dvd", {"d1": ["<obj1> SIZE large"]}, "token-sequence"),
    ],
)
def test_every_task_checks_a_prediction_without_the_reference(task, data, found):
    assert get_task(task).check_prediction(_src(data, "run.json")) == found


@pytest.mark.parametrize(
    ("task", "data", "message"),
    [
        (
            "dstc11",
            {"d1": [{"hotel": {"stars": 4}}]},
            "run.json: dialogue 'd1', turn 1: slot 'hotel-stars': the value must be a string, "
            "found the number 4.",
        ),
        (
            "multiwoz22",
            {"d1": [{"hotel-area": 4}]},
            "run.json: dialogue 'd1', turn 1: slot 'hotel-area': expected a string or a list of "
            "strings, found the number 4.",
        ),
        ("dvd", {"d1": [4]}, "run.json: dialogue 'd1', turn 1: expected a state object"),
    ],
)
def test_a_prediction_checked_without_the_reference_gets_the_scorers_message(task, data, message):
    with pytest.raises(ScoringError) as caught:
        get_task(task).check_prediction(_src(data, "run.json"))
    assert str(caught.value).startswith(message)


def test_the_cli_refuses_options_a_task_does_not_have(tmp_path):
    gold = tmp_path / "g.json"
    gold.write_text(json.dumps({"v1": ["<obj1> SIZE large"]}))
    wrong = _cli(
        "score", "--task", "dvd", "--gold", str(gold), "--pred", str(gold), "--match", "fuzzy"
    )
    assert (wrong.returncode, wrong.stdout) == (2, "")
    assert wrong.stderr == "error: --match does not apply to the dvd task.\n"
    bad = _cli("score", "--gold", str(gold), "--pred", str(gold), "--profile", "loose")
    assert bad.returncode == 2
    assert bad.stderr == (
        "error: option 'profile' of task 'dstc11' cannot be 'loose'; choose one of: default, "
        "strict\n"
    )


def _installed_scorer() -> str:
    """The ``trackboard-score`` script as the participant package declares it
    (participant/pyproject.toml), run the way the installed script runs it (import the entry
    point, call it with the arguments)."""
    project = (ROOT / "participant" / "pyproject.toml").read_text()
    scripts = tomllib.loads(project)["project"]["scripts"]
    module, function = scripts["trackboard-score"].split(":")
    code = (
        f"import sys; sys.argv[0] = 'trackboard-score'; from {module} import {function}; "
        f"{function}()"
    )
    return f"{sys.executable} -c {shlex.quote(code)}"


@pytest.mark.parametrize(
    "command", [f"{sys.executable} -m scoring", _installed_scorer()], ids=["module", "script"]
)
def test_a_reader_that_stops_early_ends_the_run_quietly(tmp_path, command):
    # 3,000 slots make a per-slot table far longer than a pipe's buffer.
    gold = tmp_path / "g.json"
    gold.write_text(json.dumps({"d1": [{"hotel": {f"s{i}": "x" for i in range(3000)}}]}))
    run_ = subprocess.run(
        f"{command} score --gold {gold} --pred {gold} | head -1",
        shell=True, capture_output=True, text=True, cwd=ROOT, check=False,
    )  # fmt: skip
    assert run_.stdout == "task        dstc11\n"
    assert run_.stderr == ""
