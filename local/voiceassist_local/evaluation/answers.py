"""Answer evaluation: does the system answer what its documents cover and abstain on what they do not?

A questions file is JSONL, one object a line: `query`, `answerable` (bool), and for answerable questions
optionally `doc_key` (the document a correct answer cites) and `must_contain` (phrases, any one of which must
appear in the answer, case-insensitive), and for unanswerable questions optionally `population` (the
question asks about a population the documents do not cover: "child", "pregnancy", "renal", ...). An
answerable question is answered correctly when the response's `answer_status` is "answered", a citation comes
from `doc_key`, and a phrase appears; an uncovered one is abstained when the status is "no_evidence" or
"clarification"; a population question is handled when it is not a plain "answered" (abstained, asked back,
or "answered_other_population": the conflict stated first).
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from voiceassist.models import AnswerStatus, QueryResponse

ABSTAINED = frozenset({AnswerStatus.NO_EVIDENCE, AnswerStatus.CLARIFICATION})


@dataclass(frozen=True)
class Question:
    query: str
    answerable: bool
    doc_key: str | None = None
    must_contain: tuple[str, ...] = ()
    population: str | None = None  # the population asked about, which the documents do not cover


@dataclass
class AnswersReport:
    answerable: int = 0
    answered_correctly: int = 0
    unanswerable: int = 0
    abstained: int = 0
    population: int = 0
    population_handled: int = 0  # not presented as a plain answer
    grounding: list[float] = field(default_factory=list)
    checks_ms: list[float] = field(default_factory=list)  # the evidence score and the grounding check
    failures: list[dict[str, Any]] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "answerable": self.answerable,
            "answered_correctly_pct": _pct(self.answered_correctly, self.answerable),
            "unanswerable": self.unanswerable,
            "abstained_pct": _pct(self.abstained, self.unanswerable),
            "population": self.population,
            "population_handled_pct": _pct(self.population_handled, self.population),
            "mean_grounding": round(statistics.fmean(self.grounding), 3) if self.grounding else None,
            "checks_ms_p95": _p95(self.checks_ms),
            "failures": self.failures,
        }


def _p95(values: list[float]) -> float | None:
    return round(sorted(values)[int(0.95 * (len(values) - 1))], 3) if values else None


def _pct(part: int, whole: int) -> float | None:
    return round(100.0 * part / whole, 1) if whole else None


def load_questions(path: Path) -> list[Question]:
    questions = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        record = json.loads(line)
        if "query" not in record or "answerable" not in record:
            raise ValueError(f"{path}:{number}: each line needs 'query' and 'answerable'")
        questions.append(Question(query=record["query"], answerable=bool(record["answerable"]),
                                  doc_key=record.get("doc_key"), must_contain=tuple(record.get("must_contain", ())),
                                  population=record.get("population")))
    return questions


def answered_correctly(question: Question, response: QueryResponse) -> bool:
    if response.metadata.answer_status is not AnswerStatus.ANSWERED or not response.citations:
        return False
    if question.doc_key and all(c.doc_key != question.doc_key for c in response.citations):
        return False
    answer = response.answer.casefold()
    return not question.must_contain or any(p.casefold() in answer for p in question.must_contain)


def evaluate(questions: Sequence[Question], ask: Callable[[str], QueryResponse],
             progress: Callable[[Iterable[Question]], Iterable[Question]] = lambda items: items) -> AnswersReport:
    report = AnswersReport()
    for question in progress(questions):
        response = ask(question.query)
        if response.metadata.grounding is not None:
            report.grounding.append(response.metadata.grounding)
        latency = response.metadata.latency_ms
        report.checks_ms.append(latency.get("evidence", 0.0) + latency.get("grounding", 0.0))
        status = response.metadata.answer_status
        if question.answerable:
            report.answerable += 1
            ok = answered_correctly(question, response)
            report.answered_correctly += ok
        elif question.population:
            report.population += 1
            ok = status is not AnswerStatus.ANSWERED
            report.population_handled += ok
        else:
            report.unanswerable += 1
            ok = status in ABSTAINED
            report.abstained += ok
        if not ok:
            report.failures.append({
                "query": question.query, "answerable": question.answerable, "population": question.population,
                "status": response.metadata.answer_status.value, "evidence": response.metadata.evidence_score,
                "cited": [c.doc_key for c in response.citations], "answer": response.answer[:300],
            })
    return report
