"""Chunking: cleaned pages -> token-bounded, sentence- and heading-aware chunks with overlap.

Sizes are counted in tiktoken cl100k_base tokens. When the embedder's own tokenizer is given, every chunk
is also checked against it, because a word-piece tokenizer may count more tokens than tiktoken and an
embedder silently truncates what it cannot take.
"""

from __future__ import annotations

import re
import threading
from bisect import bisect_right
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from itertools import pairwise

import tiktoken

from voiceassist.abbreviations import abbreviation_kind
from voiceassist.ingest.headings import Section, heading_line_breaks, sections
from voiceassist.models import Chunk, DocumentMetadata, Page
from voiceassist.settings import configure_tiktoken_cache

ENCODING_NAME = "cl100k_base"

_encoding: tiktoken.Encoding | None = None
_encoding_lock = threading.Lock()

# A sentence ends at . ! ? (plus closing quotes or brackets) followed by white space.
_SENTENCE_END = re.compile(r"([.!?]+)[\"'”’)\]]*\s+")
_ENUMERATOR = re.compile(r"\(?(?:\d{1,2}|[A-Za-z]|[ivxIVX]{1,4})[.)]")
_DOTTED_ABBREVIATION = re.compile(r"(?:[A-Za-z]\.)+[A-Za-z]")
# Blocks start at a blank line or at a list item; inside a block, line breaks are only layout.
_BLOCK_BREAK = re.compile(r"\n[ \t]*\n\s*|\n(?=[ \t]*(?:[-•*▪◦‣]|\d{1,2}[.)])[ \t])")


def token_encoding() -> tiktoken.Encoding:
    """The cl100k_base encoding, loaded once per process from the files shipped in the package."""
    global _encoding
    if _encoding is None:
        with _encoding_lock:
            if _encoding is None:
                configure_tiktoken_cache()
                _encoding = tiktoken.get_encoding(ENCODING_NAME)
    return _encoding


def count_tokens(text: str) -> int:
    # encode_ordinary: a document containing "<|endoftext|>" is text, not a control token.
    return len(token_encoding().encode_ordinary(text))


def split_sentences(text: str) -> list[str]:
    """Sentences of one paragraph, keeping "b.i.d.", "Dr.", "e.g.", "Fig. 2" and "2.5 mg" intact."""
    return [" ".join(text[start:end].split()) for start, end in _sentence_spans(text)]


@dataclass(frozen=True, slots=True)
class _Unit:
    """A sentence, or a piece of a sentence too long for one chunk."""

    text: str
    tokens: int
    page: int | None
    starts_block: bool


def chunk_document(
    pages: list[Page],
    *,
    doc_id: str,
    doc_key: str,
    version: int,
    metadata: DocumentMetadata,
    max_tokens: int = 200,
    overlap_tokens: int = 30,
    model_max_tokens: int | None = None,
    count_model_tokens: Callable[[str], int] | None = None,
) -> list[Chunk]:
    """Chunks of at most max_tokens (and, if given, at most model_max_tokens by count_model_tokens).

    A chunk never spans a heading, and starts afresh on each page so that it cites the page it is on. Consecutive chunks
    of a section share whole sentences up to overlap_tokens. chunk_id is f"{doc_id}:{ordinal:05d}".
    """
    if max_tokens < 1 or not 0 <= overlap_tokens < max_tokens:
        raise ValueError("chunking needs max_tokens >= 1 and 0 <= overlap_tokens < max_tokens")
    if (model_max_tokens is None) != (count_model_tokens is None):
        raise ValueError("give both model_max_tokens and count_model_tokens, or neither")

    def fits(text: str) -> bool:
        if count_tokens(text) > max_tokens:
            return False
        if count_model_tokens is None or model_max_tokens is None:
            return True
        return count_model_tokens(text) <= model_max_tokens

    chunks: list[Chunk] = []
    for section in sections(pages):
        sentences = _units(section, max_tokens)
        units = [piece for unit in sentences for piece in _split_long(unit, max_tokens)]
        for group in _pack(units, max_tokens=max_tokens, overlap_tokens=overlap_tokens, fits=fits):
            text = _join(group)
            chunks.append(
                Chunk(
                    chunk_id=f"{doc_id}:{len(chunks):05d}",
                    doc_id=doc_id,
                    doc_key=doc_key,
                    version=version,
                    ordinal=len(chunks),
                    text=text,
                    token_count=count_tokens(text),
                    page=group[0].page,
                    section=section.heading,
                    metadata=metadata,
                )
            )
    return chunks


