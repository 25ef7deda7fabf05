"""The answer gate's training data: every committed question set asked through the real query pipeline, with
the candidates the gate judged and what the shipped gate answered.

The question sets are tests/fixtures/answers/*.jsonl, whole files only (the `.tune`/`.report`/`.heldout` halves
are parts of them); each file is one writer or one batch, so cross-validation leaves one file out. A question
asked by more than one file is kept in the first (files in name order).

Each question goes through `service.answer` as `voiceassist eval answers` asks it; the gate's first judgement
(the hybrid step: abstention.keep_supported_hits, before the ladder's later steps) is recorded with the hits it
judged and the text it judged them on, and the response is scored with evaluation/answers.py's rules. The
records are pickled (a cache: features are recomputed from the hits without asking again).
"""

from __future__ import annotations

import json
import os
import pickle
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from voiceassist.models import SearchHit

SPLIT_SUFFIXES = (".tune", ".report", ".heldout")


@dataclass
class GateRecord:
    set: str  # the file the question comes from (one writer or batch)
    query: str
    answerable: bool
    doc_key: str | None
    must_contain: tuple[str, ...]
    population: str | None
    judged_text: str = ""  # the text the gate judged (the redacted question, clinical words restored)
    hits: list[SearchHit] = field(default_factory=list)  # the candidates of the gate's first judgement
    judged: bool = False  # False: the gate never ran (a clarification before it)
    status: str = ""  # the shipped pipeline's answer_status
    cited: list[str] = field(default_factory=list)
    correct: bool = False  # by evaluation/answers.py's rules for the question's kind
    answer: str = ""


def question_sets(folder: Path) -> dict[str, list[dict[str, Any]]]:
    """Each whole question file's records, a query asked by an earlier file dropped."""
    seen: set[str] = set()
    sets: dict[str, list[dict[str, Any]]] = {}
    for path in sorted(folder.glob("*.jsonl")):
        if any(path.stem.endswith(suffix) for suffix in SPLIT_SUFFIXES):
            continue
        records = []
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                record = json.loads(line)
                key = " ".join(record["query"].casefold().split())
                if key not in seen:
                    seen.add(key)
                    records.append(record)
        sets[path.stem] = records
    return sets


def collect(sets: dict[str, list[dict[str, Any]]], data_dir: Path, *, distractors: Path | None = None,
            show: bool = True) -> list[GateRecord]:
    """Ask every question on the knowledge base in `data_dir` (the samples are ingested if missing; `distractors`:
    a BEIR corpus.jsonl ingested first, as `voiceassist ingest-jsonl` does)."""
    from tqdm import tqdm

    from voiceassist import service
    from voiceassist.composition import Dependencies, use_dependencies
    from voiceassist.models import AnswerStatus, QueryRequest
    from voiceassist.query import abstention
    from voiceassist.settings import settings_from_env
    from voiceassist_local.cli import quiet_log
    from voiceassist_local.cli.local import ensure_sample_corpus, warm_up
    from voiceassist_local.evaluation.answers import ABSTAINED, Question, answered_correctly

    quiet_log()
    deps = Dependencies(settings_from_env({**os.environ, "VOICEASSIST_DATA_DIR": str(data_dir),
                                           "VOICEASSIST_RUNTIME": "local"}))
    use_dependencies(deps)
    original = abstention.keep_supported_hits
    current: list[GateRecord] = []

    def recording(state: Any, *, threshold: float, previous_question: str = "", context: str = "") -> Any:
        record = current[-1]
        if not record.judged and not context and state.ladder.step == "hybrid":
            record.judged, record.hits = True, list(state.hits)
            record.judged_text = abstention.evidence_question(state)
        return original(state, threshold=threshold, previous_question=previous_question, context=context)

    abstention.keep_supported_hits = recording  # type: ignore[assignment]
    try:
        if distractors is not None:
            from voiceassist_local.evaluation.rerank_training import ingest_every_record

            ingest_every_record(deps, distractors, show=show)
        if failures := ensure_sample_corpus(deps, every_sample=True, show=show):
            raise RuntimeError("; ".join(failures))
        warm_up(deps)
        records: list[GateRecord] = []
        items = [(name, r) for name, rs in sets.items() for r in rs]
        for name, r in tqdm(items, desc="asking", unit="question", file=sys.stderr, disable=not show):
            record = GateRecord(name, r["query"], bool(r["answerable"]), r.get("doc_key"),
                                tuple(r.get("must_contain", ())), r.get("population"))
            current.append(record)
            response = asked_again(service.answer, deps, QueryRequest(query=r["query"], top_k=5), record)
            status = response.metadata.answer_status
            question = Question(record.query, record.answerable, record.doc_key, record.must_contain,
                                record.population)
            record.status, record.cited = status.value, [c.doc_key for c in response.citations]
            record.answer = response.answer
            record.correct = (answered_correctly(question, response) if record.answerable
                              else status is not AnswerStatus.ANSWERED if record.population
                              else status in ABSTAINED)
            records.append(record)
        return records
    finally:
        abstention.keep_supported_hits = original  # type: ignore[assignment]
        use_dependencies(None)


