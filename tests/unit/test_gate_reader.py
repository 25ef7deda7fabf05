"""The answer gate's late-interaction and answer-sentence reader measurements (issue 24; nothing here ships): token
vectors from the shipped encoder, the question's content words, sentence labels and the rules' cross-validation."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from voiceassist_local.evaluation import gate_reader
from voiceassist_local.evaluation.gate_data import GateRecord
from voiceassist_local.evaluation.gate_features import FEATURES
from voiceassist_local.evaluation.gate_late import LATE_FEATURES, TokenVectors, late_features, question_words
from voiceassist_local.evaluation.gate_training import Example, passage_labels

from voiceassist.adapters.onnx.embedder import OnnxEmbedder
from voiceassist.models import Chunk, DocumentMetadata, SearchHit, SourceType

CONTRAST = "Withhold metformin before iodinated contrast in patients with an eGFR below 60."
CAP = "For adults with community-acquired pneumonia treated as outpatients, give amoxicillin 1 g three times daily."


def hit(text: str, doc_key: str, title: str) -> SearchHit:
    meta = DocumentMetadata(doc_key=doc_key, title=title, source_type=SourceType.GUIDELINE)
    chunk = Chunk(chunk_id=f"c-{doc_key}-{len(text)}", doc_id="d", doc_key=doc_key, version=1, ordinal=0, text=text,
                  token_count=len(text.split()), metadata=meta)
    return SearchHit(chunk=chunk, score=1.0, vector_score=0.8)


@pytest.fixture(scope="module")
def tokens() -> TokenVectors:
    return TokenVectors(OnnxEmbedder(), keep=2)


def test_the_token_vectors_pool_to_the_embedders_own_sentence_vector(tokens: TokenVectors) -> None:
    text = "Metformin: withhold before iodinated contrast."
    pooled = tokens.pooled(text)
    vectors, words, pieces = tokens(text)

    assert float(pooled @ OnnxEmbedder().embed([text])[0]) > 0.999
    assert len(vectors) == len(words) == len(pieces)
    assert ":" not in pieces and "." not in pieces  # punctuation is not a term to align
    assert np.allclose(np.linalg.norm(vectors.astype(np.float32), axis=1), 1.0, atol=1e-2)


def test_only_the_questions_content_words_are_aligned(tokens: TokenVectors) -> None:
    asked, weights = question_words("what is the dose of metformin for me please", tokens)

    assert 1 <= len(asked) == len(weights) <= 3  # "dose", "metformin" (and no function word)
    assert question_words("what is it", tokens)[0].shape[0] == 0


def test_a_sentence_holding_the_questions_terms_aligns_above_an_unrelated_one(tokens: TokenVectors) -> None:
    rows = late_features("stop metformin before iodinated contrast?",
                         [hit(CONTRAST, "metformin", "Metformin"), hit(CAP, "pneumonia", "Pneumonia")], tokens)

    assert rows.shape == (2, len(LATE_FEATURES))
    assert rows[0, 0] > rows[1, 0] and rows[0, 1] > rows[1, 1]
    assert tokens.encoded >= 3  # the question and the two sentences, each encoded once, the oldest dropped past 2


def test_only_the_right_documents_sentence_holding_the_phrase_is_an_answer(tokens: TokenVectors) -> None:
    hits = [hit(f"Metformin is a biguanide. {CONTRAST}", "metformin", "Metformin"), hit(CONTRAST, "other", "Other")]
    rows, labels, owner = gate_reader.sentence_rows("metformin before contrast?", hits,
                                                    np.zeros((2, len(FEATURES))), tokens, ("iodinated contrast",),
                                                    "metformin")

    assert rows.shape == (3, len(gate_reader.SENTENCE_COLUMNS))
    assert labels.tolist() == [0.0, 1.0, 0.0] and owner.tolist() == [0, 0, 1]
    uncovered = gate_reader.sentence_rows("metformin before contrast?", hits, np.zeros((2, len(FEATURES))), tokens,
                                          (), None)[1]
    assert uncovered.tolist() == [0.0, 0.0, 0.0]


def test_the_rescue_raises_only_under_the_threshold_and_the_veto_drops_only_above_it() -> None:
    hand, reader = np.array([0.5, 0.2, 0.7, 0.6]), np.array([0.9, 0.9, 0.1, 0.9])

    assert gate_reader.rescued(hand, reader, 0.3, 0.8).tolist() == [0.55, 0.2, 0.7, 0.6]
    assert gate_reader.vetoed(hand, reader, 0.2).tolist() == [0.5, 0.2, 0.0, 0.6]


def item(name: str, answerable: bool, hand: float, reader_row: float) -> gate_reader.Item:
    h = hit(CAP, "pneumonia", "Pneumonia")
    rec = GateRecord(name, "amoxicillin dose for CAP" if answerable else "amoxicillin in pregnancy?", answerable,
                     "pneumonia" if answerable else None, ("1 g",) if answerable else (), None,
                     "amoxicillin dose", [h], True)
    rows = np.zeros((1, len(FEATURES)))
    rows[0, 0] = hand
    sentences = np.full((1, len(gate_reader.SENTENCE_COLUMNS)), reader_row)
    return gate_reader.Item(Example(rec, "samples", "full", rows, passage_labels(rec)), sentences,
                            np.array([float(answerable)]), np.array([0]))


def test_the_reader_is_never_trained_nor_its_rule_chosen_on_the_held_out_writer(monkeypatch: pytest.MonkeyPatch
                                                                               ) -> None:
    trained: list[frozenset[str]] = []

    def fake_train(items: list[gate_reader.Item]) -> frozenset[str]:
        trained.append(frozenset(i.writer for i in items))
        return trained[-1]

    def fake_scores(model: Any, it: gate_reader.Item) -> np.ndarray:
        return np.array([float(it.rows[0, 0])])  # the reader's score is the item's own number

    monkeypatch.setattr(gate_reader, "train", fake_train)
    monkeypatch.setattr(gate_reader, "passage_scores", fake_scores)
    items = [item("a", True, 0.45, 0.9), item("b", True, 0.45, 0.9), item("c", True, 0.45, 0.9),
             item("c", False, 0.45, 0.95)]

    report = gate_reader.cross_validate(items)

    assert all(len(t) >= 1 for t in trained) and not any(set(t) == {"a", "b", "c"} for t in trained)
    assert report["chosen"]["rescue"]["a"] is None  # a rescue for a would answer c's uncovered question
    assert report["chosen"]["rescue"]["c"] is not None  # chosen on a and b alone, which hold no uncovered question
    assert report["sets"]["samples/c"]["uncovered"] == [1, 100.0, 0.0, 100.0]
