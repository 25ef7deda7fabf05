"""Citations: find [n], [n, m] and [n-m] in an answer, drop the ones that point at no excerpt, renumber the
rest in order of first use, and describe each for the response.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from voiceassist.models import Chunk, Citation, Model, SearchHit


class Excerpt(Model):
    """A search hit as the prompt shows it: numbered 1..n in rank order."""

    number: int
    chunk: Chunk
    text: str
    score: float = 0.0


def number_excerpts(hits: Sequence[SearchHit]) -> list[Excerpt]:
    """Number hits 1..n in the order given (best first), skipping a chunk that two sources both returned."""
    excerpts: list[Excerpt] = []
    seen: set[str] = set()
    for hit in hits:
        if hit.chunk.chunk_id in seen:
            continue
        seen.add(hit.chunk.chunk_id)
        number = len(excerpts) + 1
        excerpts.append(Excerpt(number=number, chunk=hit.chunk, text=hit.chunk.text, score=hit.score))
    return excerpts


CITATION_EXCERPT_CHARS = 400
# A range wider than this is not a citation a model means ("[1-2000]"): only its two ends are counted.
MAX_CITATION_RANGE = 50

_ITEM = r"\d{1,4}(?:\s*[-–]\s*\d{1,4})?"  # 3 or 3-5
_CITATION = re.compile(rf"(?P<lead>[ \t]*)\[\s*(?P<body>{_ITEM}(?:\s*[,;]\s*{_ITEM})*)\s*\](?P<trail>[ \t]*)")
_RANGE = re.compile(r"(\d+)\s*[-–]\s*(\d+)")


@dataclass(frozen=True)
class CitedAnswer:
    text: str  # the answer without citations that point at no excerpt
    used: list[int]  # excerpt numbers in order of first use
    invalid: list[int]  # numbers the answer cited that point at no excerpt (removed from text)


@dataclass(frozen=True)
class RenumberedAnswer:
    text: str  # citations renumbered 1..k in order of first use
    sources: list[int]  # sources[k - 1] is the excerpt number behind citation [k]


def _cited_numbers(body: str) -> list[int]:
    numbers: list[int] = []
    for part in re.split(r"\s*[,;]\s*", body):
        span = _RANGE.fullmatch(part)
        if span is None:
            numbers.append(int(part))
            continue
        low, high = sorted((int(span.group(1)), int(span.group(2))))
        numbers.extend(range(low, high + 1) if high - low <= MAX_CITATION_RANGE else (low, high))
    return list(dict.fromkeys(numbers))


def format_citation(numbers: Sequence[int]) -> str:
    """"[1, 2]" or "[3-5]" for runs of three or more."""
    ordered = sorted(set(numbers))
    parts: list[str] = []
    start = 0
    while start < len(ordered):
        end = start
        while end + 1 < len(ordered) and ordered[end + 1] == ordered[end] + 1:
            end += 1
        if end - start >= 2:
            parts.append(f"{ordered[start]}-{ordered[end]}")
        else:
            parts.extend(str(n) for n in ordered[start:end + 1])
        start = end + 1
    return "[" + ", ".join(parts) + "]"


def _rewrite(match: re.Match[str], numbers: list[int]) -> str:
    lead, trail = match.group("lead"), match.group("trail")
    if numbers:
        return f"{lead}{format_citation(numbers)}{trail}"
    at_line_start = match.start() == 0 or match.string[match.start() - 1] == "\n"
    return "" if at_line_start and not lead else trail


def parse_citations(answer: str, excerpt_count: int) -> CitedAnswer:
    """Find [n], [n, m] and [n-m]; a number that points at no excerpt is removed and reported."""
    used: dict[int, None] = {}
    invalid: set[int] = set()

    def replace(match: re.Match[str]) -> str:
        valid = []
        for number in _cited_numbers(match.group("body")):
            if 1 <= number <= excerpt_count:
                valid.append(number)
                used.setdefault(number)
            else:
                invalid.add(number)
        return _rewrite(match, valid)

    text = _CITATION.sub(replace, answer)
    return CitedAnswer(text=text, used=list(used), invalid=sorted(invalid))


def renumber(cited: CitedAnswer) -> RenumberedAnswer:
    """Renumber the (valid) citations 1..k in order of first use, remembering which excerpt each one is."""
    new_number = {old: new for new, old in enumerate(cited.used, start=1)}

    def replace(match: re.Match[str]) -> str:
        numbers = [new_number[n] for n in _cited_numbers(match.group("body")) if n in new_number]
        return _rewrite(match, numbers)

    return RenumberedAnswer(text=_CITATION.sub(replace, cited.text), sources=list(cited.used))


def strip_citations(text: str) -> str:
    """The text without any [n] markers."""
    return _CITATION.sub(lambda match: _rewrite(match, []), text)


def citation_snippet(text: str, *, max_chars: int = CITATION_EXCERPT_CHARS) -> str:
    flat = " ".join(text.split())
    if len(flat) <= max_chars:
        return flat
    cut = flat[:max_chars]
    return cut[: cut.rfind(" ")].rstrip(" ,;:") + " …" if " " in cut else cut + " …"


def citations_for(answer: RenumberedAnswer, excerpts: Sequence[Excerpt]) -> list[Citation]:
    """The response's citation list: entry k describes the excerpt behind [k]."""
    by_number = {e.number: e for e in excerpts}
    citations = []
    for number, source in enumerate(answer.sources, start=1):
        excerpt = by_number[source]
        meta = excerpt.chunk.metadata
        citations.append(Citation(
            number=number, doc_id=excerpt.chunk.doc_id, doc_key=excerpt.chunk.doc_key, title=meta.title,
            source_type=meta.source_type, page=excerpt.chunk.page, section=excerpt.chunk.section,
            excerpt=citation_snippet(excerpt.text), score=excerpt.score, url=meta.url, doi=meta.doi,
            pmid=meta.pmid, chunk_id=excerpt.chunk.chunk_id,
        ))
    return citations
