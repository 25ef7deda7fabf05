"""bench/input_screen_data.py's clinician questions and hard negatives (session 16): every answer file, the spoken sets
too, and every writer's clinical questions, split in two halves by a hash of the text so a refit reads one half and
the other is only measured; the hard negatives are the writers' own kind, never a clinical question."""

from __future__ import annotations

from types import ModuleType

import pytest

from tests.support.bench_module import load_bench


@pytest.fixture(scope="module")
def data() -> ModuleType:
    return load_bench("input_screen_data")


def test_answer_questions_read_the_spoken_sets_and_the_writers_clinical_questions(data: ModuleType) -> None:
    questions = data.answer_questions()

    assert "how do I lie them down, flat with the legs up or what" in questions  # blind15_spoken.jsonl
    assert set(data.clinician_typed()) < set(questions)  # the classifier's fitted answer sets and more
    assert len(questions) == len(set(questions))


def test_answer_questions_halves_partition_them(data: ModuleType) -> None:
    train, held_out = data.answer_questions("train"), data.answer_questions("held_out")

    assert not set(train) & set(held_out)
    assert sorted(train + held_out) == sorted(data.answer_questions())
    assert min(len(train), len(held_out)) > 0.4 * len(data.answer_questions())


def test_hard_negatives_are_no_clinical_question(data: ModuleType) -> None:
    negatives = data.hard_negatives()

    assert len(negatives) > 700 and not set(negatives) & set(data.answer_questions())
    assert sorted(data.hard_negatives("train") + data.hard_negatives("held_out")) == sorted(negatives)
