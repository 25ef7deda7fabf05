"""Text cleaning between extraction and chunking: repair encodings, drop page furniture, rejoin words.

The one rule above all: a dose, a unit or a number never changes meaning. That is why NFKC is not applied
blindly (it turns "10⁹/L" into "109/L" and "1½" into "11⁄2"), why a number-only line is removed only when
it behaves like a page number across pages, and why a line-end hyphen is kept unless joining the two halves
is clearly a word.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter, defaultdict
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # models reads questions through normalize_text: this module needs none of it at run time
    from voiceassist.models import Page

# ---- encoding repair ------------------------------------------------------------------------------

# UTF-8 bytes decoded as Windows-1252 ("â€™" for "’"); the five bytes cp1252 leaves undefined decode as
# Latin-1 control characters, so both spellings are recognised.
_CP1252 = {b: bytes([b]).decode("cp1252", errors="ignore") or chr(b) for b in range(0x80, 0x100)}
_BYTE_OF = {char: byte for byte, char in _CP1252.items()}
_CONTINUATION = "[" + "".join(re.escape(_CP1252[b]) for b in range(0x80, 0xC0)) + "]"
_MOJIBAKE = re.compile(f"[\u00c2-\u00df]{_CONTINUATION}|[\u00e0-\u00ef]{_CONTINUATION}{{2}}")
# A repair must produce a character plausible in clinical text (Latin, Greek, punctuation, symbols,
# ligatures); anything else (NKo, Hebrew, CJK) means the "mojibake" was real text, left alone.
_PLAUSIBLE_REPAIRS = ((0x00A0, 0x024F), (0x0370, 0x03FF), (0x2000, 0x2BFF), (0xFB00, 0xFB06))

_INVISIBLE = dict.fromkeys(map(ord, "\u00ad\u200b\u2060\ufeff"))  # soft hyphen, zero-width, BOM
_SOFT_HYPHEN_BREAK = re.compile("\u00ad[ \t]*\n[ \t]*")
_LINE_SEPARATORS = re.compile("\r\n|[\u2028\u2029\x0b\x0c\x85]")
# Other control characters are glyphs a PDF font mapped wrongly (pypdf yields "\r" for a math gamma).
_CONTROL_CHARACTERS = re.compile("[\x00-\x08\x0e-\x1f\x7f\r]")
_HORIZONTAL_SPACE = re.compile(r"[^\S\n]+")
_BLANK_LINES = re.compile(r"\n{3,}")
# Share of non-space characters that may be unreadable (controls, private use, U+FFFD) before a text is
# judged undecodable: a few stray symbols are normal, a garbled font or a binary file is not.
_MAX_UNREADABLE_SHARE = 0.2

# ---- page furniture -------------------------------------------------------------------------------

_EDGE_LINES = 3  # running headers and footers live in the first and last lines of a page
_MIN_PAGES_FOR_RUNNING_LINES = 3
_RUNNING_LINE_SHARE = 0.3  # a line at the edge of at least this share of pages is furniture
_PAGE_NUMBER = re.compile(
    r"(?:page|pg\.?|p\.)\s*\d{1,4}(?:\s*(?:of|/)\s*\d{1,4})?|[-–—]\s*\d{1,4}\s*[-–—]", re.IGNORECASE
)
_PAGE_OF_PAGES = re.compile(r"(\d{1,4})\s*(?:of|/)\s*(\d{1,4})", re.IGNORECASE)
_BARE_NUMBER = re.compile(r"\d{1,4}")
_DIGITS = re.compile(r"\d+")

# ---- hyphenation ----------------------------------------------------------------------------------

# Letter runs are anchored at a word start ("(?<![^\W\d_])") so the scan stays linear in the text length.
_HYPHENATED_BREAK = re.compile(r"(?<![^\W\d_])([^\W\d_]+)[-\u2010]\n[ \t]*([^\W\d_]+)")
_HYPHEN_BEFORE_BREAK = re.compile(r"(?<=[^\W_])([-\u2010–])\n[ \t]*(?=[^\W_])")
_BROKEN_WORD = re.compile(r"(?<![^\W\d_])[^\W\d_]+[-\u2010](?:\n[ \t]*[^\W\d_]+|$)")
_LINE_END_HYPHEN = re.compile(r"[-\u2010–]\n|[-\u2010]$")
_WORD = re.compile(r"[^\W\d_]+(?:[-\u2010][^\W\d_]+)*")
# First halves that make real compounds ("beta-blocker", "dose-dependent", "follow-up").
_COMPOUND_FIRST_HALVES = frozenset(
    {"alpha", "beta", "gamma", "delta", "kappa", "non", "self", "well", "long", "short", "low", "high"}
    | {"dose", "time", "age", "first", "second", "third", "all", "cross", "follow", "half", "full"}
    | {"double", "single", "small", "large", "left", "right", "end", "open", "drug", "placebo"}
)


def normalize_text(text: str) -> str:
    """Unicode and white-space normalisation that never changes what a number or unit means.

    Apply it to queries too, so both sides of a search spell "ﬁbrosis" and "µg" the same way.
    """
    text = _CONTROL_CHARACTERS.sub(" ", _LINE_SEPARATORS.sub("\n", text))
    text = _SOFT_HYPHEN_BREAK.sub("", text).translate(_INVISIBLE)
    text = _MOJIBAKE.sub(_repair_mojibake, text)
    if not text.isascii():
        text = _nfkc_keeping_meaning(text)
    lines = (_HORIZONTAL_SPACE.sub(" ", line).strip() for line in text.split("\n"))
    return _BLANK_LINES.sub("\n\n", "\n".join(lines)).strip()


def clean_pages(pages: list[Page]) -> list[Page]:
    """Cleaned copies of the pages, same count and numbers (a page may end up empty)."""
    texts = [normalize_text(page.text) for page in pages]
    numbers = [page.number for page in pages]
    if all(number is not None for number in numbers):
        texts = _remove_page_furniture(texts, [n for n in numbers if n is not None])
    if any(_LINE_END_HYPHEN.search(text) for text in texts):
        vocabulary, compounds = _vocabulary(texts)
        texts = [_dehyphenate(text, vocabulary, compounds) for text in texts]
        if all(number is not None for number in numbers):
            texts = _rejoin_words_across_pages(texts, vocabulary, compounds)
    return [
        page.model_copy(update={"text": _BLANK_LINES.sub("\n\n", text).strip(),
                                "heading": _clean_heading(page.heading)})  # keeps the page's OCR confidence
        for page, text in zip(pages, texts, strict=True)
    ]


def _clean_heading(heading: str | None) -> str | None:
    """A PDF page lists its headings one per line (see voiceassist.ingest.headings); each is cleaned on its own."""
    if not heading:
        return None
    lines = (" ".join(normalize_text(line).split()) for line in heading.split("\n"))
    return "\n".join(line for line in lines if line) or None


def is_readable(text: str) -> bool:
    """False when too many characters are unreadable: a garbled font or a binary file, not a stray symbol."""
    visible = [ch for ch in text if not ch.isspace()]
    unreadable = sum(1 for ch in visible if ch == "\ufffd" or unicodedata.category(ch) in ("Cc", "Co", "Cs"))
    return unreadable <= _MAX_UNREADABLE_SHARE * len(visible)


# --------------------------------------------------------------------------- unicode


def _repair_mojibake(match: re.Match[str]) -> str:
    try:
        repaired = bytes(_BYTE_OF[char] for char in match.group()).decode("utf-8")
    except (KeyError, UnicodeDecodeError):
        return match.group()
    code = ord(repaired)
    return repaired if any(low <= code <= high for low, high in _PLAUSIBLE_REPAIRS) else match.group()


def _nfkc_keeping_meaning(text: str) -> str:
    """NFKC (ligatures, full-width forms, odd spaces, "㎎") except where it would change a value."""
    parts: list[str] = []
    start = 0
    for index, char in enumerate(text):
        if not char.isascii() and _must_keep(char):
            parts.append(unicodedata.normalize("NFKC", text[start:index]))
            parts.append(char)
            start = index + 1
    parts.append(unicodedata.normalize("NFKC", text[start:]))
    return "".join(parts)


@lru_cache(maxsize=4096)
def _must_keep(char: str) -> bool:
    """Superscripts, subscripts and fractions carry value ("10⁹", "m²", "1½"); spacing accents would
    turn into a space plus a combining mark."""
    decomposition = unicodedata.decomposition(char)
    if decomposition.startswith(("<super>", "<sub>", "<fraction>")):
        return True
    return unicodedata.normalize("NFKC", char).startswith(" ") and not char.isspace()


# --------------------------------------------------------------------------- page furniture


def _remove_page_furniture(texts: list[str], numbers: list[int]) -> list[str]:
    pages = [text.split("\n") for text in texts]
    labels: list[set[int]] = [set() for _ in pages]
    for lines, number, drop in zip(pages, numbers, labels, strict=True):
        for index in _edge_indexes(lines):
            if _is_page_label(lines[index], number):
                drop.add(index)
    _mark_bare_page_numbers(pages, numbers, labels)
    running: list[set[int]] = [set() for _ in pages]
    _mark_running_lines(pages, numbers, running)
    cleaned = []
    for lines, label_lines, running_lines in zip(pages, labels, running, strict=True):
        drop = label_lines | running_lines
        # A line repeated on every page that is all a page says is content (a slide title, a label).
        if all(index in drop for index, line in enumerate(lines) if line):
            drop = label_lines
        cleaned.append("\n".join(line for index, line in enumerate(lines) if index not in drop))
    return cleaned


def _edge_indexes(lines: list[str], depth: int = _EDGE_LINES) -> list[int]:
    filled = [i for i, line in enumerate(lines) if line]
    return sorted(set(filled[:depth]) | set(filled[-depth:]))


def _is_page_label(line: str, number: int) -> bool:
    if _PAGE_NUMBER.fullmatch(line):
        return True
    of_pages = _PAGE_OF_PAGES.fullmatch(line)
    # "3 / 10" alone is a page label only on page 3; elsewhere it may be a score or a ratio.
    return of_pages is not None and int(of_pages.group(1)) == number <= int(of_pages.group(2))


def _mark_bare_page_numbers(pages: list[list[str]], numbers: list[int], doomed: list[set[int]]) -> None:
    """A number alone on a page's first or last line is a page number when, on at least two pages, it
    follows the page sequence with the same offset (printed page 14 on PDF page 1 is offset 13)."""
    candidates: dict[int, list[tuple[int, int]]] = defaultdict(list)
    for page_index, (lines, number) in enumerate(zip(pages, numbers, strict=True)):
        for line_index in _edge_indexes(lines, depth=1):
            if _BARE_NUMBER.fullmatch(lines[line_index]):
                candidates[int(lines[line_index]) - number].append((page_index, line_index))
    for found in candidates.values():
        if len({page_index for page_index, _ in found}) >= 2:
            for page_index, line_index in found:
                doomed[page_index].add(line_index)


def _mark_running_lines(pages: list[list[str]], numbers: list[int], doomed: list[set[int]]) -> None:
    """Headers and footers: the same line, without digits, at the edge of many pages; or a line that
    differs from page to page only by a number following the page sequence ("Guide 2023 - 14"), strong
    evidence, so that a chapter's running header on a few pages of a long book is found too. A line
    repeated with the same numbers is kept: it may be a dose in a table row carried over each page."""
    with_text = sum(1 for lines in pages if any(lines))
    if with_text < _MIN_PAGES_FOR_RUNNING_LINES:
        return
    occurrences: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for page_index, lines in enumerate(pages):
        seen: set[str] = set()
        for line_index in _edge_indexes(lines):
            shape = _DIGITS.sub("#", lines[line_index].lower())
            if shape not in seen:
                seen.add(shape)
                occurrences[shape].append((page_index, line_index))
    needed_if_identical = max(_MIN_PAGES_FOR_RUNNING_LINES, _RUNNING_LINE_SHARE * with_text)
    for found in occurrences.values():
        if len(found) < _MIN_PAGES_FOR_RUNNING_LINES:
            continue
        numbering = _page_numbering([(pages[p][i], numbers[p]) for p, i in found])
        identical_text = numbering == "identical" and not _DIGITS.search(pages[found[0][0]][found[0][1]])
        if numbering == "follows pages" or (identical_text and len(found) >= needed_if_identical):
            for page_index, line_index in found:
                doomed[page_index].add(line_index)


def _page_numbering(lines_and_pages: list[tuple[str, int]]) -> str | None:
    """'identical' lines, lines whose one varying number 'follows pages' at a fixed offset, or None."""
    values = [[int(d) for d in _DIGITS.findall(line)] for line, _ in lines_and_pages]
    varying = [position for position in range(len(values[0])) if len({v[position] for v in values}) > 1]
    if not varying:
        return "identical"
    if len(varying) > 1:
        return None
    offsets = {v[varying[0]] - page for v, (_, page) in zip(values, lines_and_pages, strict=True)}
    return "follows pages" if len(offsets) == 1 else None


# --------------------------------------------------------------------------- hyphenation


def _vocabulary(texts: list[str]) -> tuple[Counter[str], set[str]]:
    """Words the document itself uses, and the hyphenated compounds it writes on one line."""
    words: Counter[str] = Counter()
    compounds: set[str] = set()
    for text in texts:
        # The halves of a broken word are not words of the document: "treat-\nment" must not vouch for "ment".
        whole_words = _BROKEN_WORD.sub(" ", text.lower())
        for token in _WORD.findall(whole_words):
            parts = token.replace("\u2010", "-").split("-")
            words.update(parts if len(parts) > 1 else [token])
            if len(parts) > 1:
                compounds.add("-".join(parts))
    return words, compounds


def _dehyphenate(text: str, vocabulary: Counter[str], compounds: set[str]) -> str:
    text = _HYPHENATED_BREAK.sub(lambda m: _rejoin(m.group(1), m.group(2), vocabulary, compounds), text)
    return _HYPHEN_BEFORE_BREAK.sub(r"\1", text)  # "IL-\n6", "2.5–\n5 mg": a real hyphen or range


def _rejoin(left: str, right: str, vocabulary: Counter[str], compounds: set[str]) -> str:
    if _is_word_split(left, right, vocabulary, compounds):
        return left + right
    return f"{left}-{right}"


def _is_word_split(left: str, right: str, vocabulary: Counter[str], compounds: set[str]) -> bool:
    """True when "left-" + newline + "right" is one word broken by typesetting ("thera-\npy")."""
    if not (left[-1].islower() and right[0].islower()):
        return False  # "COVID-19", "Non-Hodgkin": capitals and codes keep their hyphen
    joined, compound = (left + right).lower(), f"{left}-{right}".lower()
    if vocabulary[joined]:
        return True
    if compound in compounds or left.lower() in _COMPOUND_FIRST_HALVES:
        return False
    return not (vocabulary[left.lower()] and vocabulary[right.lower()] and len(right) > 2)


def _rejoin_words_across_pages(texts: list[str], vocabulary: Counter[str], compounds: set[str]) -> list[str]:
    """A word hyphenated at the foot of a page is completed on that page, so its text stays searchable."""
    texts = list(texts)
    for index in range(len(texts) - 1):
        texts[index] = texts[index].rstrip()
        tail = re.search(r"([^\W\d_]+)[-\u2010]$", texts[index])
        head = re.match(r"([^\W\d_]+)[ \t]?", texts[index + 1])
        if tail and head and _is_word_split(tail.group(1), head.group(1), vocabulary, compounds):
            texts[index] = texts[index][: tail.start()] + tail.group(1) + head.group(1)
            texts[index + 1] = texts[index + 1][head.end() :]
    return texts
