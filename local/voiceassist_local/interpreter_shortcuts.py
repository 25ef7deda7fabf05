"""More local speedups of moto's ASL interpreter (installed by pipelines.install_interpreter_speedups).

- **The history kept only while a trace reads it.** moto appends an event to the execution's history for every
  state entered and left, every Map iteration and task (~30 a question), each with its time formatted to text
  under a lock; only LocalPipelineRunner.trace reads the history. Outside a trace an event still takes its id
  (a failure names the event it follows, as before) and is not stored.
- **Plain dotted paths read directly.** Every JSONPath a state evaluates (a Choice's Variable, InputPath,
  ItemsPath, TimeoutSecondsPath, a parameter's `.$`) goes through jsonpath_ng, ~40 us a path even parsed once. A
  path of plain names (`$.a.b`) over nested objects is a walk through dicts: same value, same object. Anything
  else (a missing key, a list on the way, brackets, filters, wildcards) goes to moto's own evaluation, which
  also raises its own error for a missing path.
- **A task's result copied by pydantic-core** (json_round_trip, used by asl_runner's Lambda invoke).
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable
from typing import Any

import pydantic_core

_PLAIN_PATH = re.compile(r"\$((?:\.[A-Za-z_][A-Za-z0-9_]*)+)")
_PARSER_PACKAGE = "moto.stepfunctions.parser."
# words jsonpath_ng's grammar reads as more than a name: such a path is left to it
_GRAMMAR_WORDS = frozenset({"where", "wherenot", "null", "true", "false"})


def plain_path_reader(extract_json: Callable[[str, Any], Any]) -> Callable[[str, Any], Any]:
    """`extract_json` with plain dotted paths over dicts read by a walk (the same value), the rest by it."""
    names_of: dict[str, tuple[str, ...] | None] = {}

    def read(path: str, data: Any) -> Any:
        names = names_of.get(path, ())
        if names == ():
            match = _PLAIN_PATH.fullmatch(path)
            found = tuple(match.group(1)[1:].split(".")) if match else ()
            names = names_of.setdefault(path, found if found and not _GRAMMAR_WORDS.intersection(found) else None)
        if names is None:
            return extract_json(path, data)
        value = data
        for name in names:
            if type(value) is not dict or name not in value:
                return extract_json(path, data)  # moto decides: its error, or its reading of a list
            value = value[name]
        return value

    read.__wrapped__ = extract_json  # type: ignore[attr-defined]
    return read


def read_plain_paths_directly() -> None:
    """Point every module of moto's interpreter that imported extract_json at plain_path_reader's."""
    from moto.stepfunctions.parser.asl.utils import json_path

    original = json_path.extract_json
    reader = plain_path_reader(original)
    for name, module in list(sys.modules.items()):
        if name.startswith(_PARSER_PACKAGE) and getattr(module, "extract_json", None) is original:
            setattr(module, "extract_json", reader)  # noqa: B010 - the module's own reference only


def keep_history_only_while_tracing(tracing: Callable[[], bool]) -> None:
    """EventManager.add_event stores its event only while `tracing()` (or a CloudWatch logging session reads it)."""
    from moto.stepfunctions.parser.asl.eval.event.event_manager import EventManager

    record = EventManager.add_event

    def add_event(self: Any, context: Any, event_type: Any, event_details: Any = None, timestamp: Any = None,
                  update_source_event_id: bool = True) -> int:
        if tracing() or self._cloud_watch_logging_session is not None:
            return record(self, context, event_type, event_details, timestamp, update_source_event_id)
        with self._mutex:
            event_id: int = self._event_id_gen.get()
            context.last_published_event_id = event_id
            if update_source_event_id:
                context.source_event_id = event_id
            return event_id

    add_event.__wrapped__ = record  # type: ignore[attr-defined]
    setattr(EventManager, "add_event", add_event)  # noqa: B010


def json_round_trip(value: Any) -> Any:
    """What `json.loads(json.dumps(value))` gives (Lambda's treatment of a handler's result: JSON, and a copy the
    handler no longer holds), raising as it raises, in about a third of its time: json.dumps formats every float
    in Python's repr (~0.15-0.3 ms for a 7.5 KB query state), pydantic-core's serializer (Rust) does not. The fast
    copy is kept only when it equals the value, which is exactly when the value holds nothing but JSON's types;
    anything else (a set, a tuple, bytes, a date, a non-string key, NaN or infinity) takes json's own round trip,
    so its error or its conversion is json's."""
    try:
        copied = json.loads(pydantic_core.to_json(value))
    except Exception:  # noqa: BLE001 - pydantic-core refuses it: json decides (and names the error)
        copied = _NOT_COPIED
    if type(copied) is type(value) and copied == value:
        return copied
    return json.loads(json.dumps(value))


_NOT_COPIED = object()