# --------------------------------------------------------------------------- structure


def _units(section: Section, max_tokens: int) -> Iterator[_Unit]:
    """Sentences of a section with the page each starts on. A sentence may run onto the next page, but
    one too long for a chunk (a table without full stops) is first cut at page breaks, so that each of
    its chunks cites the page it comes from. Each heading opening the section is a unit of its own."""
    pages = section.pages
    text = section.text
    page_starts: list[int] = []
    offset = 0
    for page in pages:
        page_starts.append(offset)
        offset += len(page.text) + 1
    cuts = ({(m.start(), m.end()) for m in _BLOCK_BREAK.finditer(text)}
            | {(start - 1, start) for start in page_starts[1:] if _page_break_ends_sentence(text, start)}
            | set(heading_line_breaks(text, frozenset(end for _, end in section.heading_spans)))
            | {(end, end + 1) for _, end in section.heading_spans}
            | {(len(text), len(text))})
    # A heading set on two lines is one unit.
    breaks = sorted(cut for cut in cuts if not any(start < cut[0] < end for start, end in section.heading_spans))
    block_start = 0
    for block_end, next_start in breaks:
        for index, (start, end) in enumerate(_sentence_spans(text, block_start, block_end)):
            pieces = _pieces(text, start, end, page_starts, max_tokens)
            for part, (piece, tokens, page_index) in enumerate(pieces):
                yield _Unit(piece, tokens, pages[page_index].number, starts_block=index == 0 and part == 0)
        block_start = next_start


def _page_break_ends_sentence(text: str, start: int) -> bool:
    """A page break ends the sentence unless the next page plainly continues it ("... rate is" | "1.5 L/h")."""
    following = text[start:start + 1]
    before = text[:start - 1].rstrip()
    return bool(before) and (before[-1] in ".!?:" or following.isupper())


def _pieces(
    text: str, start: int, end: int, page_starts: list[int], max_tokens: int
) -> list[tuple[str, int, int]]:
    """(text, tokens, page index) of one sentence: whole, or cut at page breaks when it is too long."""
    first = bisect_right(page_starts, start) - 1
    last = bisect_right(page_starts, end - 1) - 1
    sentence = " ".join(text[start:end].split())
    tokens = count_tokens(sentence)
    if tokens <= max_tokens or first == last:
        return [(sentence, tokens, first)]
    cuts = [start, *page_starts[first + 1 : last + 1], end]
    pieces = [(" ".join(text[a:b].split()), first + part) for part, (a, b) in enumerate(pairwise(cuts))]
    return [(piece, count_tokens(piece), page_index) for piece, page_index in pieces if piece]


