"""X-Ray never records what a PHI-carrying function answered or the exception it raised (issue 16): both can
repeat the question. Every handler that sees a question, a session or an answer turns both captures off."""

from __future__ import annotations

import ast
from pathlib import Path

FUNCTIONS = Path(__file__).resolve().parents[2] / "functions"
PHI_HANDLERS = sorted(["api", "stream", "mcp", *(p.name for p in FUNCTIONS.glob("query_*"))])


def _capture_options(handler: Path) -> dict[str, object]:
    for node in ast.walk(ast.parse(handler.read_text())):
        if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "capture_lambda_handler":
            return {k.arg: ast.literal_eval(k.value) for k in node.keywords if k.arg}
    raise AssertionError(f"{handler} has no tracer.capture_lambda_handler")


def test_phi_handlers_capture_neither_responses_nor_errors() -> None:
    assert len(PHI_HANDLERS) == 11  # api, stream, mcp (tool arguments) and the eight query steps
    options = {name: _capture_options(FUNCTIONS / name / "handler.py") for name in PHI_HANDLERS}
    assert {name: found for name, found in options.items()
            if found != {"capture_response": False, "capture_error": False}} == {}
