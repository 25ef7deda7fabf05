"""The grounding check (the critic): is every sentence of an answer supported by the excerpt it cites?

Runs in Assemble Answer on model and extractive answers alike, offline and inside the boundary. A sentence
is supported by an excerpt when at least SUPPORT_THRESHOLD of its content terms (lightly stemmed, as the
extractive composer matches them) occur in the excerpt, its title or its section, and every number it states
(a dose, a threshold) occurs there too: a model that turns "500 mg" into "5,000 mg" is not supported. So must
every dosing fact (query/dose_facts.py): an amount with its unit ("5 g" where the excerpt says "500 mg"), a
frequency ("four times daily" for "twice daily") and a route ("IV" for "orally"); `Grounding.dose_warnings`
says which fact of which removed sentence was not in its excerpt.

- A [n] whose excerpt does not support its sentence is removed, like a citation that points at nothing.
- A sentence left without a supporting citation is removed when it states a number, or cites only excerpts
  that do not support it; an uncited sentence without numbers ("The excerpts do not cover children.") stays.
- `grounding` is the share of the answer's sentences that a cited (or, uncited, any) excerpt supports.

The conversation critic reuses `check` on every reply it vets.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from voiceassist.query.citations import Excerpt, format_citation, strip_citations
from voiceassist.query.dose_facts import DoseFact, dose_facts, missing_facts
from voiceassist.query.evidence import chunk_terms
from voiceassist.query.terms import content_terms

SUPPORT_THRESHOLD = 0.6
# Words about the sources or the question, not claims: "See the cited excerpt [1]." asserts nothing.
META_TERMS = content_terms(
    "reference references excerpt excerpts cited cite citation source sources passage passages document "
    "documents knowledge base according per see case question answer fits applies mention mentions says "
    "state states provided available information")
_CITATION = re.compile(r"[ \t]*\[\s*(\d{1,4}(?:\s*[-–]\s*\d{1,4})?(?:\s*[,;]\s*\d{1,4}(?:\s*[-–]\s*\d{1,4})?)*)\s*\]")
_POSSESSIVE = re.compile(r"['’]s\b")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_BOUNDARY = re.compile(r"(?<=[.!?])(?:\s*\[[\d,;\s–-]+\])?[\"')\]]*[ \t]+(?=[\"'(\[]?[A-Z0-9])")


@dataclass(frozen=True)
class SentenceCheck:
    text: str
    cited: tuple[int, ...]
    supporting: tuple[int, ...]  # the cited excerpts that support it (any excerpt, for an uncited sentence)
    kept: bool
    dose_mismatches: tuple[str, ...] = ()  # its dosing facts no excerpt it could cite states ("5 g")


@dataclass(frozen=True)
class Grounding:
    text: str  # the answer with unsupported citations and sentences removed
    sentences: tuple[SentenceCheck, ...]
    removed_citations: tuple[int, ...]  # excerpt numbers cited by a sentence they do not support

    @property
    def share(self) -> float:
        """The supported share of the answer's sentences (1.0 for an empty answer)."""
        if not self.sentences:
            return 1.0
        return round(sum(bool(s.supporting) for s in self.sentences) / len(self.sentences), 3)

    @property
    def removed_sentences(self) -> int:
        return sum(not s.kept for s in self.sentences)

    @property
    def dose_warnings(self) -> list[str]:
        """Why each removed sentence with a dosing fact was removed, for metadata.warnings."""
        return [f"removed a sentence whose {', '.join(s.dose_mismatches)} is not in the excerpt it cites"
                + (f" ({format_citation(list(s.cited))})" if s.cited else "")
                for s in self.sentences if not s.kept and s.dose_mismatches]


def numbers_of(text: str) -> set[str]:
    return {n.replace(",", "") for n in _NUMBER.findall(text)}


@dataclass(frozen=True)
class Claim:
    """What a sentence asserts: its content terms and numbers, less the words about the sources and the case."""

    terms: frozenset[str]
    numbers: frozenset[str]
    doses: frozenset[DoseFact] = frozenset()

    @property
    def empty(self) -> bool:
        return not self.terms and not self.numbers and not self.doses


