"""Classify's tool route: a question that names a calculator and gives findings goes to the calculator (the
tool loop), not to a clarifying question about its conditions nor to a search of the knowledge base. A name
that only reports its value ("eGFR 25", "CURB-65 is 2", "I calculated CURB-65 as 3") is a finding, and the question
goes to search; where the question also gives findings that score differently, the answer says so first. A name asked
about ("what does the score mean", "which cut-off") goes to search too, and the answer opens with the score the
question's findings give when they give every input (session 19)."""

from __future__ import annotations

from voiceassist.query.state import QueryState
from voiceassist.tools.calculators.question import (
    detect_calculator,
    extract_parameters,
    given_score,
    requested_calculator,
    score_disagreement,
    score_of_findings,
)


def route_to_tool(state: QueryState) -> QueryState:
    """The calculator is looked for in the redacted question, so that a patient's name is never a calculator's
    ("Patient Grace Okafor ... metformin" is not the GRACE score); its findings are read from the question."""
    checked = state.phi is not None and state.phi.error is None
    named = state.phi.redacted_text if checked and state.phi else state.request.query
    name = requested_calculator(named)
    if name is not None:
        found, _missing = extract_parameters(name, state.request.query)
        if found:
            state.tool_route, state.clarifying_question = name, None
    given = given_score(named) if state.tool_route is None else None
    if given is not None:  # the score as given is the question's; findings that score otherwise are pointed out
        state.score_note = score_disagreement(*given, state.request.query)
        if state.score_note and state.score_note not in state.warnings:
            state.warnings.append(state.score_note)
    elif state.tool_route is None and (about := detect_calculator(named)) is not None:
        # a score named and asked about (its meaning, its bands), not asked to be computed: the answer is the
        # knowledge base's, opened by the score the question's findings give when they give it all
        state.score_note = score_of_findings(about, state.request.query)
    return state
