"""`voiceassist`: serve, ingest, ask, jobs and evaluations on the embedded (local) stack."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from voiceassist_local.cli import local


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="voiceassist", description=__doc__)
    parser.add_argument("--data-dir", help="local state folder (default: $VOICEASSIST_DATA_DIR or .data)")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    serve = commands.add_parser("serve", help="run the local API on 127.0.0.1")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8080")))
    serve.add_argument("--no-samples", action="store_true", help="do not ingest the bundled sample corpus")
    serve.add_argument("--no-watch", action="store_true",
                       help="do not ingest files dropped into the data folder's blobs/incoming/")
    serve.set_defaults(run=local.serve)

    ingest = commands.add_parser("ingest", help="ingest files or folders (PDF, text, Markdown, HTML)")
    ingest.add_argument("paths", nargs="+")
    ingest.add_argument("--source-type", help="textbook, guideline, drug_reference, journal, web, other")
    ingest.add_argument("--specialty")
    ingest.add_argument("--title", help="title (single file only; default: the file name)")
    ingest.add_argument("--doc-key", help="stable key across versions (single file only; default: file name)")
    ingest.add_argument("--json", action="store_true", help="print the results as JSON")
    ingest.set_defaults(run=local.ingest)

    jsonl = commands.add_parser("ingest-jsonl", help="ingest a BEIR-format corpus.jsonl (_id becomes doc_key)")
    jsonl.add_argument("corpus")
    jsonl.add_argument("--source-type", default="journal")
    jsonl.add_argument("--specialty")
    jsonl.add_argument("--limit", type=int, help="only the first N documents")
    jsonl.add_argument("--json", action="store_true")
    jsonl.set_defaults(run=local.ingest_jsonl)

    ask = commands.add_parser("ask", help="ask a question; prints the cited answer")
    ask.add_argument("question")
    ask.add_argument("--top-k", type=int, default=5)
    ask.add_argument("--json", action="store_true", help="print the full response as JSON")
    ask.set_defaults(run=local.ask)

    jobs = commands.add_parser("jobs", help="list indexing jobs")
    jobs.add_argument("--state", choices=["PENDING", "RUNNING", "COMPLETED", "FAILED", "SUPERSEDED"])
    jobs.add_argument("--limit", type=int, default=50)
    jobs.add_argument("--json", action="store_true")
    jobs.set_defaults(run=local.jobs)

    mcp = commands.add_parser("mcp", help="serve the tools over MCP on stdin/stdout (for an MCP client)")
    mcp.set_defaults(run=lambda args: __import__("voiceassist_local.mcp_face", fromlist=["run_stdio"]).run_stdio(args))

    __import__("voiceassist_local.cli.audit", fromlist=["add_parser"]).add_parser(commands)

    evaluate = commands.add_parser("eval", help="evaluations: retrieval, phi, calculators, answers")
    evaluations = evaluate.add_subparsers(dest="evaluation", required=True, metavar="EVALUATION")
    for module_name in ("eval_retrieval", "eval_phi", "eval_calculators", "eval_answers"):
        module = __import__(f"voiceassist_local.cli.{module_name}", fromlist=["add_parser"])
        module.add_parser(evaluations)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.data_dir:
        os.environ["VOICEASSIST_DATA_DIR"] = args.data_dir
    if not os.environ.get("POWERTOOLS_LOG_LEVEL"):
        from voiceassist.observability import logger

        # Powertools' JSON lines (on stderr) would break up the progress bars: keep them to errors here;
        # set POWERTOOLS_LOG_LEVEL for the full log.
        logger.setLevel("ERROR")
    try:
        return int(args.run(args) or 0)
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # the CLI's last line of defence: a message, not a traceback
        from voiceassist.errors import VoiceAssistError

        if isinstance(exc, VoiceAssistError):
            print(f"error: {exc}", file=sys.stderr)
            return 2
        raise