def claim_of(sentence: str, *, given: frozenset[str] = frozenset()) -> Claim:
    """`given`: terms and numbers the question itself states (the patient's eGFR, their name)."""
    plain = _POSSESSIVE.sub("", strip_citations(sentence))
    terms = {t for t in content_terms(plain) if not t[0].isdigit()} - META_TERMS - given
    doses = dose_facts(plain, given=given)
    # a dosing fact's own words and number are checked as the fact (0.5 g is 500 mg, "every 12 hours" is
    # "twice daily"), not as bare terms and numbers
    shown = " ".join(fact.shown for fact in doses)
    return Claim(frozenset(terms - content_terms(shown)), frozenset(numbers_of(plain) - given - numbers_of(shown)),
                 frozenset(doses))


def unstated_doses(claim: Claim, excerpt: Excerpt) -> list[DoseFact]:
    """The claim's dosing facts (amounts with units, frequencies, routes) that the excerpt does not state."""
    if not claim.doses:
        return []
    chunk = excerpt.chunk
    return missing_facts(set(claim.doses), dose_facts(f"{chunk.metadata.title} {chunk.section or ''} {excerpt.text}"))


def supports(claim: Claim, excerpt: Excerpt) -> bool:
    """Whether the excerpt holds the claim's terms (SUPPORT_THRESHOLD of them), all its numbers and all its
    dosing facts."""
    chunk = excerpt.chunk
    if not claim.numbers <= numbers_of(f"{chunk.metadata.title} {chunk.section or ''} {excerpt.text}"):
        return False
    if unstated_doses(claim, excerpt):
        return False
    if not claim.terms:
        return True
    terms = chunk_terms(chunk) if excerpt.text == chunk.text else content_terms(
        f"{chunk.metadata.title} {chunk.section or ''} {excerpt.text}")
    return len(claim.terms & terms) / len(claim.terms) >= SUPPORT_THRESHOLD


def split_answer(text: str) -> list[str]:
    """The answer's sentences with their trailing whitespace, so that joining them gives the text back."""
    pieces: list[str] = []
    for line in text.splitlines(keepends=True):
        start = 0
        for boundary in _BOUNDARY.finditer(line):
            pieces.append(line[start:boundary.end()])
            start = boundary.end()
        pieces.append(line[start:])
    return [p for p in pieces if p]


def _cited_numbers(sentence: str) -> list[int]:
    numbers: list[int] = []
    for body in _CITATION.findall(sentence):
        for part in re.split(r"\s*[,;]\s*", body):
            low, _, high = part.partition("-") if "-" in part else part.partition("–")
            numbers.extend(range(int(low), int(high) + 1) if high else [int(low)])
    return list(dict.fromkeys(numbers))


def check(answer: str, excerpts: Sequence[Excerpt], *, given: frozenset[str] = frozenset()) -> Grounding:
    """Check every sentence against the excerpts it cites (all of them when it cites none). A sentence that
    asserts nothing (only words about the sources, or what the question gave) is kept and not counted."""
    by_number = {e.number: e for e in excerpts}
    checks: list[SentenceCheck] = []
    kept_text: list[str] = []
    removed: list[int] = []
    for piece in split_answer(answer):
        if not piece.strip():
            kept_text.append(piece)
            continue
        claim = claim_of(piece, given=given)
        if claim.empty:
            kept_text.append(piece)
            continue
        cited = _cited_numbers(piece)
        pool = [by_number[n] for n in cited if n in by_number] if cited else list(excerpts)
        supporting = tuple(e.number for e in pool if supports(claim, e))
        kept = bool(supporting) or (not cited and not claim.numbers and not claim.doses)
        unstated = () if kept else tuple(dict.fromkeys(
            f.shown for e in pool for f in unstated_doses(claim, e)))
        checks.append(SentenceCheck(piece.strip(), tuple(cited), supporting, kept, unstated))
        if not kept:
            kept_text.append("\n" if piece.endswith("\n") else "")
            continue
        unsupported = [n for n in cited if n not in supporting]
        removed.extend(unsupported)
        kept_text.append(_without(piece, set(unsupported)) if unsupported else piece)
    text = "".join(kept_text).strip()
    return Grounding(text=re.sub(r"[ \t]{2,}", " ", text), sentences=tuple(checks),
                     removed_citations=tuple(sorted(set(removed))))


def _without(sentence: str, drop: set[int]) -> str:
    """The sentence with the dropped numbers taken out of its citations (an emptied one disappears)."""
    def rewrite(match: re.Match[str]) -> str:
        left = [n for n in _cited_numbers(match.group()) if n not in drop]
        return f" {format_citation(left)}" if left else ""

    return _CITATION.sub(rewrite, sentence)
