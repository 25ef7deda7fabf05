"""bench/voice_lost_words.py's alignment: each stretch where the transcript differs from what was said, put back
alone, the rest of the transcript as heard."""

from __future__ import annotations

from types import ModuleType

import pytest

from tests.support.bench_module import load_bench


@pytest.fixture(scope="module")
def lost_words() -> ModuleType:
    return load_bench("voice_lost_words")


def test_each_differing_stretch_is_put_back_alone(lost_words: ModuleType) -> None:
    said = "what is the usual dose of lisinopril for an older man"
    heard = "What is the unusual dose of listen april for an older man?"
    fixes = lost_words.single_fixes(said, heard)
    assert [(was, now) for was, now, _ in fixes] == [("unusual", "usual"), ("listen april", "lisinopril")]
    assert fixes[0][2] == "What is the usual dose of listen april for an older man?"
    assert fixes[1][2] == "What is the unusual dose of lisinopril for an older man?"


def test_a_word_said_but_not_heard_goes_back_in_and_a_word_heard_but_not_said_comes_out(
        lost_words: ModuleType) -> None:
    assert [text for _, _, text in lost_words.single_fixes("how long does the rash last", "How long the rash last?")
            ] == ["How long does the rash last?"]
    assert [text for _, _, text in lost_words.single_fixes("how long does it last", "How long does it last? Bye")
            ] == ["How long does it last? "]
    assert lost_words.single_fixes("is it safe", "Is it safe?") == []


def test_the_bench_output_is_read_after_its_progress_lines(lost_words: ModuleType, tmp_path) -> None:
    path = tmp_path / "out.txt"
    path.write_text('ingest: 100%|####| 4/4\n{\n  "lost_by_transcription": []\n}\n')
    assert lost_words.results(str(path)) == {"lost_by_transcription": []}
    path.write_text('{"lost_by_transcription": [{"said": "x"}]}')
    assert lost_words.results(str(path))["lost_by_transcription"][0]["said"] == "x"
