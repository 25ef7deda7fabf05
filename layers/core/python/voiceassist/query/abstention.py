"""Abstention: when no retrieved passage answers the question, say so instead of citing the nearest text.

Runs in Rank Results, after the branches are merged. Each hit gets an evidence score (query/evidence.py);
only the documents with a passage at or above `Settings.evidence_threshold` stay, so neither the model nor
the extractive composer sees a passage about another drug or condition. When none is left, the reply is the
no-evidence message: no facts, no citations, `answer_status: "no_evidence"`, and it takes the clarification route past
generation (query.asl.json), so no model is called.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from voiceassist.models import AnswerStatus, PhiResult, SearchHit
from voiceassist.phi.word_lists import name_words
from voiceassist.query import answer_kinds, concepts, evidence, population
from voiceassist.query.citations import Excerpt
from voiceassist.query.state import QueryState

NO_EVIDENCE_REPLY = (
    "I found no passage in the knowledge base that answers this question, so I cannot give a cited answer."
)
MISSING_TOPICS = " No searched document mentions {topics}."
SEARCHED = " Searched: {sources}."
SUGGESTION = (" Try rephrasing with the full name of the drug or condition, or add a document that covers it "
              "to the knowledge base.")
PUBMED_SUGGESTION = " PubMed may have published evidence on it."
FOLLOW_UP_NOTE = "Read as a follow-up of your previous question."
MAX_TOPICS = 4
MIN_SHARE_OF_BEST = 0.5
HISTORY_MESSAGES = 6
RESTORABLE_ENTITY = "PERSON"  # the name detector guesses on lower-case clinical words; other entities are exact
_SPAN_WORD = re.compile(r"[\w/'-]+")
_TITLE = re.compile(r"\b(?:Mr|Mrs|Ms|Dr|Miss|Prof)\.?(?=\s)")
_UNCHECKED_IDENTIFIER = re.compile(r"(?<![.?!:]\s)(?<!^)(?<=\s)[A-Z][a-z]\w*\.?|\S*[\d@]\S*")


def evidence_question(state: QueryState) -> str:
    """The question the evidence is judged on: the redacted text, where names are not topics.

    When the detector could not check the question, the raw text is judged (in-boundary arithmetic) without
    the words that look like a person, a place or an identifier: capitalised words inside a sentence, and
    words holding a digit or an @.
    """
    if state.phi is not None and state.phi.error is None:
        return clinical_words_restored(state.request.query, state.phi)
    return _UNCHECKED_IDENTIFIER.sub(" ", _TITLE.sub(" ", state.request.query))


def clinical_words_restored(query: str, phi: PhiResult) -> str:
    """The redacted question with the words of a redacted span that the terminology knows as clinical
    ("glipizide", "egfr", "abx": a name detector's guesses) put back, unless the word is also a Census given
    name or surname: a patient's name stays redacted. Only a PERSON span is read back, never an address, an
    e-mail or an identifier ("42 Elm Street" stays redacted). Only the evidence score reads this text."""
    if not phi.entities:
        return phi.redacted_text
    pieces: list[str] = []
    position = 0
    for entity in sorted(phi.entities, key=lambda e: e.start):
        if entity.start < position:
            continue
        span = query[entity.start:entity.end]
        pieces.append(query[position:entity.start])
        words = _SPAN_WORD.findall(span)
        kept = [w for w in words if entity.entity_type == RESTORABLE_ENTITY and concepts.is_clinical(w)
                and w.lower() not in name_words()]
        # the tag first: a word just before a tag reads as its label ("SSN <US_SSN>") and is dropped
        # an abbreviation typed in lower case is read back as the list writes it ("pna" -> "PNA": pneumonia)
        pieces.append((f"<{entity.entity_type}> " if len(kept) < len(words) else "")
                      + " ".join(concepts.as_listed(w) for w in kept))
        position = entity.end
    return "".join(pieces) + query[position:]


def without_words(question: str, words: Sequence[str]) -> str:
    """The question with each of `words` taken out wherever it stands as a word (any case)."""
    for word in words:
        question = re.sub(rf"(?<![\w-]){re.escape(word)}(?![\w-])", " ", question, flags=re.IGNORECASE)
    return question


def identifiers_in(text: str) -> str:
    """The words of an unchecked question that look like a person, a place or an identifier."""
    return " ".join(match.group() for match in _UNCHECKED_IDENTIFIER.finditer(_TITLE.sub(" ", text)))


def needs_topic(state: QueryState) -> bool:
    """Whether the question names no topic of its own ("And the maximum dose?"): a follow-up."""
    return not any(c.topic for c in evidence.question_concepts(evidence_question(state)))


def keep_supported_hits(state: QueryState, *, threshold: float, previous_question: str = "",
                        context: str = "", set_aside: Sequence[str] = ()) -> QueryState:
    """Score the hits; keep the passages of the documents that answer, or abstain when none does.

    A document answers when one of its passages reaches the threshold. `previous_question`: the session's
    last (redacted) question, for a follow-up that names no topic of its own. Of those documents' passages, the ones
    searched at least MIN_SHARE_OF_BEST of the best one's (fused) score stay: a document's "targets" passage
    may not repeat the words "blood pressure" that its neighbour holds, and a passage of another document that
    merely shares a few words ranks far below. `context`: words judged with the question (the conversation's
    topic, for a follow-up that did not look like one: `in_conversation_topic`). `set_aside`: words left out of
    the question judged (a spoken question's possibly misheard words: query/misheard.py).
    """
    question = without_words(evidence_question(state), set_aside)
    found = evidence.assess(f"{question} {context}".strip(), state.hits)
    # A follow-up's passages must mention a topic of the session's previous question, so that "and the
    # maximum dose?" after a metformin question keeps metformin's passages, not another drug's.
    anchors = [c for c in evidence.question_concepts(previous_question) if c.topic]
    on_topic = [i for i, hit in enumerate(state.hits)
                if not anchors or any(evidence.covers(c, evidence.chunk_terms(hit.chunk)) for c in anchors)]
    state.evidence_score = round(max((found.passages[i].score for i in on_topic), default=0.0), 4)
    answering = {state.hits[i].chunk.doc_key for i in on_topic if found.passages[i].score >= threshold}
    if answering:
        best = max(h.score for h in state.hits if h.chunk.doc_key in answering)
        # a passage that answers by itself stays whatever its search rank ("Treat for a minimum of 5 days" for
        # "shortest abx course CAP?", searched below the assessment passages that share the question's words)
        answers = {i for i in on_topic if found.passages[i].score >= threshold}
        # so does an answering document's passage that states the quantity asked ("Start with 500 mg ..." for
        # "starting dose for newly diagnosed T2DM?", searched below the indication passage that shares the
        # question's setting words)
        answers |= _stating_asked_quantity(f"{question} {context}".strip(), state.hits,
                                           [i for i in on_topic if state.hits[i].chunk.doc_key in answering
                                            and not found.passages[i].other_drug])
        state.hits = [h for i, h in enumerate(state.hits) if h.chunk.doc_key in answering
                      and (h.score >= MIN_SHARE_OF_BEST * best or i in answers)]
        state.population_conflict = population_conflict(f"{state.request.query} {context}", state.hits)
        return state
    state.answer = state.clarifying_question = no_evidence_reply(state, found)
    state.answer_status = AnswerStatus.NO_EVIDENCE
    return state


def _stating_asked_quantity(question: str, hits: Sequence[SearchHit], candidates: Sequence[int]) -> set[int]:
    """The candidates whose passage itself states each quantity the question asks for (answer_kinds): a dose,
    a duration, a count, a maximum; a dose of a named drug in a sentence that names it or no drug."""
    asked_for = answer_kinds.quantities_asked(question)
    if not asked_for or not candidates:
        return set()
    doses_of = evidence.drug_marks(evidence.named_drugs(evidence.question_concepts(question)))
    return {i for i in candidates
            if answer_kinds.passage_states(asked_for, hits[i].chunk.text, doses_of, concepts.marks)}


def population_conflict(question: str, hits: Sequence[SearchHit | Excerpt]) -> str | None:
    """The statement put before an answer whose evidence is about another population than the question's
    (query/population.py), or None. Names groups only (a closed vocabulary), never the question's words.

    Rank Results judges every kept hit; Assemble judges again with the cited excerpts alone
    (`cited_population_conflict`), since a kept passage that names the group but is not quoted (an abstract on
    children beside an adult drug reference) is not the answer's evidence."""
    texts = [h.chunk.text for h in hits]
    headings = [f"{h.chunk.metadata.title}\n{h.chunk.section or ''}" for h in hits]
    missing, named = population.uncovered(question, texts, headings)
    if not missing:
        return None
    asked = _listing(sorted(missing)).replace('"', "")
    about = _listing(sorted(named)).replace('"', "") if named else "other patients"
    passing = population.in_passing(missing, texts)
    passed = _listing(sorted(passing)).replace('"', "") if passing else ""
    aside = (f" They name {passed} only in passing (in a list of conditions or a test to check), without a dose, "
             f"an adjustment or advice for it.") if passed else ""
    return (f"Caution: the question is about {asked}, but no cited passage is. The passages below are about "
            f"{about}: they are not an answer for {asked}.{aside} Check a source that covers {asked}.")


def cited_population_conflict(state: QueryState, cited: Sequence[Excerpt]) -> str | None:
    """The population conflict of the answer as given: the kept hits' one, else the question's groups judged
    against the cited excerpts only (an answer quoted from an adult reference is not for a child because an
    uncited abstract about children was also kept)."""
    if state.population_conflict or not cited:
        return state.population_conflict
    return population_conflict(state.request.query, cited)


def in_conversation_topic(state: QueryState, *, threshold: float, previous_question: str) -> QueryState:
    """A question that found no evidence on its own, read as a follow-up of the session's previous question:
    "Which blood tests afterwards?" after a question about starting a diuretic for hypertension. The same hits
    are judged again with the previous question's topic words added, and only passages that mention that
    topic count. Nothing changes when that finds no evidence either."""
    topic = " ".join(c.label for c in evidence.question_concepts(previous_question) if c.topic)
    if not topic:
        return state
    kept = state.model_copy(update={"answer": None, "clarifying_question": None, "answer_status": None})
    keep_supported_hits(kept, threshold=threshold, previous_question=previous_question, context=topic)
    if kept.answer_status is AnswerStatus.NO_EVIDENCE:
        return state
    kept.warnings.append(FOLLOW_UP_NOTE)
    return kept


def no_evidence_reply(state: QueryState, found: evidence.Evidence) -> str:
    """What was searched, which topics no passage mentions, and what to try next."""
    reply = NO_EVIDENCE_REPLY
    checked = state.phi is not None and state.phi.error is None
    missing = _missing_everywhere(found) if checked else []  # words of an unchecked question are never echoed
    if missing:
        reply += MISSING_TOPICS.format(topics=_listing(missing[:MAX_TOPICS]))
    if state.sources_searched:
        reply += SEARCHED.format(sources=", ".join(state.sources_searched))
    reply += SUGGESTION
    if not state.phi_detected and "pubmed" not in state.sources_searched:
        reply += PUBMED_SUGGESTION
    return reply


def _missing_everywhere(found: evidence.Evidence) -> list[str]:
    """Topic concepts that no passage contains, in question order."""
    if not found.passages:
        return []
    shared = set(found.passages[0].missing)
    for passage in found.passages[1:]:
        shared &= set(passage.missing)
    return [label for label in found.passages[0].missing if label in shared]


def _listing(items: list[str]) -> str:
    quoted = [f'"{item}"' for item in items]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " or " + quoted[-1]


def missing_topics(state: QueryState, excerpts: Sequence[Excerpt]) -> str:
    """The question's topics that none of the cited excerpts mentions ("" when all are, or when unchecked)."""
    if state.phi is None or state.phi.error is not None or not excerpts:
        return ""
    terms = frozenset().union(*(evidence.chunk_terms(e.chunk) for e in excerpts))
    missing = [c.label for c in evidence.question_concepts(evidence_question(state))
               if c.topic and not evidence.covers(c, terms)]
    return _listing(missing[:MAX_TOPICS]) if missing else ""