def _sentence_spans(text: str, begin: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """Spans of the sentences in text[begin:end], as offsets into text; line breaks count as spaces."""
    stop = len(text) if end is None else end
    flat = text[begin:stop].replace("\n", " ")
    spans: list[tuple[int, int]] = []
    start = 0
    for match in _SENTENCE_END.finditer(flat):
        if match.end() < len(flat) and _ends_sentence(flat, start, match):
            spans.append((start, match.start() + len(match.group(0).rstrip())))
            start = match.end()
    spans.append((start, len(flat)))
    return [(begin + s, begin + e) for s, e in spans if flat[s:e].strip()]


def _ends_sentence(text: str, start: int, match: re.Match[str]) -> bool:
    following = text[match.end()]
    if match.group(1) != ".":
        return not following.islower()
    if following.islower():
        return False  # "e.g. aspirin", "approx. twice daily"
    words_before = text[start : match.start()].split()
    word = words_before[-1].lstrip("([{\"'“‘") if words_before else ""
    if _ENUMERATOR.fullmatch(text[start : match.end()].strip()):
        return False  # "1." or "(a)" opening a list item
    kind = abbreviation_kind(word)
    if kind == "never" or (word.isalpha() and len(word) == 1 and word.isupper()):
        return False  # "Dr. Smith", "Fig. 2", "J. Smith"
    if kind == "maybe" or _DOTTED_ABBREVIATION.fullmatch(word):
        return following.isupper()  # "500 mg b.i.d. Continue ..." ends; "b.i.d. for 7 days" does not
    return not (word.isdigit() and following.isdigit())  # "2. 5 mg": a decimal broken by extraction


# --------------------------------------------------------------------------- sizing


def _split_long(unit: _Unit, max_tokens: int, fits: Callable[[str], bool] | None = None) -> list[_Unit]:
    """Pieces of a unit that fit, cut on token boundaries, preferably before a space so that no word
    or number ("500") is cut in two; with `fits`, pieces are also shrunk until fits() accepts them."""
    if unit.tokens <= max_tokens and (fits is None or fits(unit.text)):
        return [unit]
    encoding = token_encoding()
    tokens = encoding.encode_ordinary(unit.text)
    token_bytes = [encoding.decode_single_token_bytes(token) for token in tokens]
    # Cutting before a UTF-8 continuation byte would split a character ("µ") between two pieces.
    char_cuts = [k for k in range(1, len(tokens)) if not 0x80 <= token_bytes[k][0] <= 0xBF]
    word_cuts = [k for k in char_cuts if token_bytes[k][:1].isspace()]
    pieces: list[_Unit] = []
    start = 0
    while start < len(tokens):
        end = min(start + max_tokens, len(tokens))
        if end < len(tokens):
            end = _last_cut(word_cuts, start, end) or _last_cut(char_cuts, start, end) or end
        text = " ".join(encoding.decode(tokens[start:end]).split())
        while text and fits is not None and not fits(text):
            shorter = _last_cut(word_cuts, start, end - 1) or _last_cut(char_cuts, start, end - 1)
            if shorter is None:
                raise ValueError("model_max_tokens is too small to hold even a single token")
            end = shorter
            text = " ".join(encoding.decode(tokens[start:end]).split())
        if text:
            pieces.append(_Unit(text, count_tokens(text), unit.page, unit.starts_block and not pieces))
        start = end
    return pieces


def _last_cut(cuts: list[int], start: int, end: int) -> int | None:
    """The largest cut position in (start, end]."""
    index = bisect_right(cuts, end) - 1
    return cuts[index] if index >= 0 and cuts[index] > start else None


def _pack(
    units: list[_Unit], *, max_tokens: int, overlap_tokens: int, fits: Callable[[str], bool]
) -> list[list[_Unit]]:
    """Greedy packing of whole units; the estimate (sum of unit tokens) is checked exactly per chunk."""
    pending = deque(units)
    groups: list[list[_Unit]] = []
    carried: list[_Unit] = []
    while pending:
        # A new page starts a new chunk (without overlap from the last page), so a chunk's page is the page
        # its text is on; a sentence running onto the next page stays whole, with the page it starts on.
        group = list(carried) if carried and carried[-1].page == pending[0].page else []
        fresh = 0
        while pending:
            if fresh and pending[0].page != group[-1].page:
                break
            estimate = sum(unit.tokens for unit in group) + pending[0].tokens
            if estimate <= max_tokens or not group:
                group.append(pending.popleft())
                fresh += 1
            elif fresh == 0:
                group.pop(0)  # the overlap makes room for at least one new sentence
            else:
                break
        fitting = fits(_join(group))
        while not fitting and fresh > 1:
            pending.appendleft(group.pop())
            fresh -= 1
            fitting = fits(_join(group))
        while not fitting and len(group) > fresh:
            group.pop(0)
            fitting = fits(_join(group))
        if not fitting:  # one unit the embedder's tokenizer finds too long: cut it finer
            pending.extendleft(reversed(_split_long(group.pop(), max_tokens, fits)))
            carried = group
            continue
        groups.append(group)
        carried = _overlap(group, overlap_tokens)
    return groups


def _overlap(group: list[_Unit], overlap_tokens: int) -> list[_Unit]:
    """Trailing whole sentences of a chunk, up to overlap_tokens, never the whole chunk."""
    tail: list[_Unit] = []
    total = 0
    for unit in reversed(group[1:]):
        total += unit.tokens
        if total > overlap_tokens:
            break
        tail.insert(0, unit)
    return tail


def _join(units: list[_Unit]) -> str:
    parts: list[str] = []
    for unit in units:
        if parts:
            parts.append("\n" if unit.starts_block else " ")
        parts.append(unit.text)
    return "".join(parts)
