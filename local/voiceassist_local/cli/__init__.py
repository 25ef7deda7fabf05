"""`voiceassist`: serve, ingest, ask, documents, jobs and evaluations on the embedded (local) stack.

ask, ingest and documents go to the server running on the data folder when there is one (and say so), and
otherwise run in this process. A command's module is imported only when that command runs."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any


def command(target: str) -> Callable[[argparse.Namespace], Any]:
    """`module:function` of this package, imported when the command runs (not when the parser is built)."""
    module_name, function_name = target.split(":")

    def run(args: argparse.Namespace) -> Any:
        if module_name != "remote":  # remote's commands load the stack only without a server (local_dependencies)
            quiet_log()
        return getattr(importlib.import_module(f"voiceassist_local.cli.{module_name}"), function_name)(args)

    return run


def quiet_log() -> None:
    """Powertools' JSON lines (on stderr) would break up the progress bars: keep them to errors in the CLI; set
    POWERTOOLS_LOG_LEVEL for the full log."""
    if not os.environ.get("POWERTOOLS_LOG_LEVEL"):
        from voiceassist.observability import logger

        logger.setLevel("ERROR")


def command_named(argv: Sequence[str]) -> str | None:
    """The command `argv` runs ("ask", "eval", ...), or None for help or none."""
    tokens = iter(argv)
    for token in tokens:
        if token in ("-h", "--help"):
            return None
        if token == "--data-dir":
            next(tokens, None)
        elif not token.startswith("-"):
            return token
    return None


def port_number(text: str) -> int:
    """A TCP port from --port or PORT, refused in our words (argparse prints it with the usage)."""
    if not text.strip().isdigit() or int(text) > 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port: give a number from 1 to 65535 (--port 8081, "
                                         "or PORT=8081 make run)")
    return int(text)


def file_error(exc: OSError) -> str:
    """A file the command could not read or write, in our words (the CLI's last line of defence)."""
    name = f": {exc.filename}" if exc.filename is not None else ""
    if isinstance(exc, FileNotFoundError):
        return f"no such file or folder{name}"
    if isinstance(exc, IsADirectoryError):
        return f"a folder where a file was expected{name}"
    if isinstance(exc, NotADirectoryError):
        return f"a file where a folder was expected{name}"
    if isinstance(exc, PermissionError):
        return f"permission denied{name}"
    return f"{exc.strerror or type(exc).__name__}{name}"


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The parser; the evaluation and audit commands' own parsers (whose modules import much of the stack) are
    built only when `argv` runs one of them, or asks for help, so that `ask` starts in a fraction of a second."""
    wanted = command_named(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(prog="voiceassist", description=__doc__)
    parser.add_argument("--data-dir", help="local state folder (default: $VOICEASSIST_DATA_DIR or .data)")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    serve = commands.add_parser("serve", help="run the local API on 127.0.0.1")
    serve.add_argument("--host", default="127.0.0.1")
    # a string default goes through `type` too, so a PORT that is not a port is said as --port's error
    serve.add_argument("--port", type=port_number, default=os.environ.get("PORT", "8080"),
                       help="the port to listen on, 1-65535, or 0 for any free one (default: $PORT or 8080)")
    serve.add_argument("--no-samples", action="store_true", help="do not ingest the bundled sample corpus")
    serve.add_argument("--no-watch", action="store_true",
                       help="do not ingest files dropped into the data folder's blobs/incoming/")
    serve.set_defaults(run=command("local:serve"))

    ingest = commands.add_parser("ingest", help="ingest files or folders (PDF, text, Markdown, HTML)")
    ingest.add_argument("paths", nargs="+")
    ingest.add_argument("--source-type", help="textbook, guideline, drug_reference, journal, web, other")
    ingest.add_argument("--specialty")
    ingest.add_argument("--title", help="title (single file only; default: the file name)")
    ingest.add_argument("--doc-key", help="stable key across versions (single file only; default: file name)")
    ingest.add_argument("--json", action="store_true", help="print the results as JSON")
    ingest.set_defaults(run=command("remote:ingest"))

    jsonl = commands.add_parser("ingest-jsonl", help="ingest a BEIR-format corpus.jsonl (_id becomes doc_key)")
    jsonl.add_argument("corpus")
    jsonl.add_argument("--source-type", default="journal")
    jsonl.add_argument("--specialty")
    jsonl.add_argument("--limit", type=int, help="only the first N documents")
    jsonl.add_argument("--json", action="store_true")
    jsonl.set_defaults(run=command("local:ingest_jsonl"))

    ask = commands.add_parser("ask", help="ask a question; prints the cited answer")
    ask.add_argument("question")
    ask.add_argument("--top-k", type=int, default=5)
    ask.add_argument("--json", action="store_true", help="print the full response as JSON")
    ask.set_defaults(run=command("remote:ask"))

    jobs = commands.add_parser("jobs", help="list indexing jobs")
    jobs.add_argument("--state", choices=["PENDING", "RUNNING", "COMPLETED", "FAILED", "SUPERSEDED"])
    jobs.add_argument("--limit", type=int, default=50)
    jobs.add_argument("--json", action="store_true")
    jobs.set_defaults(run=command("local:jobs"))

    documents = commands.add_parser("documents", help="list, show or delete documents of the knowledge base")
    actions = documents.add_subparsers(dest="action", required=True, metavar="ACTION")
    listing = actions.add_parser("list", help="the documents, newest first")
    listing.add_argument("--status", choices=["PENDING", "PROCESSING", "ACTIVE", "FAILED", "SUPERSEDED", "DELETED"])
    listing.add_argument("--limit", type=int, default=100)
    listing.add_argument("--json", action="store_true")
    listing.set_defaults(run=command("remote:documents_list"))
    show = actions.add_parser("show", help="one document version")
    show.add_argument("doc_id")
    show.add_argument("--json", action="store_true")
    show.set_defaults(run=command("remote:documents_show"))
    delete = actions.add_parser("delete", help="remove a document version from search (admin, audited)")
    delete.add_argument("doc_id")
    delete.add_argument("--json", action="store_true")
    delete.set_defaults(run=command("remote:documents_delete"))

    mcp = commands.add_parser("mcp", help="serve the tools over MCP on stdin/stdout (for an MCP client)")
    mcp.set_defaults(run=lambda args: __import__("voiceassist_local.mcp_stdio", fromlist=["run_stdio"]).run_stdio(args))

    if wanted in (None, "audit"):
        __import__("voiceassist_local.cli.audit", fromlist=["add_parser"]).add_parser(commands)
    else:
        commands.add_parser("audit", help="the tamper-evident audit log")
    evaluate = commands.add_parser("eval", help="evaluations: retrieval, phi, calculators, answers")
    if wanted in (None, "eval"):
        evaluations = evaluate.add_subparsers(dest="evaluation", required=True, metavar="EVALUATION")
        for module_name in ("eval_retrieval", "eval_phi", "eval_calculators", "eval_answers"):
            module = __import__(f"voiceassist_local.cli.{module_name}", fromlist=["add_parser"])
            module.add_parser(evaluations)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser(argv).parse_args(argv)
    if args.data_dir:
        os.environ["VOICEASSIST_DATA_DIR"] = args.data_dir
    try:
        return int(args.run(args) or 0)
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # the CLI's last line of defence: a message, not a traceback
        from voiceassist_local.cli.api_client import CliError

        if isinstance(exc, CliError):
            print(f"error: {exc}", file=sys.stderr)
            return 2
        if "voiceassist.errors" in sys.modules:
            from voiceassist.errors import VoiceAssistError

            if isinstance(exc, VoiceAssistError):
                print(f"error: {exc}", file=sys.stderr)
                return 2
        if isinstance(exc, OSError) and exc.errno is not None:  # a file or folder named on the command line
            print(f"error: {file_error(exc)}", file=sys.stderr)
            return 2
        raise
