"""Section headings of a PDF, from the typography pypdf reports for each run of text.

A line is a heading when all of it is set larger than the body text (or bold, for a numbered heading or a
standard section name such as "Methods") and it reads like one: short, capitalised, no closing punctuation.
Precision comes first, because a wrong section on a citation is worse than none: running heads, table of
contents entries, captions, the title block of page 1 and anything in small print are never headings.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Any

from voiceassist.ingest.headings import HEADING_MAX_WORDS, has_heading_shape

# A heading is set at least this much larger than the body text (LaTeX \subsection: 1.2x), or a little
# larger and bold (Word's Heading 3: 12 pt bold over 11 pt body).
_LARGER = 1.15
_LARGER_BOLD = 1.08
_SIZE_TOLERANCE = 0.3  # points: the same size set through different text matrices differs by rounding
_MAX_HEADING_LINES = 3
_WRAPPED_LINE_GAP = 1.6  # font sizes between the baselines of a heading wrapped onto a second line
_EDGE_LINES = 2  # running heads and footers sit on a page's first or last lines
_RUNNING_HEAD_GAP = 2  # pages: running heads repeat on every page, or on every other one
# Bold by name: "Arial-BoldMT", "Helvetica-Bold", "Calibri,Bold", TeX's "CMBX10" and "SFBX1095" (bold extended).
_BOLD_NAME = re.compile(r"bold|black|heavy|demi|(?:cm|sf|ec|lm)(?:b[x\d]|sx|ssbx)|,b\b|-b\b", re.IGNORECASE)
_FORCE_BOLD_FLAG = 1 << 18
_NUMBERED = re.compile(r"(?:\d{1,2}(?:\.\d{1,2}){0,3}\.?|[IVX]{1,4}\.|[A-Z]\.)\s+\S")
_SECTION_NAMES = frozenset(
    {"abstract", "summary", "background", "introduction", "objective", "objectives", "scope", "purpose"}
    | {"methods", "methodology", "materials and methods", "results", "findings", "discussion"}
    | {"conclusion", "conclusions", "limitations", "references", "bibliography", "acknowledgements"}
    | {"acknowledgments", "appendix", "glossary", "abbreviations", "recommendations", "key recommendations"}
    | {"indications", "indications and usage", "dosage", "dosing", "dosage and administration"}
    | {"contraindications", "warnings", "precautions", "warnings and precautions", "adverse reactions"}
    | {"adverse effects", "side effects", "drug interactions", "interactions", "overdosage", "monitoring"}
    | {"pharmacology", "clinical pharmacology", "pharmacokinetics", "mechanism of action", "diagnosis"}
    | {"treatment", "management", "prevention", "follow-up", "definitions", "epidemiology", "prognosis"}
    | {"use in specific populations", "pregnancy", "how supplied", "storage and handling", "contents"}
    | {"table of contents", "preface", "foreword", "index"}
)
_NOT_HEADINGS = re.compile(
    r"(?:fig(?:ure)?|tab(?:le)?|source|note|notes|key|legend|chart|box|panel|page|copyright|downloaded)\b"
    r"|[©(\[*•†‡§]|https?:|www\.",
    re.IGNORECASE,
)
# A table of contents entry: dot leaders, or a section number with a page number ("2.1 Methods 14").
_CONTENTS_ENTRY = re.compile(r"\.{3,}|(?:\.\s){3,}|…|^\d[\d.]*\s.*\s\d{1,4}$")


@dataclass(frozen=True, slots=True)
class Line:
    """A line of a page as pypdf laid it out, with the typography of its visible characters."""

    text: str
    size: float  # the smallest character size on the line
    bold: bool  # every visible character is in a bold font
    chars_by_size: tuple[tuple[float, int], ...]  # visible characters per size (mostly one size)
    y: float  # baseline of the line's first visible text, in points from the bottom of the page


class LineCollector:
    """pypdf visitor_text callback that rebuilds the page's lines with their font sizes and weights.

    It never fails the extraction: a page whose text runs it cannot measure simply yields no lines, so
    no headings."""

    def __init__(self) -> None:
        self.lines: list[Line] = []
        self._failed = False
        self._parts: list[str] = []
        self._sizes: list[tuple[float, int]] = []
        self._y = 0.0
        self._bold = True
        self._bold_fonts: dict[int, bool] = {}

    def visit(self, text: str, cm: list[float], tm: list[float], font: Any, font_size: float) -> None:
        if self._failed:
            return
        try:
            self._add(text, cm, tm, font, font_size)
        except Exception:  # pypdf's callback arguments come from an untrusted file
            self._failed = True

    def finish(self) -> list[Line]:
        if self._failed:
            return []
        self._end_line()
        return self.lines

    def _add(self, text: str, cm: list[float], tm: list[float], font: Any, font_size: float) -> None:
        pieces = text.split("\n")
        for index, piece in enumerate(pieces):
            if index:
                self._end_line()
            if piece.strip():
                self._parts.append(piece)
                visible = sum(not ch.isspace() for ch in piece)
                if not self._sizes:
                    self._y = float(tm[4] * cm[1] + tm[5] * cm[3] + cm[5])
                self._sizes.append((_rendered_size(cm, tm, font_size), visible))
                self._bold = self._bold and self._is_bold(font)
            elif piece:
                self._parts.append(piece)

    def _end_line(self) -> None:
        text = " ".join("".join(self._parts).split())
        if text and self._sizes:
            chars: Counter[float] = Counter()
            for size, visible in self._sizes:
                chars[size] += visible
            self.lines.append(Line(text, min(chars), self._bold, tuple(chars.items()), self._y))
        self._parts, self._sizes, self._bold = [], [], True

    def _is_bold(self, font: Any) -> bool:
        if font is None:
            return False
        known = self._bold_fonts.get(id(font))
        if known is None:
            known = self._bold_fonts[id(font)] = _font_is_bold(font)
        return known


def _rendered_size(cm: list[float], tm: list[float], font_size: float) -> float:
    """Font size in points on the page: the Tf size scaled by the text and current transformation matrices."""
    a, b = tm[0] * cm[0] + tm[1] * cm[2], tm[0] * cm[1] + tm[1] * cm[3]
    c, d = tm[2] * cm[0] + tm[3] * cm[2], tm[2] * cm[1] + tm[3] * cm[3]
    return round(abs(font_size) * abs(a * d - b * c) ** 0.5, 1)


def _font_is_bold(font: Any) -> bool:
    try:
        name = str(font.get("/BaseFont", "")).split("+")[-1]
        if _BOLD_NAME.search(name):
            return True
        descriptor = font.get("/FontDescriptor")
        descriptor = descriptor.get_object() if descriptor is not None else None
        if descriptor is None:
            return False
        weight = float(descriptor.get("/FontWeight", 400))
        return weight >= 600 or bool(int(descriptor.get("/Flags", 0)) & _FORCE_BOLD_FLAG)
    except Exception:  # an odd font dictionary only costs the bold signal
        return False


@dataclass(frozen=True, slots=True)
class _Candidate:
    page: int  # index into the document's pages
    line: int  # index of the heading's first line on its page
    text: str
    at_edge: bool


def detect_headings(layouts: list[list[Line]]) -> list[list[str]]:
    """Per page, the section headings that start on it, in reading order."""
    body_size, body_bold = _body_style(layouts)
    found: list[list[str]] = [[] for _ in layouts]
    if body_size is None:
        return found
    candidates = [
        candidate
        for page_index, lines in enumerate(layouts)
        for candidate in _page_candidates(page_index, lines, body_size, body_bold)
    ]
    candidates = _without_title_block(_without_running_heads(candidates), layouts[0], body_size, body_bold)
    for candidate in candidates:
        found[candidate.page].append(candidate.text)
    return found


def _body_style(layouts: list[list[Line]]) -> tuple[float | None, bool]:
    """The size and weight most of the document's characters are set in."""
    sizes: Counter[float] = Counter()
    bold = 0
    for lines in layouts:
        for line in lines:
            for size, chars in line.chars_by_size:
                sizes[size] += chars
                bold += chars if line.bold else 0
    if not sizes:
        return None, False
    return sizes.most_common(1)[0][0], bold > sum(sizes.values()) / 2