ASK_ATTEMPTS = 3


def asked_again(answer: Any, deps: Any, request: Any, record: GateRecord) -> Any:
    """The response, the question asked again (up to ASK_ATTEMPTS in all) when the query workflow times out under
    the machine's load (States.Timeout: its own 25 s budget), the gate's first judgement recorded afresh."""
    from voiceassist.adapters.aws.stepfunctions_pipeline import PipelineExecutionFailed

    for attempt in range(ASK_ATTEMPTS):
        record.judged, record.hits, record.judged_text = False, [], ""
        try:
            return answer(deps, request, user_id="gate-data")
        except PipelineExecutionFailed as exc:
            if exc.error != "States.Timeout" or attempt == ASK_ATTEMPTS - 1:
                raise
    raise AssertionError("unreachable")


class _Unpickler(pickle.Unpickler):
    """Reads records pickled by this module run as a script (`python -m`: its classes live in __main__)."""

    def find_class(self, module: str, name: str) -> Any:
        return super().find_class(__name__ if module == "__main__" else module, name)


def load(path: Path) -> list[GateRecord]:
    with path.open("rb") as handle:
        records: list[GateRecord] = _Unpickler(handle).load()  # our own cache, written by save
    return records


def save(records: Sequence[GateRecord], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as handle:
        pickle.dump(list(records), handle)


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=Path, default=Path("tests/fixtures/answers"))
    parser.add_argument("--data-dir", type=Path, required=True, help="the knowledge base (samples added if missing)")
    parser.add_argument("--output", type=Path, required=True, help="the pickled records")
    parser.add_argument("--sets", nargs="*", default=None, help="only these files (stems)")
    parser.add_argument("--distractors", type=Path, help="a BEIR corpus.jsonl whose first --distractor-count "
                        "records are ingested first (NFCorpus: the samples among 3,000 unrelated abstracts)")
    parser.add_argument("--distractor-count", type=int, default=3000)
    args = parser.parse_args(argv)
    sets = question_sets(args.questions)
    if args.sets:
        sets = {k: v for k, v in sets.items() if k in args.sets}
    distractors = None
    if args.distractors:
        args.data_dir.mkdir(parents=True, exist_ok=True)
        distractors = args.data_dir / "distractors.jsonl"
        with args.distractors.open(encoding="utf-8") as source:
            distractors.write_text("".join(line for _, line in zip(range(args.distractor_count), source, strict=False)),
                                   encoding="utf-8")
    records = collect(sets, args.data_dir, distractors=distractors)
    save(records, args.output)
    print(json.dumps({"records": len(records), "output": str(args.output)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
