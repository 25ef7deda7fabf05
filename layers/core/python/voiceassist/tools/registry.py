"""The tool registry: each tool is a ToolDefinition (what callers see, with a JSON Schema generated from its
pydantic params model), the params model itself, and a function from validated params to a ToolOutput."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from voiceassist.errors import NotFound
from voiceassist.models import SearchHit, ToolDefinition

if TYPE_CHECKING:
    from voiceassist.query.state import QueryContext


@dataclass(frozen=True)
class ToolEnvironment:
    """What a tool may reach: the query context's adapters, and whether the turn carries PHI."""

    ctx: QueryContext
    turn_has_phi: bool = True  # unknown counts as PHI (fail closed)
    user_id: str | None = None  # the caller, for tools that reach the person's own accounts (tools/workspace.py)


@dataclass(frozen=True)
class ToolOutput:
    content: str  # what the model (or the person) reads
    data: dict[str, Any] = field(default_factory=dict)
    sources: list[SearchHit] = field(default_factory=list)  # what the answer may cite
    carries_phi: bool = False  # the content may hold PHI whatever the arguments (a calendar, a person's files)


ToolFunction = Callable[[Any, ToolEnvironment], ToolOutput]


@dataclass(frozen=True)
class Tool:
    definition: ToolDefinition
    params: type[BaseModel]
    run: ToolFunction
    summarize: Callable[[Any], str] | None = None  # the pending action's human summary (confirmation tools)
    # False when the validated arguments can hold no free text (numbers, booleans, enumerated words), so there
    # is nothing to scan for PHI: the PHI detector would only find false positives in "chadsvasc".
    scan_arguments: bool = True
    # what a model is offered, when it differs from `definition` (a shorter schema: it rides on every question)
    model_definition: ToolDefinition | None = None

    @property
    def name(self) -> str:
        return self.definition.name


def define(name: str, description: str, params: type[BaseModel], run: ToolFunction, *,
           summarize: Callable[[Any], str] | None = None, schema: dict[str, Any] | None = None,
           model_schema: dict[str, Any] | None = None, scan_arguments: bool = True, **options: Any) -> Tool:
    """A Tool whose definition's `parameters` is `schema`, or else the JSON Schema of `params`; `model_schema`
    is a shorter one for the model's tool definitions."""
    schema = schema or params.model_json_schema()
    definition = ToolDefinition(name=name, description=description, parameters=schema, **options)
    offered = definition.model_copy(update={"parameters": model_schema}) if model_schema else None
    return Tool(definition=definition, params=params, run=run, summarize=summarize, scan_arguments=scan_arguments,
                model_definition=offered)


# The shape of a tool's name (OpenAI's function names): a name of that shape is quoted back and audited as sent
# ('order_pizza'), any other string (free text, perhaps a patient's name) never is.
_NAME_SHAPE = re.compile(r"[A-Za-z0-9_.-]{1,64}")


def quoted_name(name: str) -> str:
    """'named <name>' for a name shaped like a tool's, else 'of that name' (never free text in a message)."""
    return f"named {name!r}" if _NAME_SHAPE.fullmatch(name) else "of that name"


def recorded_name(name: str) -> str:
    """The tool name an audit record or a log line may hold: the name when shaped like one, else a placeholder."""
    return name if _NAME_SHAPE.fullmatch(name) else "<NOT_A_TOOL_NAME>"


class ToolRegistry:
    def __init__(self, tools: Iterable[Tool] = ()) -> None:
        self._tools: dict[str, Tool] = {}
        for tool in tools:
            self.register(tool)

    def register(self, tool: Tool) -> None:
        self._tools[tool.name] = tool

    def get(self, name: str) -> Tool:
        tool = self._tools.get(name)
        if tool is None:
            raise NotFound(f"no tool {quoted_name(name)}; known: {', '.join(sorted(self._tools))}")
        return tool

    def definitions(self, *, for_model: bool = False) -> list[ToolDefinition]:
        """Every tool's definition; `for_model`: the (shorter) one offered to a model where a tool has one."""
        tools = [self._tools[name] for name in sorted(self._tools)]
        return [(tool.model_definition or tool.definition) if for_model else tool.definition for tool in tools]

    def __contains__(self, name: object) -> bool:
        return name in self._tools

