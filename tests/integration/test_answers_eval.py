"""Answers that know their limits, on the bundled sample corpus with the extractive default (issue 12).

The dev questions (tests/fixtures/answers/dev.jsonl) are the ones the evidence threshold and the composer
were tuned on; holdout.jsonl is measured by `voiceassist eval answers` and reported in docs/benchmarks.md.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from voiceassist_local.cli import main
from voiceassist_local.cli.local import ensure_sample_corpus
from voiceassist_local.evaluation.answers import evaluate, load_questions

from voiceassist import service
from voiceassist.composition import Dependencies
from voiceassist.models import AnswerStatus, DocumentStatus, QueryRequest

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "answers"


def ask(deps: Dependencies, query: str):  # type: ignore[no-untyped-def]
    return service.answer(deps, QueryRequest(query=query, top_k=5), user_id="eval-answers")


@pytest.mark.slow
def test_dev_questions_are_answered_from_the_right_document_or_abstained(local_deps: Dependencies) -> None:
    ensure_sample_corpus(local_deps)

    report = evaluate(load_questions(FIXTURES / "dev.jsonl"), lambda query: ask(local_deps, query))

    summary = report.as_dict()
    assert summary["answered_correctly_pct"] >= 90, summary["failures"]
    assert summary["abstained_pct"] >= 90, summary["failures"]


@pytest.mark.slow
@pytest.mark.parametrize("name", ["holdout3", "holdout4"])
def test_questions_written_with_lay_and_british_words_are_answered_or_abstained(
        name: str, local_deps: Dependencies) -> None:
    """Written before the synonyms (query/synonyms.py) were built: holdout3 measured 60 % answered correctly
    before them, holdout4 was measured once after them (docs/benchmarks.md); this guards the figures."""
    ensure_sample_corpus(local_deps)

    summary = evaluate(load_questions(FIXTURES / f"{name}.jsonl"), lambda query: ask(local_deps, query)).as_dict()

    assert summary["answered_correctly_pct"] >= 85, summary["failures"]
    assert summary["abstained_pct"] >= 90, summary["failures"]


def test_the_issue_examples_abstain_or_answer_with_the_sentence_that_applies(local_deps: Dependencies) -> None:
    ensure_sample_corpus(local_deps)

    apixaban = ask(local_deps, "What is the dose of apixaban for stroke prevention in atrial fibrillation?")
    pe = ask(local_deps, "Treatment of PE in a patient with CKD?")
    cap = ask(local_deps, "What is the first-line treatment for community-acquired pneumonia?")
    egfr = ask(local_deps, "John Smith, eGFR 38, can he keep taking metformin?")

    for abstained in (apixaban, pe):
        assert (abstained.metadata.answer_status, abstained.citations) == (AnswerStatus.NO_EVIDENCE, [])
    assert '"apixaban"' in apixaban.answer and "Smith" not in egfr.answer
    first_sentence = cap.answer.split(": ", 1)[1].split(" [1]")[0]
    assert "first-line treatment is amoxicillin" in first_sentence
    assert egfr.metadata.answer_status is AnswerStatus.ANSWERED
    assert egfr.answer.split(": ", 1)[1].startswith("Starting it is not recommended when eGFR is between 30 and 45")
    assert {c.doc_key for c in egfr.citations} == {"sample-metformin"}


def test_a_childs_question_answered_from_an_adult_guideline_states_the_conflict_first(
        local_deps: Dependencies) -> None:
    ensure_sample_corpus(local_deps)

    child = ask(local_deps, "amoxicillin dose for pneumonia in a 4 year old")
    covered = ask(local_deps, "epinephrine dose for a 6 yo with anaphylaxis")

    assert child.metadata.answer_status is AnswerStatus.ANSWERED_OTHER_POPULATION
    assert child.answer.startswith("Caution: the question is about children, but no cited passage is.")
    assert covered.metadata.answer_status is AnswerStatus.ANSWERED and "0.3 mg in children" in covered.answer


def test_eval_answers_cli_reports_both_shares(tmp_path: Path, local_deps: Dependencies,
                                             capsys: pytest.CaptureFixture[str],
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    questions = tmp_path / "questions.jsonl"
    questions.write_text("\n".join(json.dumps(q) for q in [
        {"query": "What is the maximum daily dose of metformin?", "answerable": True,
         "doc_key": "metformin-drug-reference", "must_contain": ["2,000 mg"]},
        {"query": "How is digoxin toxicity treated?", "answerable": False},
    ]))
    corpus = Path(__file__).resolve().parents[2] / "samples" / "corpus" / "metformin-drug-reference.md"
    monkeypatch.setenv("VOICEASSIST_DATA_DIR", str(tmp_path / "data"))

    code = main(["eval", "answers", "--questions", str(questions), "--corpus", str(corpus), "--json"])

    report = json.loads(capsys.readouterr().out)
    assert code == 0, report
    assert (report["answered_correctly_pct"], report["abstained_pct"]) == (100.0, 100.0), report["failures"]


def test_a_follow_up_without_a_topic_is_judged_with_the_previous_question(local_deps: Dependencies) -> None:
    from voiceassist.models import Session

    ensure_sample_corpus(local_deps)
    session = Session(user_id="eval-answers")
    local_deps.sessions.create(session)
    first = service.answer(local_deps, QueryRequest(query="Can metformin be used in type 2 diabetes?",
                                                    session_id=session.session_id), user_id="eval-answers")

    follow_up = service.answer(local_deps, QueryRequest(query="And what is the maximum dose?",
                                                        session_id=session.session_id), user_id="eval-answers")

    assert first.metadata.answer_status is AnswerStatus.ANSWERED
    assert follow_up.metadata.answer_status is AnswerStatus.ANSWERED
    assert {c.doc_key for c in follow_up.citations} == {"sample-metformin"}  # not epinephrine's maximum dose
    assert "2,000 mg" in follow_up.answer


def test_sample_corpus_evaluation_retries_a_sample_that_failed_and_the_server_does_not(
        local_deps: Dependencies) -> None:
    """`eval answers` measures against the four samples: one that failed once (PHI back-pressure, a crash) is
    ingested again; the server's first-start seeding leaves a folder with documents as it is."""
    ensure_sample_corpus(local_deps, show=False)
    metformin = next(d for d in local_deps.documents.list() if d.doc_key == "sample-metformin")
    local_deps.documents.put(metformin.model_copy(update={"status": DocumentStatus.FAILED}))

    assert ensure_sample_corpus(local_deps, show=False) == []
    assert all(d.status is not DocumentStatus.ACTIVE for d in local_deps.documents.versions("sample-metformin"))

    assert ensure_sample_corpus(local_deps, every_sample=True, show=False) == []
    statuses = [d.status for d in local_deps.documents.versions("sample-metformin")]
    assert statuses.count(DocumentStatus.ACTIVE) == 1
    assert ask(local_deps, "metformin starting dose").metadata.answer_status is AnswerStatus.ANSWERED