def _page_candidates(page_index: int, lines: list[Line], body_size: float, body_bold: bool) -> list[_Candidate]:
    """Heading lines of one page; consecutive lines in the same heading style make one heading."""
    candidates: list[_Candidate] = []
    index = 0
    while index < len(lines):
        style = _heading_style(lines[index], body_size, body_bold)
        if style is None:
            index += 1
            continue
        end = index + 1
        while (end < len(lines) and end - index < _MAX_HEADING_LINES
               and _heading_style(lines[end], body_size, body_bold) == style
               and abs(lines[end].size - lines[index].size) <= _SIZE_TOLERANCE
               and abs(lines[end - 1].y - lines[end].y) <= _WRAPPED_LINE_GAP * lines[end].size):
            end += 1
        text = " ".join(line.text for line in lines[index:end])
        if _reads_like_heading(text, larger=style == "larger"):
            at_edge = index < _EDGE_LINES or end > len(lines) - _EDGE_LINES
            candidates.append(_Candidate(page_index, index, text, at_edge))
        index = end
    return candidates


def _heading_style(line: Line, body_size: float, body_bold: bool) -> str | None:
    bold = line.bold and not body_bold
    if line.size >= body_size * (_LARGER_BOLD if bold else _LARGER):
        return "larger"
    if bold and line.size >= body_size - _SIZE_TOLERANCE:
        return "bold"
    return None


