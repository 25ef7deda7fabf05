"""The context pipeline's token budget per stage (tiktoken's count: query/generation.count_tokens), and how the
session's facts join a question about its patient.

| stage | limit | enforced by |
|---|---|---|
| history | HISTORY_TOKENS | orchestrator.window: the latest turns that fit |
| summary | summary.SUMMARY_TOKENS | summary.py: the oldest lines dropped, a model's summary cut |
| facts | FACTS_TOKENS | with_facts: the terms that fit join the question |
| question | QUESTION_TOKENS | the standalone question is cut to it |
| excerpts | the prompt's budget less the answer's | generation.build_prompt drops the lowest-ranked excerpts |
| answer | build_prompt's answer_tokens | the model's max_tokens |

`record` is what `metadata.context["budget"]` holds for every query: each stage's limit and what it used.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Sequence
from typing import Any

from voiceassist.conversation import context, facts, summary
from voiceassist.models import QueryResponse
from voiceassist.query import generation

HISTORY_TOKENS = 2000  # the window of earlier turns a follow-up is resolved against
FACTS_TOKENS = 60
QUESTION_TOKENS = 1000
_PROMPT = inspect.signature(generation.build_prompt).parameters
ANSWER_TOKENS: int = _PROMPT["answer_tokens"].default
EXCERPT_TOKENS: int = _PROMPT["budget_tokens"].default - ANSWER_TOKENS  # shared with history and context
PATIENT = re.compile(r"\b(my|our|this|the)\s+(patient|pt)\b", re.I)


def limits() -> dict[str, int]:
    return {"history": HISTORY_TOKENS, "summary": summary.SUMMARY_TOKENS, "facts": FACTS_TOKENS,
            "question": QUESTION_TOKENS, "excerpts": EXCERPT_TOKENS, "answer": ANSWER_TOKENS}


def cut_question(text: str) -> str:
    return generation.truncate_to_tokens(text, QUESTION_TOKENS)


def with_facts(resolution: context.Resolution, known: facts.Facts) -> tuple[context.Resolution, list[str]]:
    """A question about the patient ("Can she keep taking it?") gets the session's facts that it does not say
    yet (conditions, labs, allergies), within FACTS_TOKENS, in the parentheses of what it inherited; "it" that
    the history window could not name becomes the medication the session spoke of last. The follow-up rules
    (context.py) run first and are not changed; this only adds what the window no longer holds."""
    question = resolution.original
    if not known or not (context.PERSON.search(question) or PATIENT.search(question)):
        return resolution, []
    query, used = resolution.query, []
    if known.medications and context.THING.search(query) and not context.drugs(query):
        query = context.THING.sub(known.medications[-1], query, count=1)
        used.append(known.medications[-1])
    said = query.lower()
    spent = 0
    for term in facts.search_terms(known):
        cost = generation.count_tokens(f", {term}")
        if term.lower() in said or spent + cost > FACTS_TOKENS:
            continue
        used.append(term)
        spent += cost
    added = [t for t in used if t.lower() not in said]
    if added:
        inside = context.INHERITED.match(query)
        query = (f"{query.rstrip()[:-1]}, {', '.join(added)})" if inside
                 else f"{query.rstrip()} ({', '.join(added)})")
    if not used:
        return resolution, []
    return context.Resolution(query=query, original=question, joined_clarification=resolution.joined_clarification,
                              rewritten=True, added=[*resolution.added, *used]), used


def record(*, history: Sequence[context.Turn], summary_text: str, facts_used: Sequence[str], question: str,
           response: QueryResponse) -> dict[str, Any]:
    """Each stage's limit and tokens used: the history window, the summary, the facts joined, the question
    asked, the cited excerpts and the answer (and the model's prompt, when a model answered)."""
    used = {
        "history": sum(generation.count_tokens(t.text) for t in history),
        "summary": generation.count_tokens(summary_text) if summary_text else 0,
        "facts": generation.count_tokens(", ".join(facts_used)) if facts_used else 0,
        "question": generation.count_tokens(question),
        "excerpts": sum(generation.count_tokens(c.excerpt) for c in response.citations),
        "answer": generation.count_tokens(response.answer),
    }
    stages: dict[str, Any] = {name: {"limit": limit, "used": used[name]} for name, limit in limits().items()}
    if response.metadata.usage.prompt_tokens:
        stages["prompt"] = {"limit": EXCERPT_TOKENS, "used": response.metadata.usage.prompt_tokens}
    return stages
