"""The learned answer gate's measurement: question sets by writer, passage labels, and the gate's outcome."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from voiceassist_local.evaluation.gate_data import GateRecord, load, question_sets, save
from voiceassist_local.evaluation.gate_data import asked_again as asked_again
from voiceassist_local.evaluation.gate_features import FEATURES, features
from voiceassist_local.evaluation.gate_rule import cross_validate as rule_cross_validate
from voiceassist_local.evaluation.gate_rule import rescued
from voiceassist_local.evaluation.gate_sentences import (
    SENTENCE_FEATURES,
    VectorCache,
    kind_questions,
    sentence_features,
)
from voiceassist_local.evaluation.gate_training import (
    Example,
    Rule,
    examples_of,
    gate_scores,
    outcome,
    passage_labels,
    writer,
)

from voiceassist.models import Chunk, DocumentMetadata, SearchHit, SourceType
from voiceassist.query import evidence

ADULT_CAP = ("For adults with community-acquired pneumonia treated as outpatients without comorbidities, give "
             "amoxicillin 1 g three times daily.")
METFORMIN_RENAL = "Metformin is contraindicated when eGFR is below 30 mL/min/1.73 m2."


def hit(text: str, doc_key: str, *, score: float = 1.0, vector_score: float | None = 0.8) -> SearchHit:
    meta = DocumentMetadata(doc_key=doc_key, title=doc_key.replace("-", " "), source_type=SourceType.GUIDELINE)
    chunk = Chunk(chunk_id=f"c-{doc_key}-{len(text)}", doc_id="d", doc_key=doc_key, version=1, ordinal=0, text=text,
                  token_count=len(text.split()), metadata=meta)
    return SearchHit(chunk=chunk, score=score, vector_score=vector_score)


def record(query: str, hits: list[SearchHit], *, answerable: bool = True, doc_key: str | None = "pneumonia",
           must_contain: tuple[str, ...] = ("1 g",), population: str | None = None) -> GateRecord:
    return GateRecord("writer", query, answerable, doc_key if answerable else None,
                      must_contain if answerable else (), population, query, hits, True)


def example(rec: GateRecord) -> Example:
    return Example(rec, "samples", "full", features(rec.judged_text, rec.hits), passage_labels(rec))


def test_question_sets_are_whole_files_each_query_asked_once(tmp_path: Path) -> None:
    lines = {"a.jsonl": ["Metformin dose?", "CAP abx?"], "a.tune.jsonl": ["Metformin dose?"],
             "b.jsonl": ["metformin  DOSE?", "Epinephrine dose?"]}
    for name, queries in lines.items():
        (tmp_path / name).write_text("".join(json.dumps({"query": q, "answerable": True}) + "\n" for q in queries))

    sets = question_sets(tmp_path)

    assert sorted(sets) == ["a", "b"]
    assert [r["query"] for r in sets["b"]] == ["Epinephrine dose?"]


def test_a_passage_is_labelled_an_answer_only_from_the_right_document_with_the_phrase() -> None:
    rec = record("amoxicillin dose for CAP", [hit(ADULT_CAP, "pneumonia"), hit(METFORMIN_RENAL, "metformin"),
                                               hit("Pneumonia is common.", "pneumonia")])

    assert passage_labels(rec).tolist() == [1.0, 0.0, 0.0]
    assert passage_labels(record("amoxicillin in pregnancy?", rec.hits, answerable=False)).tolist() == [0.0] * 3


def test_an_answerable_question_is_right_only_when_a_kept_passage_holds_the_phrase() -> None:
    ex = example(record("amoxicillin dose for CAP", [hit(ADULT_CAP, "pneumonia"),
                                                      hit(METFORMIN_RENAL, "metformin", score=0.9)]))

    assert outcome(ex, np.array([0.9, 0.1]), 0.55)
    assert not outcome(ex, np.array([0.2, 0.9]), 0.55)  # the other document answers
    assert not outcome(ex, np.array([0.5, 0.1]), 0.55)  # nothing reaches the threshold: abstained


def test_a_passage_that_answers_or_states_the_asked_dose_is_kept_whatever_its_search_rank() -> None:
    # as abstention.keep_supported_hits keeps them: searched far below the best (0.2 of 1.0), kept when it answers
    # by itself or, in an answering document, states the dose asked for
    rec = record("amoxicillin dose for CAP", [hit("Community-acquired pneumonia: assess severity with CURB-65.",
                                                  "pneumonia"), hit(ADULT_CAP, "pneumonia", score=0.2)])
    ex = examples_of([rec], "samples")[0]

    assert ex.stating == frozenset({1})
    assert outcome(ex, np.array([0.9, 0.1]), 0.55)  # its document answers: the dose passage stays
    assert outcome(ex, np.array([0.1, 0.9]), 0.55)  # it answers by itself
    assert not outcome(ex, np.array([0.1, 0.1]), 0.55)
    assert not outcome(Example(rec, "samples", "full", ex.rows, ex.labels), np.array([0.9, 0.1]), 0.55)


def test_a_child_question_answered_from_adult_evidence_counts_only_with_the_conflict_stated() -> None:
    ex = example(record("amoxicillin dose for pneumonia in a 4 year old child", [hit(ADULT_CAP, "pneumonia")],
                        answerable=False, population="child"))

    assert outcome(ex, np.array([0.9]), 0.55)  # answered, with the population conflict stated first
    assert outcome(ex, np.array([0.1]), 0.55)  # abstained


def test_the_blended_gate_needs_the_score_and_the_probability_together() -> None:
    ex = example(record("amoxicillin dose for CAP", [hit(ADULT_CAP, "pneumonia")]))
    hand = ex.rows[0, 0]

    blended = gate_scores(ex, np.array([0.3]), 0.3, Rule(gate="blend"))[0]

    assert blended == 0.5 * hand / 0.55 + 0.5
    assert gate_scores(ex, np.array([0.3]), 0.3, Rule(gate="model"))[0] == 1.0


def test_features_read_a_hit_without_sub_scores_as_opensearch_returns_it() -> None:
    question = "Can metformin be continued at an eGFR of 25?"
    with_cosine = features(question, [hit(METFORMIN_RENAL, "metformin")])
    bare = features(question, [hit(METFORMIN_RENAL, "metformin", vector_score=None)])

    assert with_cosine.shape == bare.shape == (1, len(FEATURES))
    assert not np.isnan(bare).any()
    assert bare[0, FEATURES.index("coverage")] == with_cosine[0, FEATURES.index("coverage")]


def test_the_evidence_score_names_its_parts() -> None:
    found = evidence.assess("dose of glipizide in CKD", [hit(METFORMIN_RENAL, "metformin")])
    part = found.passages[0]

    assert part.other_drug and not part.keyword_form
    assert part.own_coverage <= part.coverage


def test_records_are_read_back_as_written(tmp_path: Path) -> None:
    rec = record("amoxicillin dose for CAP", [hit(ADULT_CAP, "pneumonia")])

    save([rec], tmp_path / "records.pkl")

    assert load(tmp_path / "records.pkl") == [rec]


def test_a_writers_spoken_style_set_is_left_out_with_their_typed_one() -> None:
    typed, spoken = record("CAP abx?", []), record("cap antibiotics?", [])
    typed.set, spoken.set = "blind7", "blind7_spoken"

    assert writer(example(typed)) == writer(example(spoken)) == "blind7"


class WordEmbedder:
    """A stand-in for the MiniLM encoder: a text's vector is its (stemless) words hashed into 64 bins, unit length,
    so texts sharing words are close; counts every text it embeds."""

    in_boundary = True
    dimension = 64

    def __init__(self) -> None:
        self.embedded: list[str] = []

    def embed(self, texts: list[str]) -> np.ndarray:
        self.embedded.extend(texts)
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for i, text in enumerate(texts):
            for word in text.lower().replace(":", " ").replace("?", " ").replace(".", " ").split():
                out[i, sum(map(ord, word)) % self.dimension] += 1.0
        return out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-9)


METFORMIN_DOSES = ("Metformin is a biguanide used in type 2 diabetes. Start metformin at 500 mg once daily with the "
                   "evening meal. Review renal function every year.")


def test_sentence_features_read_the_sentence_closest_to_the_question_and_what_it_states() -> None:
    cache = VectorCache(WordEmbedder())
    rows = sentence_features("starting dose of metformin with evening meal", [hit(METFORMIN_DOSES, "metformin"),
                                                                             hit(ADULT_CAP, "pneumonia")], cache)
    at = SENTENCE_FEATURES.index

    assert rows.shape == (2, len(SENTENCE_FEATURES))
    assert rows[0, at("sentences")] == 3
    assert rows[0, at("sent_cos")] > rows[1, at("sent_cos")]
    assert rows[1, at("sent_cos_gap")] < 0.0 == rows[0, at("sent_cos_gap")]
    assert rows[0, at("sent_states_asked")] == 1.0  # the closest sentence states a dose: "500 mg"
    assert rows[0, at("stating_cos")] == rows[0, at("sent_cos")]
    assert kind_questions("metformin (sample drug reference)", "Start metformin at 500 mg once daily.")[0] == (
        "What is the dose of metformin?")
    assert kind_questions("metformin", "Metformin is a biguanide.") == ["What about metformin?"]


def test_a_question_asking_no_quantity_leaves_the_stated_kind_unknown() -> None:
    rows = sentence_features("is metformin a biguanide", [hit(METFORMIN_DOSES, "metformin")],
                             VectorCache(WordEmbedder()))

    assert np.isnan(rows[0, SENTENCE_FEATURES.index("sent_states_asked")])


def test_sentence_vectors_are_embedded_once_and_read_back_from_disk(tmp_path: Path) -> None:
    embedder = WordEmbedder()
    cache = VectorCache(embedder, tmp_path / "vectors.npz")
    hits = [hit(METFORMIN_DOSES, "metformin")]
    first = sentence_features("metformin dose", hits, cache, pairs=False)
    sentence_features("metformin dose", hits, cache, pairs=False)
    cache.save()
    again = WordEmbedder()

    # the question, three sentences and the questions their fact kinds answer, each once
    assert cache.embedded == len(embedder.embedded) == len(set(embedder.embedded))
    assert np.array_equal(sentence_features("metformin dose", hits, VectorCache(again, tmp_path / "vectors.npz"),
                                            pairs=False), first, equal_nan=True)
    assert again.embedded == []


def test_a_question_whose_workflow_times_out_is_asked_again() -> None:
    from voiceassist.adapters.aws.stepfunctions_pipeline import PipelineExecutionFailed

    calls: list[int] = []
    rec = record("amoxicillin dose for CAP", [hit(ADULT_CAP, "pneumonia")])

    def answer(deps: object, request: object, *, user_id: str) -> str:
        calls.append(1)
        if len(calls) == 1:
            raise PipelineExecutionFailed("query", error="States.Timeout", cause="")
        return "answered"

    assert asked_again(answer, None, None, rec) == "answered"
    assert len(calls) == 2 and not rec.judged and rec.hits == []  # the first attempt's judgement is not kept


def test_a_question_failing_otherwise_is_not_asked_again() -> None:
    from voiceassist.adapters.aws.stepfunctions_pipeline import PipelineExecutionFailed

    calls: list[int] = []

    def answer(deps: object, request: object, *, user_id: str) -> str:
        calls.append(1)
        raise PipelineExecutionFailed("query", error="ExtractionError", cause="bad input")

    with pytest.raises(PipelineExecutionFailed):
        asked_again(answer, None, None, record("amoxicillin dose for CAP", []))
    assert len(calls) == 1


def rule_example(rec: GateRecord, hand: float, feature: float) -> Example:
    rows = np.zeros((len(rec.hits), len(FEATURES) + 1))
    rows[:, 0], rows[:, -1] = hand, feature
    return Example(rec, "samples", "full", rows, passage_labels(rec))


def test_the_rescue_rule_raises_only_a_candidate_just_under_the_threshold_whose_feature_reaches_its_cut() -> None:
    rec = record("amoxicillin dose for CAP", [hit(ADULT_CAP, "pneumonia")] * 3)
    ex = rule_example(rec, 0.0, 0.0)
    ex.rows[:, 0], ex.rows[:, -1] = [0.5, 0.2, 0.7], [0.9, 0.9, 0.1]

    assert rescued(ex, len(FEATURES), 0.3, 0.8).tolist() == [0.55, 0.2, 0.7]


def test_the_rescue_rule_is_chosen_without_the_held_out_writer_and_never_at_the_cost_of_an_uncovered_question() -> None:
    examples = []
    for name in ("a", "b", "c"):
        answerable = record("amoxicillin dose for CAP", [hit(ADULT_CAP, "pneumonia")])
        answerable.set = name
        examples.append(rule_example(answerable, 0.45, 0.9))
    uncovered = record("amoxicillin in pregnancy?", [hit(ADULT_CAP, "pneumonia")], answerable=False)
    uncovered.set = "c"
    examples.append(rule_example(uncovered, 0.45, 0.95))

    report = rule_cross_validate(examples, len(FEATURES))

    assert report["chosen"]["a"] is None  # rescuing b's question would answer c's uncovered one
    assert report["sets"]["samples/a"]["answerable_pct"] == [0.0, 0.0]
    # c's parameters come from a and b, which hold no uncovered question: c's own is answered, and it shows
    assert report["chosen"]["c"] is not None
    assert report["sets"]["samples/c"]["uncovered_pct"] == [100.0, 0.0]


def test_the_nested_cross_validation_trains_the_model_without_two_writers_once(monkeypatch: pytest.MonkeyPatch
                                                                               ) -> None:
    from voiceassist_local.evaluation import gate_training

    trained: list[frozenset[str]] = []

    def fake_train(examples: list[Example], rounds: int = 0) -> frozenset[str]:
        trained.append(frozenset(writer(e) for e in examples))
        return trained[-1]

    monkeypatch.setattr(gate_training, "train", fake_train)
    monkeypatch.setattr(gate_training, "probabilities", lambda model, e: np.full(len(e.rows), 0.5))
    examples = []
    for name in ("a", "b", "c"):
        rec = record("amoxicillin dose for CAP", [hit(ADULT_CAP, "pneumonia")])
        rec.set = name
        examples.append(example(rec))

    gate_training.cross_validate(examples, Rule())

    # trained on: two writers (one left out, 3 models), then one (a pair left out, 3 models): not 3 + 3 x 2
    assert sorted(map(sorted, trained)) == [["a"], ["a", "b"], ["a", "c"], ["b"], ["b", "c"], ["c"]]
