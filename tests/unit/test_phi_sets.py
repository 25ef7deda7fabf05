"""The generated PHI evaluation sets: gold spans cover their values, and the two parts share no template."""

from __future__ import annotations

import json
from pathlib import Path

from voiceassist_local.evaluation.phi_eval import load_negatives, load_positives
from voiceassist_local.evaluation.phi_sets import fill, main, part_of


def test_fill_records_a_span_per_phi_field_and_none_for_plain_ones() -> None:
    text, spans = fill("{name} lives in {city:plain}, zip {zip}.",
                       {"name": lambda: "Ann Lee", "city": lambda: "Leeds", "zip": lambda: "02139"})
    assert text == "Ann Lee lives in Leeds, zip 02139."
    assert [(s["entity_type"], text[s["start_position"]:s["end_position"]]) for s in spans] == [
        ("PERSON", "Ann Lee"), ("ZIP_CODE", "02139")]


def test_generated_sets_load_and_keep_templates_apart(tmp_path: Path) -> None:
    assert main(["--out", str(tmp_path), "--count", "60"]) == 0
    for name in ("faker_notes", "mimesis_notes", "clinician_queries"):
        parts = {part: load_positives(tmp_path / f"{name}.{part}.json") for part in ("dev", "holdout")}
        assert parts["dev"] and parts["holdout"]
        assert not {i.group for i in parts["dev"]} & {i.group for i in parts["holdout"]}
        for item in parts["dev"] + parts["holdout"]:
            assert item.is_positive
            rows = {(s.start, s.end) for s in item.spans}
            assert all(0 <= start < end <= len(item.text) for start, end in rows)
        raw = json.loads((tmp_path / f"{name}.dev.json").read_text(encoding="utf-8"))
        assert all(item["full_text"][s["start_position"]:s["end_position"]] == s["entity_value"]
                   for item in raw for s in item["spans"])
    negatives = {part: load_negatives(tmp_path / f"hard_negatives.{part}.jsonl") for part in ("dev", "holdout")}
    dev_templates = {i.group.rsplit("-t", 1)[1] for i in negatives["dev"]}
    held_templates = {i.group.rsplit("-t", 1)[1] for i in negatives["holdout"]}
    assert dev_templates and held_templates and not dev_templates & held_templates


def test_part_of_is_stable() -> None:
    assert part_of("faker_notes:x") == part_of("faker_notes:x")
    assert {part_of(f"k{i}") for i in range(50)} == {"dev", "holdout"}