def _reads_like_heading(text: str, *, larger: bool) -> bool:
    question = text.removesuffix("?")  # "What is sepsis?" is a heading in patient information
    if not has_heading_shape(question, max_words=HEADING_MAX_WORDS * 2 if larger else HEADING_MAX_WORDS):
        return False
    letters = sum(ch.isalpha() for ch in text)
    if letters < 3 or letters < 0.6 * sum(not ch.isspace() for ch in text):
        return False  # "2.5 mg/kg", "p < 0.001": numbers set large are figures or tables
    if _NOT_HEADINGS.match(text) or _CONTENTS_ENTRY.search(text):
        return False
    if larger:
        return True
    # Bold at body size is also emphasis, a table's header row or a lead-in: only a numbered heading or
    # a standard section name counts.
    return bool(_NUMBERED.match(text)) or _is_section_name(text)


def _is_section_name(text: str) -> bool:
    return text.rstrip(":").lower() in _SECTION_NAMES


def _without_running_heads(candidates: list[_Candidate]) -> list[_Candidate]:
    """A heading-styled line repeated at the edge of nearby pages is a running head: only its first
    occurrence (often the real heading) is kept. "Exercises" opening every chapter is not a running head."""
    last_seen: dict[str, int] = {}
    kept: list[_Candidate] = []
    for candidate in candidates:
        if candidate.at_edge:
            shape = _shape(candidate.text)
            previous = last_seen.get(shape)
            last_seen[shape] = candidate.page
            if previous is not None and 0 < candidate.page - previous <= _RUNNING_HEAD_GAP:
                continue
        kept.append(candidate)
    return kept


def _without_title_block(candidates: list[_Candidate], first_page: list[Line], body_size: float,
                         body_bold: bool) -> list[_Candidate]:
    """Title, authors and date above the first paragraph of page 1 are the document's metadata, not sections;
    a standard section name there ("Abstract") still is one."""
    first_paragraph = next(
        (index for index, line in enumerate(first_page)
         if len(line.text.split()) >= 3 and _heading_style(line, body_size, body_bold) is None),
        len(first_page),
    )
    return [
        c for c in candidates
        if c.page != 0 or c.line > first_paragraph or _is_section_name(c.text) or _NUMBERED.match(c.text)
    ]


def _shape(text: str) -> str:
    return re.sub(r"\d+", "#", text.lower())
