"""The knowledge base's clinical vocabulary, which transcription is biased toward (Whisper's initial prompt).

Method: a term is a name of the concept layer's sourced terminology (query/terminology.py: the drug
dictionary, generic and brand names, and the cited abbreviation list) that an indexed passage uses, written as
the passage writes it; a condition name is the expansion of such an abbreviation, when the same passage spells
it out ("CKD" beside "chronic kidney disease"). Terms are ranked by the number of passages that use them (then by
first appearance) and cut at `max_terms` and `max_characters`: Whisper keeps at most 223 prompt tokens, and every
prompt token is decoded again with each 30 s window (bench/voice.py measures the cost and the gain).

Only dictionary names can enter the vocabulary, never a passage's other words, so a name or identifier in a
document cannot reach the recognizer's prompt. On AWS the same role is played by a Transcribe Medical custom
vocabulary, named in settings (`transcribe_vocabulary_name`) and created by the operator from `vocabulary_terms`.
"""

from __future__ import annotations

import re
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator

from voiceassist.models import DocumentStatus
from voiceassist.ports import DocumentStore, SearchIndex
from voiceassist.query import terminology
from voiceassist.speech.repair import Vocabulary, repaired

MAX_TERMS = 60
MAX_REPAIR_TERMS = 2000  # the terms a transcript may be repaired to: no prompt window limits these
MAX_CHARACTERS = 700  # about 180 Whisper tokens: inside its 223-token prompt window
MAX_PASSAGES = 2000  # read at most this many indexed passages per refresh
MIN_DRUG_LETTERS = 4  # shorter dictionary entries ("tea", "ice") are English words more often than drugs
PROMPT_LEAD = "Clinical question. Terms: "
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:[-'][A-Za-z0-9]+)*")


def _written(token: str) -> str:
    """A word as a term: lower case unless it is an acronym or mixed case ("ACE", "eGFR", "B12" stay)."""
    return token if any(c.isupper() for c in token[1:]) or token.isupper() and len(token) > 1 else token.lower()


def _passage_terms(passage: str, drugs: dict[str, str], abbreviations: dict[str, tuple[str, ...]]) -> list[str]:
    """The terminology names one passage uses, in order, each once."""
    found: dict[str, None] = {}
    tokens = _WORD.findall(passage)
    lowered = passage.lower()
    for i, token in enumerate(tokens):
        low = token.lower()
        pair = f"{low} {tokens[i + 1].lower()}" if i + 1 < len(tokens) else ""
        if pair in drugs:
            found.setdefault(f"{_written(token)} {_written(tokens[i + 1])}", None)
        elif low in drugs and len(low) >= MIN_DRUG_LETTERS and not token.isupper():
            found.setdefault(low, None)
        elif token in abbreviations and len(token) >= 2 and any(c.isupper() for c in token):
            found.setdefault(token, None)
            for meaning in abbreviations[token]:
                if " " in meaning and re.search(rf"\b{re.escape(meaning.lower())}\b", lowered):
                    found.setdefault(meaning.lower(), None)
    return list(found)


def vocabulary_terms(passages: Iterable[str], *, max_terms: int = MAX_TERMS) -> list[str]:
    """The most used terminology names of the passages (see the module's method), at most `max_terms`."""
    drugs, abbreviations = terminology.drug_names(), terminology.abbreviations()
    used: Counter[str] = Counter()
    first: dict[str, int] = {}
    for passage in passages:
        for term in _passage_terms(passage, drugs, abbreviations):
            used[term] += 1
            first.setdefault(term, len(first))
    ranked = sorted(used, key=lambda term: (-used[term], first[term]))
    return ranked[:max_terms]


def initial_prompt(terms: Iterable[str], *, max_characters: int = MAX_CHARACTERS) -> str | None:
    """Whisper's initial prompt naming the terms, cut at max_characters on a term's boundary; None if none."""
    kept: list[str] = []
    size = len(PROMPT_LEAD) + 1
    for term in terms:
        if size + len(term) + 2 > max_characters:
            break
        kept.append(term)
        size += len(term) + 2
    return PROMPT_LEAD + ", ".join(kept) + "." if kept else None


def indexed_passages(documents: DocumentStore, index: SearchIndex, *, max_passages: int = MAX_PASSAGES
                     ) -> Iterator[str]:
    """The searchable passages' text, document by document (chunk ids are f"{doc_id}:{n:05d}")."""
    read = 0
    for document in documents.list(status=DocumentStatus.ACTIVE, limit=1000):
        for number in range(document.chunk_count):
            if read >= max_passages:
                return
            read += 1
            yield index.chunk(f"{document.doc_id}:{number:05d}").text


class KnowledgeBaseVocabulary:
    """The knowledge base's current terms, rebuilt at most every `refresh_seconds` (documents come and go): the
    first `max_terms` make the recognizer's prompt, and up to `repair_terms` repair its transcripts
    (speech.repair). A failure to read the knowledge base keeps the last terms (or none): transcription never
    fails for it."""

    def __init__(self, passages: Callable[[], Iterable[str]], *, max_terms: int = MAX_TERMS,
                 repair_terms: int = MAX_REPAIR_TERMS, refresh_seconds: float = 300.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._passages = passages
        self._max_terms = max_terms
        self._repair_terms = repair_terms
        self._refresh = refresh_seconds
        self._clock = clock
        self._lock = threading.Lock()
        self._built_at: float | None = None
        self._terms: list[str] = []
        self._prompt: str | None = None
        self._repairs = Vocabulary.of(())

    def _refreshed(self) -> None:
        with self._lock:
            now = self._clock()
            if self._built_at is not None and now - self._built_at < self._refresh:
                return
            self._built_at = now
            try:
                self._terms = vocabulary_terms(self._passages(), max_terms=max(self._max_terms, self._repair_terms))
            except Exception as exc:  # a store or index outage must not stop a clinician's question
                from voiceassist.observability import log_failure

                log_failure("voice vocabulary not refreshed", exc)
                return
            self._prompt = initial_prompt(self._terms[:self._max_terms]) if self._max_terms > 0 else None
            self._repairs = Vocabulary.of(self._terms[:self._repair_terms])

    def prompt(self) -> str | None:
        """Whisper's initial prompt (None when `max_terms` is 0)."""
        if self._max_terms <= 0:
            return None
        self._refreshed()
        return self._prompt

    def repair(self, transcript: str) -> str:
        """The transcript with the recognizer's spellings of the terms put back (speech.repair.repaired)."""
        if self._repair_terms <= 0:
            return transcript
        self._refreshed()
        return repaired(transcript, self._repairs)
