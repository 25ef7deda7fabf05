"""PHI evaluation metrics on a small inline dataset, the loaders, the split, and `voiceassist eval phi`."""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

import pytest
from voiceassist_local.cli import eval_phi
from voiceassist_local.evaluation.phi_eval import (
    GoldSpan,
    LabelledText,
    evaluate,
    load_negatives,
    load_positives,
    split,
)

from voiceassist.errors import InvalidInput
from voiceassist.models import PhiEntity, PhiResult
from voiceassist.phi import redact


class NameListDetector:
    """Flags every occurrence of the given words as PERSON: predictable, so the metrics can be checked."""

    def __init__(self, *names: str) -> None:
        self.names = names

    def detect(self, text: str) -> PhiResult:
        entities = [PhiEntity(entity_type="PERSON", start=text.index(n), end=text.index(n) + len(n))
                    for n in self.names if n in text]
        return PhiResult(contains_phi=bool(entities), entities=entities, redacted_text=redact(text, entities))


POSITIVES = [
    LabelledText("Anna lives at 12 Oak Street",
                 (GoldSpan("PERSON", 0, 4), GoldSpan("ADDRESS", 14, 27)), "t1"),
    LabelledText("Call Bob on 555 123 4567",
                 (GoldSpan("PERSON", 5, 8), GoldSpan("PHONE_NUMBER", 12, 24)), "t2"),
    LabelledText("She moved here from Peru", (GoldSpan("LOCATION", 20, 24),), "t3"),  # no PHI type
]
NEGATIVES = [
    LabelledText("Anna's sign is seen in which disease?", group="n1"),
    LabelledText("What is the dose of metformin?", group="n2"),
]


def test_evaluate_counts_leaks_and_over_routing() -> None:
    report = evaluate(NameListDetector("Anna"), POSITIVES, NEGATIVES)
    assert (report.positives, report.leaked, report.leak_rate) == (2, 1, 0.5)
    assert (report.negatives, report.over_routed, report.over_routing_rate) == (2, 1, 0.5)
    assert report.leaked_examples == ["Call Bob on 555 123 4567"]
    assert report.over_routed_examples == ["Anna's sign is seen in which disease?"]


def test_evaluate_scores_spans_by_type() -> None:
    report = evaluate(NameListDetector("Anna", "Oak"), POSITIVES, NEGATIVES)
    assert (report.recall_by_type["PERSON"].correct, report.recall_by_type["PERSON"].total) == (1, 2)
    assert report.recall_by_type["ADDRESS"].rate == 1.0  # "Oak" overlaps the gold address
    assert report.recall_by_type["PHONE_NUMBER"].rate == 0.0
    # Three detections: two inside gold spans, one in a negative.
    assert (report.precision_by_type["PERSON"].correct, report.precision_by_type["PERSON"].total) == (2, 3)


def test_evaluate_reports_latency_and_targets() -> None:
    report = evaluate(NameListDetector("Anna", "Bob"), POSITIVES, [NEGATIVES[1]])
    assert report.leak_rate == 0.0 and report.over_routing_rate == 0.0
    assert report.latency_ms_p95 >= report.latency_ms_p50 >= 0.0
    assert report.meets_targets == (report.latency_ms_p50 <= 15.0)


def test_split_keeps_a_group_on_one_side() -> None:
    items = [LabelledText(f"text {i}", group=f"template-{i % 10}") for i in range(200)]
    development, held_out = split(items, holdout_fraction=0.3)
    assert len(development) + len(held_out) == 200 and held_out and development
    assert not {i.group for i in development} & {i.group for i in held_out}


def write_dataset(tmp_path: Path) -> tuple[Path, Path]:
    positives = tmp_path / "positives.json"
    positives.write_text(json.dumps([
        {"full_text": "My name is Anna Kowalczyk", "template_id": 1,
         "spans": [{"entity_type": "PERSON", "entity_value": "Anna Kowalczyk", "start_position": 11,
                    "end_position": 25}]},
        {"full_text": "Her social security number is 219-47-6631", "template_id": 2,
         "spans": [{"entity_type": "US_SSN", "entity_value": "219-47-6631", "start_position": 30,
                    "end_position": 41}]},
    ]), encoding="utf-8")
    negatives = tmp_path / "negatives.jsonl"
    negatives.write_text(
        '{"id": "q1", "text": "What is the first-line treatment of Graves disease?"}\n\n'
        '{"id": "q2", "text": "A 31 yrs old woman with a 6 years old girl with down syndrome."}\n',
        encoding="utf-8",
    )
    return positives, negatives


