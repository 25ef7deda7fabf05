"""Classify's tool route: a question that names a calculator and gives findings goes to the calculator (the
tool loop), not to a clarifying question about its conditions nor to a search of the knowledge base."""

from __future__ import annotations

from voiceassist.query.state import QueryState
from voiceassist.tools.calculators.question import detect_calculator, extract_parameters


def route_to_tool(state: QueryState) -> QueryState:
    name = detect_calculator(state.request.query)
    if name is not None:
        found, _missing = extract_parameters(name, state.request.query)
        if found:
            state.tool_route, state.clarifying_question = name, None
    return state
