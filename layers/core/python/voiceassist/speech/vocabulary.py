"""The knowledge base's clinical vocabulary, which transcription is biased toward (Whisper's initial prompt).

Method: a term is
- a name of the concept layer's sourced terminology (query/terminology.py: the drug dictionary, generic and brand
  names, and the cited abbreviation list) that an indexed passage uses, written as the passage writes it; a
  condition name is the expansion of such an abbreviation, when the same passage spells it out ("CKD" beside
  "chronic kidney disease"); or
- an uncommon word of an indexed passage: at least MIN_WORD_LETTERS letters, less common in English than
  COMMON_ZIPF (_data/speech/english_words.tsv.gz, from wordfreq: the words above it a general recognizer already
  writes right), and written in lower case, or capitalized only where a sentence or heading begins
  ("anaphylaxis", "acidosis", "titration", "Anaphylaxis is likely when ..."). A word capitalized inside a
  sentence (a name) or written in capitals or with digits (an identifier) is never taken, nor a Census given
  name or surname.
Terms are ranked the terminology's names first, then the uncommon words, each by the number of passages that use
them (then by first appearance), and cut at `max_terms` and `max_characters`: Whisper keeps at most 223 prompt
tokens, and every prompt token is decoded again with each 30 s window (bench/voice.py measures the cost and the
gain).

The transcript repair (speech.repair) takes these terms (up to `repair_terms`) and the names clinicians say for the
terms' drugs that passages need not use: each drug's brands and other names found in English text at all
(`_data/speech/drug_names_in_use.tsv`: the drug dictionary's names with a wordfreq Zipf frequency above 0, so
"Glucophage" and "Augmentin", not the pharmacopoeia's "metforminum"), never a common word, a Census name or another
spelling of a term. They are not in the prompt: there they crowded out the passages' own words and answered no more
spoken questions (docs/benchmarks.md, "Voice", session 8). The repair runs after PHI detection on the transcript as
heard, and never rewrites what the detector found (KnowledgeBaseVocabulary.repair).

On AWS the same role is played by a Transcribe Medical custom vocabulary, named in settings
(`transcribe_vocabulary_name`) and created by the operator from `vocabulary_terms`.
"""

from __future__ import annotations

import re
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from functools import lru_cache

from voiceassist.models import DocumentStatus
from voiceassist.ports import DocumentStore, SearchIndex
from voiceassist.query import terminology
from voiceassist.query.terminology import ENGLISH_WORDS_FILE as ENGLISH_WORDS_FILE
from voiceassist.query.terminology import english_words
from voiceassist.settings import PACKAGE_DIR
from voiceassist.speech.repair import Vocabulary, corrections, letters
from voiceassist.speech.spoken_forms import written_forms_at

DRUG_NAMES_IN_USE_FILE = PACKAGE_DIR / "_data" / "speech" / "drug_names_in_use.tsv"
# An indexed word less common than this (Zipf frequency: 4 is ten uses in a million words) is one a general
# recognizer mishears ("pneumonia" 3.7, "renal" 3.4, "acidosis" 2.4; "treatment" 5.0 is written right).
COMMON_ZIPF = 4.0

