"""bench/voice_audio.py's question sets: a set named by its fixture file, or a new answers file by its path (how a
blind set written after the code is read, spoken, by bench/voice_answers.py --questions FILE)."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

import pytest

from tests.support.bench_module import load_bench


@pytest.fixture(scope="module")
def voice_audio() -> ModuleType:
    return load_bench("voice_audio")


def test_voice_bench_reads_an_answers_file_by_its_path(voice_audio: ModuleType, tmp_path: Path) -> None:
    row = {"query": "What is the starting dose of lisinopril?", "answerable": True, "doc_key": "sample-hypertension",
           "must_contain": ["10 mg"]}
    path = tmp_path / "blind6.jsonl"
    path.write_text(json.dumps(row) + "\n\n")

    spoken = voice_audio.load_set(str(path), 0)

    assert [(s.text, s.answer["doc_key"], s.set_name) for s in spoken] == [
        ("What is the starting dose of lisinopril?", "sample-hypertension", str(path))]


def test_voice_bench_reads_a_fixture_set_by_its_name(voice_audio: ModuleType) -> None:
    spoken = voice_audio.load_set("dev", 0)
    assert len(spoken) == 40 and spoken[0].text == "What is the maximum daily dose of metformin?"


def test_voice_bench_says_which_answers_file_is_missing(voice_audio: ModuleType, tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="no answers file at .*absent.jsonl"):
        voice_audio.load_set(str(tmp_path / "absent.jsonl"), 0)
