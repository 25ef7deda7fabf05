"""Bulky state fields carried by reference inside one local execution, instead of copied at every step.

moto's interpreter copies a state's data whole about a dozen times per state (input, result, ResultPath,
parameters, the time-out frame): about 150 copies per question, most of their bytes the hits and texts that no
state of the definition ever looks at (only the tasks read them). So a Lambda task's result goes back to the
interpreter with each such field replaced by a reference, a string token that is unique to the execution and
unguessable; the payload of the next task invoked is written as JSON with every token replaced by its field's
JSON, so each handler still receives exactly the state AWS would hand it. Step Functions on AWS carries the
fields whole (it has no such seam); the definitions, their semantics and the handlers are the same.

A field goes by reference only when no path of the definition could read it: its name appears in no JSONPath
segment of the definition (Choice variables, ItemsPath, Parameters, ResultSelector, TimeoutSecondsPath...), and
the definition has no path that reads fields otherwise (recursive descent, brackets, JSONata) nor an intrinsic
function over a path (States.JsonToString($) would print a token). Only top-level
fields of a task's result that hold a non-empty list or object are referred to. Tokens are kept until the
execution ends. The 256 KB state quota is checked on the whole payload a task receives and the whole result
it returns (moto's own checks see the smaller state).
"""

from __future__ import annotations

import itertools
import json
import re
import threading
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pydantic_core

_PATH_SEGMENT = re.compile(r"\.([A-Za-z_][A-Za-z0-9_]*)")
# recursive descent or a bracket in a path, or an intrinsic function reading a path (it could read a token's text)
_OPAQUE_PATH = re.compile(r"\$\.\.|\$[^\s\"']*\[|States\.[A-Za-z]+\([^)]*\$")
_TOKEN_PREFIX = "\x00ref:"
# a token's JSON literal (json.dumps writes its leading NUL as \u0000, with ensure_ascii or without)
_TOKEN_LITERAL = re.compile(r'"\\u0000ref:[0-9a-f]{32}:\d+"')


def names_read_by(definition: str) -> frozenset[str] | None:
    """Every field name a JSONPath of the ASL definition (JSON text) mentions, or None when a path could reach a
    field without naming it (then nothing may go by reference)."""
    if "JSONata" in definition:
        return None
    names: set[str] = set()
    for text in _strings(json.loads(definition)):
        if "$" not in text:
            continue
        if _OPAQUE_PATH.search(text):
            return None
        names.update(_PATH_SEGMENT.findall(text))
    return frozenset(names)


def _strings(node: Any) -> Iterator[str]:
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for key, value in node.items():
            yield key
            yield from _strings(value)
    elif isinstance(node, list):
        for item in node:
            yield from _strings(item)


@dataclass
class _Table:
    """One execution's referred fields: each one's JSON text, by its token's JSON literal."""

    nonce: str = field(default_factory=lambda: uuid.uuid4().hex)
    texts: dict[str, str] = field(default_factory=dict)
    # Map iterations and Parallel branches return at once: each token takes its number from one counter
    numbers: Iterator[int] = field(default_factory=itertools.count)


class StateReferences:
    """The referred fields of every running execution of one program, by execution id."""

    def __init__(self, names_read: frozenset[str]) -> None:
        self._names_read = names_read
        self._lock = threading.Lock()
        self._tables: dict[str, _Table] = {}

    def open(self, execution_id: str) -> None:
        with self._lock:
            self._tables[execution_id] = _Table()

    def close(self, execution_id: str) -> None:
        with self._lock:
            self._tables.pop(execution_id, None)

    def refer(self, execution_id: str, result: Any) -> Any:
        """`result` (a task's JSON result, the caller's own) with its bulky unread fields replaced by tokens."""
        table = self._tables.get(execution_id)
        if table is None or type(result) is not dict:
            return result
        for name, value in result.items():
            if name not in self._names_read and type(value) in (list, dict) and value:
                token = f"{_TOKEN_PREFIX}{table.nonce}:{next(table.numbers)}"
                # pydantic-core's serializer (Rust, ~3x json.dumps on hits): compact, UTF-8; the value is JSON already
                table.texts[json.dumps(token)] = pydantic_core.to_json(value).decode()
                result[name] = token
        return result

    def expand(self, execution_id: str, text: str) -> str:
        """A JSON text with every token of this execution replaced by its field's JSON."""
        table = self._tables.get(execution_id)
        if table is None or not table.texts:
            return text
        texts = table.texts  # a token of another execution is not in it, and stays as it is
        return _TOKEN_LITERAL.sub(lambda match: texts.get(match.group(0), match.group(0)), text)