MAX_TERMS = 60
MAX_REPAIR_TERMS = 2000  # the terms a transcript may be repaired to: no prompt window limits these
MAX_CHARACTERS = 700  # about 180 Whisper tokens: inside its 223-token prompt window
MAX_PASSAGES = 2000  # read at most this many indexed passages per refresh
MIN_DRUG_LETTERS = 4  # shorter dictionary entries ("tea", "ice") are English words more often than drugs
MIN_WORD_LETTERS = 5  # an uncommon passage word this long or longer is a term (bench/voice_answers.py)
SPELLING_SIMILARITY = 0.75  # difflib ratio above which two drug names are one name spelt two ways
PROMPT_LEAD = "Clinical question. Terms: "
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:[-'][A-Za-z0-9]+)*")


def _written(token: str) -> str:
    """A word as a term: lower case unless it is an acronym or mixed case ("ACE", "eGFR", "B12" stay)."""
    return token if any(c.isupper() for c in token[1:]) or token.isupper() and len(token) > 1 else token.lower()


@lru_cache(maxsize=1)
def common_words() -> frozenset[str]:
    """Words a general recognizer writes right (COMMON_ZIPF and above), and the Census names: never terms."""
    from voiceassist.phi.word_lists import name_words

    return frozenset(word for word, zipf in english_words().items() if zipf >= COMMON_ZIPF) | name_words()


def _uncommon(match: re.Match[str], passage: str, common: frozenset[str]) -> str | None:
    """The word as a term (lower case) when it is an uncommon word written as a term is (the module's method)."""
    token = match.group(0)
    if len(token) < MIN_WORD_LETTERS or not token.replace("-", "").isalpha():
        return None
    opening = token[0].isupper() and token[1:].islower() and \
        (passage[:match.start()].rstrip()[-1:] or ".") in ".!?:#*-\n"
    word = token.lower()
    if not (token.islower() or opening) or word in common or any(part in common for part in word.split("-")):
        return None
    return word


def _passage_terms(passage: str, drugs: dict[str, str], abbreviations: dict[str, tuple[str, ...]],
                   common: frozenset[str] = frozenset(), *, words: bool = False) -> dict[str, bool]:
    """The terminology names one passage uses, in order, each once; with `words`, its uncommon words too (the
    value: whether the term is such a word)."""
    found: dict[str, bool] = {}
    matches = list(_WORD.finditer(passage))
    tokens = [match.group(0) for match in matches]
    lowered = passage.lower()
    for i, token in enumerate(tokens):
        low = token.lower()
        pair = f"{low} {tokens[i + 1].lower()}" if i + 1 < len(tokens) else ""
        if pair in drugs:
            found.setdefault(f"{_written(token)} {_written(tokens[i + 1])}", False)
        elif low in drugs and len(low) >= MIN_DRUG_LETTERS and not token.isupper():
            found.setdefault(low, False)
        elif token in abbreviations and len(token) >= 2 and any(c.isupper() for c in token):
            found.setdefault(token, False)
            for meaning in abbreviations[token]:
                if " " in meaning and re.search(rf"\b{re.escape(meaning.lower())}\b", lowered):
                    found.setdefault(meaning.lower(), False)
        elif words and (word := _uncommon(matches[i], passage, common)):
            found.setdefault(word, True)
    return found


def vocabulary_terms(passages: Iterable[str], *, max_terms: int = MAX_TERMS, words: bool = True) -> list[str]:
    """The most used terms of the passages (see the module's method), at most `max_terms`: the terminology's names
    first, then (unless `words` is False) the uncommon words, so that words never crowd a drug name out of the
    prompt."""
    drugs, abbreviations = terminology.drug_names(), terminology.abbreviations()
    common = common_words() if words else frozenset()
    used: Counter[str] = Counter()
    first: dict[str, int] = {}
    is_word: dict[str, bool] = {}
    for passage in passages:
        for term, word in _passage_terms(passage, drugs, abbreviations, common, words=words).items():
            used[term] += 1
            first.setdefault(term, len(first))
            is_word[term] = is_word.get(term, True) and word
    ranked = sorted(used, key=lambda term: (is_word[term], -used[term], first[term]))
    return ranked[:max_terms]


@lru_cache(maxsize=1)
def drug_names_in_use() -> dict[str, float]:
    """The drug dictionary's other names (brands, synonyms) found in English text -> their Zipf frequency."""
    table: dict[str, float] = {}
    for line in DRUG_NAMES_IN_USE_FILE.read_text(encoding="utf-8").splitlines():
        if not line.startswith("#") and "\t" in line:
            name, zipf = line.split("\t")
            table[name] = float(zipf)
    return table


def spoken_drug_names(names: Iterable[str], drugs: dict[str, str], common: frozenset[str]) -> list[str]:
    """The names clinicians say for the drugs among `names` (in their order): each drug's other names in English
    use (drug_names_in_use: a brand such as "Glucophage" for metformin, "Augmentin" for amoxicillin with
    clavulanate), most used first, capitalized as brands are unless an English word ("adrenaline"); none a general
    recognizer already writes right (a common word or a Census name, `common`), nor another spelling or form of a
    name already taken ("amoxycillin", "antibiotics": letters SPELLING_SIMILARITY alike)."""
    generics = list(dict.fromkeys(drugs[name.lower()] for name in names if name.lower() in drugs))
    present = set(generics)
    generics += [combination for combination, members in terminology.COMBINATIONS.items()
                 if combination not in present and all(member in present for member in members)]
    in_use = drug_names_in_use()
    others: dict[str, list[str]] = {}
    for name, generic in drugs.items():
        if name in in_use and name not in common and name != generic:
            others.setdefault(generic, []).append(name)
    taken = [letters(name) for name in names]
    english = english_words()
    spoken: list[str] = []
    for generic in generics:
        for name in sorted(others.get(generic, ()), key=lambda other: (-in_use[other], other)):
            if not any(SequenceMatcher(None, name, other).ratio() >= SPELLING_SIMILARITY for other in taken):
                taken.append(name)
                spoken.append(name if name in english else name.capitalize())
    return spoken


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


def prompt_terms(prompt: str | None) -> tuple[str, ...]:
    """The terms an initial prompt names (initial_prompt's inverse; none for another prompt or none)."""
    if not prompt or not prompt.startswith(PROMPT_LEAD):
        return ()
    return tuple(term for term in prompt[len(PROMPT_LEAD):].removesuffix(".").split(", ") if term)


def indexed_passages(documents: DocumentStore, index: SearchIndex, *, max_passages: int = MAX_PASSAGES
                     ) -> Iterator[str]:
    """The searchable passages' text, document by document in the order of their doc_key (chunk ids are
    f"{doc_id}:{n:05d}"). Terms used by as many passages are ranked by first appearance, so the order is fixed
    here: the store lists documents in the order they were ingested, which differs between two ingestions of the
    same corpus (the sample corpus' four documents are ingested side by side), and with it the prompt's last terms
    did (16 of 55 differed between two data folders, session 9), and so the transcripts."""
    read = 0
    listed = documents.list(status=DocumentStatus.ACTIVE, limit=1000)
    for document in sorted(listed, key=lambda document: (document.doc_key, document.doc_id)):
        for number in range(document.chunk_count):
            if read >= max_passages:
                return
            read += 1
            yield index.chunk(f"{document.doc_id}:{number:05d}").text


def followers(passages: Iterable[str]) -> dict[str, frozenset[str]]:
    """The lower-case words each passage word is followed by, keyed by the word's letters ("curb65": {"score"}): what
    the repair takes as the word after a term (speech.repair, `Vocabulary.followers`)."""
    found: dict[str, set[str]] = {}
    for passage in passages:
        words = _WORD.findall(passage)
        for word, after in zip(words, words[1:], strict=False):
            if after.islower():
                found.setdefault(letters(word), set()).add(after)
    return {key: frozenset(words) for key, words in found.items()}


class KnowledgeBaseVocabulary:
    """The knowledge base's current terms, rebuilt at most every `refresh_seconds` (documents come and go): the
    first `max_terms` make the recognizer's prompt, and up to `repair_terms` repair its transcripts
    (speech.repair). A failure to read the knowledge base keeps the last terms (or none): transcription never
    fails for it."""

    def __init__(self, passages: Callable[[], Iterable[str]], *, max_terms: int = MAX_TERMS,
                 repair_terms: int = MAX_REPAIR_TERMS, refresh_seconds: float = 300.0,
                 clock: Callable[[], float] = time.monotonic,
                 phi_spans: Callable[[str], Sequence[tuple[int, int]] | None] | None = None) -> None:
        """`phi_spans`: the PHI detector's spans in a transcript as heard (None when detection failed); those
        words are never repaired, and nothing is repaired when detection failed (see `repair`)."""
        self._passages = passages
        self._phi_spans = phi_spans
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
                passages = list(self._passages())
                self._terms = vocabulary_terms(passages, max_terms=max(self._max_terms, self._repair_terms))
            except Exception as exc:  # a store or index outage must not stop a clinician's question
                from voiceassist.observability import log_failure

                log_failure("voice vocabulary not refreshed", exc)
                return
            self._prompt = initial_prompt(self._terms[:self._max_terms]) if self._max_terms > 0 else None
            repairs = self._terms[:self._repair_terms]
            repairs += spoken_drug_names(repairs, terminology.drug_names(), common_words())
            self._repairs = Vocabulary.of(repairs, known=english_words().keys(), followers=followers(passages))

    def prompt(self) -> str | None:
        """Whisper's initial prompt (None when `max_terms` is 0)."""
        if self._max_terms <= 0:
            return None
        self._refreshed()
        return self._prompt

    def repair(self, transcript: str) -> str:
        """The transcript with the recognizer's written forms of spoken words put back (speech.spoken_forms: "eGFR's
        25" is "eGFR is 25") and its spellings of the terms (speech.repair.repaired). PHI is
        detected on the transcript as heard first, and what it finds stays as heard: a patient's surname that
        sounds like a term ("Mr Casarez" and Cozaar) is never bent into a drug name, so the repaired question
        still carries the name the query pipeline's PHI check routes by. A detection that fails repairs nothing
        (the words as heard go on, and the pipeline's own check fails closed on them)."""
        return self.correct(transcript).text

    def correct(self, transcript: str, doubted: Sequence[tuple[int, int]] = ()) -> Corrected:
        """`repair`, told which words the recognizer doubted (`doubted`: their spans in the transcript as heard),
        and what it changed: a doubted word may be bent to a term that sounds like it even when it is an English
        word (speech.repair). PHI is detected on the transcript as heard first, as by `repair`: a word the
        detector found stays as heard whether doubted or not, and a failed detection changes nothing."""
        if self._repair_terms <= 0:
            return Corrected(transcript, ())
        self._refreshed()
        keep: Sequence[tuple[int, int]] | None = ()
        if self._phi_spans is not None:
            try:
                keep = self._phi_spans(transcript)
            except Exception:  # a detector error counts as PHI: nothing is rewritten
                keep = None
        if keep is None:
            return Corrected(transcript, ())
        written, at = written_forms_at(transcript, keep)
        text, changes = corrections(written, self._repairs, [(at(start), at(end)) for start, end in keep],
                                    [(at(start), at(end)) for start, end in doubted])
        return Corrected(text, tuple(changes))


@dataclass(frozen=True)
class Corrected:
    """A transcript after the repair, and each change as (the words as heard, the term written for them)."""

    text: str
    changes: tuple[tuple[str, str], ...]
