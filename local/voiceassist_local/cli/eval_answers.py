"""`voiceassist eval answers`: answered-correctly and abstained shares on a questions file (JSONL).

The corpus (files or folders; the bundled sample corpus by default) goes through the real ingestion pipeline
into the data folder, and every question through the whole query pipeline (service.answer) with the models
this process is configured with: none by default, so the extractive composer answers.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

DEFAULT_QUESTIONS = Path("tests/fixtures/answers/dev.jsonl")


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "answers", help="answer correctness and abstention on a questions file", description=__doc__)
    parser.add_argument("--questions", type=Path,
                        help=f"JSONL: query, answerable, doc_key, must_contain (default: {DEFAULT_QUESTIONS}, the "
                             "sample corpus's questions, in a checkout of the project)")
    parser.add_argument("--corpus", type=Path, nargs="*",
                        help="files or folders to ingest first (default: the bundled sample corpus)")
    parser.add_argument("--top-k", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    parser.set_defaults(run=run)
    return parser


def questions_file(given: Path | None) -> Path:
    """The questions to ask: --questions, else the checkout's dev questions; an installed package has none."""
    from voiceassist_local.cli.api_client import CliError

    path = given or DEFAULT_QUESTIONS
    if path.is_file():
        return path
    if given is None:
        raise CliError(f"no questions file: pass --questions FILE (JSON lines with query, answerable, doc_key, "
                       f"must_contain); the default, {DEFAULT_QUESTIONS}, is in a checkout of the project (run "
                       "from its folder), not in the installed package")
    raise CliError(f"{path}: no such questions file")


def run(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from voiceassist import service
    from voiceassist.models import QueryRequest
    from voiceassist_local.cli.api_client import CliError
    from voiceassist_local.cli.local import (
        ensure_sample_corpus,
        local_dependencies,
        upload_files,
        wait_for_jobs,
        warm_up,
    )
    from voiceassist_local.evaluation.answers import evaluate, load_questions

    args.questions = questions_file(args.questions)
    questions = load_questions(args.questions)
    deps = local_dependencies()
    if args.corpus:
        from voiceassist_local.cli.remote import files_of

        uploads = upload_files(deps, files_of([str(p) for p in args.corpus]), {}, show=not args.json)
        wait_for_jobs(deps, [job for _, job, _ in uploads if job], show=not args.json)
    elif failures := ensure_sample_corpus(deps, every_sample=True, show=not args.json):
        raise CliError("the sample corpus is not complete, so the figures would not mean what they say: "
                       + "; ".join(failures))
    warm_up(deps)
    report = evaluate(
        questions,
        lambda query: service.answer(deps, QueryRequest(query=query, top_k=args.top_k), user_id="eval-answers"),
        progress=lambda items: tqdm(items, desc="answering", unit="question", file=sys.stderr,
                                    disable=args.json))
    result = {"questions": str(args.questions), **report.as_dict()}
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"answered correctly: {result['answered_correctly_pct']}% of {report.answerable} answerable")
    print(f"abstained (no_evidence or clarification): {result['abstained_pct']}% of {report.unanswerable} uncovered")
    if report.population:
        print(f"other population not presented as an answer: {result['population_handled_pct']}% of "
              f"{report.population}")
    print(f"mean grounding: {result['mean_grounding']}; evidence + grounding checks p95 {result['checks_ms_p95']} ms")
    for failure in report.failures:
        kind = "answerable" if failure["answerable"] else failure["population"] or "uncovered"
        print(f"- {kind}: {failure['query']} -> "
              f"{failure['status']} (evidence {failure['evidence']}) {failure['answer'][:120]!r}")
    return 0