def test_loaders_read_both_formats(tmp_path: Path) -> None:
    positives_path, negatives_path = write_dataset(tmp_path)
    positives = load_positives(positives_path)
    assert positives[0].spans == (GoldSpan("PERSON", 11, 25),) and positives[0].group == "1"
    assert [n.group for n in load_negatives(negatives_path)] == ["q1", "q2"]


def test_loaders_reject_malformed_files(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"question": "no text field"}\n', encoding="utf-8")
    with pytest.raises(InvalidInput, match="line 1"):
        load_negatives(bad)
    with pytest.raises(InvalidInput, match="cannot read"):
        load_positives(tmp_path / "missing.json")


def test_eval_phi_cli_prints_the_metrics(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    positives, negatives = write_dataset(tmp_path)
    args = argparse.Namespace(positives=[positives], negatives=[negatives], mode="strict", split="all",
                              show_examples=0, json=False)
    assert eval_phi.run(args) == 0
    out = capsys.readouterr().out
    assert re.search(r"leak rate\s+0\.00%\s+\(0/2 positives", out)
    assert re.search(r"over-routing\s+0\.00%\s+\(0/2 negatives", out)
    assert re.search(r"latency\s+p50 [\d.]+ ms, p95 [\d.]+ ms", out)
    assert re.search(r"PERSON\s+100\.0%", out) and re.search(r"US_SSN\s+100\.0%", out)


def test_eval_phi_cli_prints_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    positives, negatives = write_dataset(tmp_path)
    parser = argparse.ArgumentParser()
    eval_phi.add_parser(parser.add_subparsers())
    args = parser.parse_args(["phi", "--positives", str(positives), "--negatives", str(negatives), "--json"])
    assert args.run(args) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["leak_rate"] == 0.0 and report["over_routing_rate"] == 0.0 and report["mode"] == "strict"
    assert report["recall_by_type"]["US_SSN"] == {"total": 1, "correct": 1, "rate": 1.0}


def test_eval_phi_cli_reports_each_file_and_all_together(tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    positives, negatives = write_dataset(tmp_path)
    leaky = tmp_path / "leaky.json"
    leaky.write_text(json.dumps([{"full_text": "the cat sat on the mat", "template_id": 9, "spans": [
        {"entity_type": "PERSON", "start_position": 4, "end_position": 7}]}]), encoding="utf-8")
    parser = argparse.ArgumentParser()
    eval_phi.add_parser(parser.add_subparsers())
    args = parser.parse_args(["phi", "--positives", str(positives), str(leaky), "--negatives", str(negatives),
                              "--json"])
    assert args.run(args) == 0
    report = json.loads(capsys.readouterr().out)
    assert set(report["sets"]) == {"positives.json", "leaky.json", "negatives.jsonl"}
    assert report["sets"]["leaky.json"]["leaked"] == 1 and report["sets"]["positives.json"]["leaked"] == 0
    assert (report["positives"], report["leaked"], report["negatives"]) == (3, 1, 2)
    assert report["leaked_examples"] == []  # texts are printed only when asked for


def test_eval_phi_cli_prints_examples_only_when_asked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    leaky = tmp_path / "leaky.json"
    leaky.write_text(json.dumps([{"full_text": "the cat sat on the mat", "spans": [
        {"entity_type": "PERSON", "start_position": 4, "end_position": 7}]}]), encoding="utf-8")
    parser = argparse.ArgumentParser()
    eval_phi.add_parser(parser.add_subparsers())
    for flags, shown in (([], False), (["--show-examples", "5"], True)):
        args = parser.parse_args(["phi", "--positives", str(leaky), *flags])
        assert args.run(args) == 0
        assert ("the cat sat on the mat" in capsys.readouterr().out) is shown


def test_eval_phi_cli_needs_a_file() -> None:
    parser = argparse.ArgumentParser()
    eval_phi.add_parser(parser.add_subparsers())
    args = parser.parse_args(["phi"])
    with pytest.raises(InvalidInput, match="at least one"):
        args.run(args)
