"""A spoken question refused on one word the speaker did not say: judged again without it.

Whisper base writes a word it could not make out as another word or as no word ("humbo", "lyamadrenal"), and the
answer gate names it as a topic no searched document mentions and refuses a question whose other words its
passages answer. The voice routes send the words the recognizer was unsure of (speech/unsure.py:
`QueryRequest.possibly_misheard`). When the question found no evidence, its topics that no retrieved passage
mentions and that were all heard unsure are left out and the question is judged again, at the same threshold and
on the same hits. The answer stands only when the rest still names a topic and reaches the threshold; it then
says which words it left out ("possibly misheard"). Never set aside: a clinical term (a drug, a condition, a
concept of the concept layer: asking about a drug no document covers must still abstain, however unsure the
recognizer was), a word of a question the PHI detector could not check, or anything of a typed question (its
list is empty). Decision 0031, "Session 20".
"""

from __future__ import annotations

import re

from voiceassist.models import AnswerStatus
from voiceassist.query import abstention, concepts, evidence
from voiceassist.query.state import QueryState

MISHEARD_NOTE = ("Possibly misheard, left out of the search for evidence: {words}. If you said something else, "
                 "ask again or type the question.")
_LETTERS = re.compile(r"[A-Za-z]+")


def set_aside(state: QueryState) -> list[str]:
    """The question's topics that no retrieved passage mentions and whose every word was heard unsure, none of
    them a clinical term; [] for a typed question or one the PHI detector could not check."""
    unsure = {w.lower() for w in state.request.possibly_misheard}
    if not unsure or state.phi is None or state.phi.error is not None:
        return []
    terms = [evidence.chunk_terms(hit.chunk) for hit in state.hits]
    aside: list[str] = []
    for concept in evidence.question_concepts(abstention.evidence_question(state)):
        words = _LETTERS.findall(concept.label)
        if (concept.topic and words and all(w.lower() in unsure for w in words)
                and not any(concepts.is_clinical(w) for w in [concept.label, *words])
                and not any(evidence.covers(concept, t) for t in terms) and concept.label not in aside):
            aside.append(concept.label)
    return aside


def judged_without_misheard(state: QueryState, *, threshold: float, previous_question: str = "") -> QueryState:
    """A question that found no evidence, judged again without its possibly misheard topics (`set_aside`);
    `state` unchanged when there are none, when the rest names no topic, or when it still finds no evidence."""
    if state.answer_status is not AnswerStatus.NO_EVIDENCE:
        return state
    aside = set_aside(state)
    rest = abstention.without_words(abstention.evidence_question(state), aside)
    if not aside or not any(c.topic for c in evidence.question_concepts(rest)):
        return state
    kept = state.model_copy(update={"answer": None, "clarifying_question": None, "answer_status": None})
    abstention.keep_supported_hits(kept, threshold=threshold, previous_question=previous_question, set_aside=aside)
    if kept.answer_status is AnswerStatus.NO_EVIDENCE:
        return state
    kept.warnings.append(MISHEARD_NOTE.format(words=", ".join(f'"{w}"' for w in aside)))
    return kept
