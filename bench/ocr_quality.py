"""OCR quality and speed: text PDFs rasterized and read by Tesseract, compared with their own text layer.

    .venv/bin/python bench/ocr_quality.py [--pdf-dir ../shared/eval/pdf] [--max-pages 20] [--lang eng+deu]

Each page with a text layer (pypdf, as Extract Text reads it, ruled tables left as lines) is rendered with
pypdfium2 and read by the local OCR adapter exactly as `Start OCR` builds it (TesseractOcr with its DPI,
VOICEASSIST_OCR_PAGE_SECONDS and VOICEASSIST_OCR_LANGUAGES unless --lang is given); a page over the time
limit counts as failed, as it would fail the job. Character error rate = Levenshtein distance / reference
length, after the same normalisation on both sides: NFKC (ligatures), one space for any white space (line
breaks are layout), a table of contents' dot leaders as "..."; the corpus figure sums distances and lengths
over pages. Scripts the installed Tesseract models cannot read (Arabic here) are reported but left out of the
corpus figures.

Maths pages are reported apart, not dropped: a page is one when at least 1 token in 20 of its text layer is a
formula (an operator or bracket inside a token, a maths symbol, or a control character: a glyph of a TeX maths
font without a Unicode map, which the text layer holds as "2" for "∈", ";" for "," or "f" for "{"). OCR reads
what is printed, so those pages score the text layer's mapping, not the OCR. `error_kinds` splits the distance
by a word-level diff (approximate: each changed run of words is scored and classed once).
pages_per_second counts rasterizing and recognition, one page at a time, one thread (pages_per_cpu_second: the
same per CPU second, which a busy machine does not change). Prints JSON.
"""

from __future__ import annotations

import argparse
import difflib
import json
import logging
import re
import shutil
import time
import unicodedata
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

from voiceassist.adapters.local.tesseract_ocr import DPI, TesseractOcr
from voiceassist.errors import ExtractionError
from voiceassist.ingest.extraction_pdf import pdf_pages
from voiceassist.ingest.references import split_references
from voiceassist.settings import settings_from_env

PDF_DIR = next((path for parent in Path(__file__).resolve().parents[1:3]
                if (path := parent.parent / "shared/eval/pdf").is_dir()), Path("../shared/eval/pdf"))
MIN_PAGE_CHARS = 20  # pages with less text (form labels, a page number) say nothing about OCR quality
MATHS_SHARE = 0.05  # formula tokens per token from which a page is a maths page (prose pages here: <= 0.01)

_DOT_LEADER = re.compile(r"(?:\.\s*){3,}")
_OPERATORS = frozenset("=<>+;|\\^{}[]")
_DASHES = frozenset("-‐‑‒–—―−")


def normalise(text: str) -> str:
    """NFKC, one space for any white space, and a table of contents' dot leaders as one "..." (layout)."""
    return " ".join(_DOT_LEADER.sub(" ... ", unicodedata.normalize("NFKC", text)).split())


def levenshtein(a: str, b: str) -> int:
    """Edit distance, one numpy row per character of `a`: insertions fold in with a running minimum."""
    if not a or not b:
        return max(len(a), len(b))
    codes = np.frombuffer(b.encode("utf-32-le"), dtype=np.uint32)
    offsets = np.arange(len(b) + 1, dtype=np.int64)
    row = offsets.copy()
    for i, char in enumerate(a, start=1):
        substitute = row[:-1] + (codes != ord(char))
        delete = row[1:] + 1
        candidate = np.empty_like(row)
        candidate[0] = i
        candidate[1:] = np.minimum(substitute, delete)
        row = np.minimum.accumulate(candidate - offsets) + offsets  # row[j] = min_k candidate[k] + (j - k)
    return int(row[-1])


def latin_script(text: str) -> bool:
    letters = [ch for ch in text if ch.isalpha()]
    return bool(letters) and sum("LATIN" in unicodedata.name(ch, "") for ch in letters) / len(letters) > 0.9


def is_formula(token: str) -> bool:
    """A token of a formula: a maths symbol or control character, an operator, or a bracket inside it (f(x))."""
    core = token.strip(".,:!?\"'“”„")
    if any(unicodedata.category(ch) in ("Cc", "Sm") or ch in _OPERATORS for ch in core):
        return True
    inner = core.strip("()")
    return "(" in inner or ")" in inner


def is_maths_page(expected: str) -> bool:
    tokens = expected.split()
    return bool(tokens) and sum(map(is_formula, tokens)) / len(tokens) >= MATHS_SHARE


def error_kinds(expected: str, found: str) -> Counter[str]:
    """The distance of a page split by kind, over the runs of words a word-level diff finds changed."""
    kinds: Counter[str] = Counter()
    old, new = expected.split(" "), found.split(" ")
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag != "equal":
            was, read = " ".join(old[i1:i2]), " ".join(new[j1:j2])
            kinds[_error_kind(was, read)] += levenshtein(was, read)
    return kinds


def _error_kind(was: str, read: str) -> str:
    if was.replace(" ", "") == read.replace(" ", ""):
        return "word_spacing"
    if "".join("-" if ch in _DASHES else ch for ch in was) == "".join("-" if ch in _DASHES else ch for ch in read):
        return "dash_kind"
    if any(is_formula(token) for token in was.split()):
        return "formula"
    if was.replace(" ", "").isdigit() and not read:
        return "page_number_missed"
    if "..." in was or "..." in read:
        return "dot_leaders"
    if not was or not read:
        return "text_missed" if not read else "text_added"
    return "misread"


def measure(pdf_dir: Path, *, max_pages: int, language: str | None) -> dict[str, Any]:
    settings = settings_from_env()
    language = language or settings.ocr_languages
    files: list[dict[str, Any]] = []
    totals: Counter[str] = Counter()
    kinds: Counter[str] = Counter()
    failed: list[str] = []
    seconds = cpu_seconds = 0.0
    executable = shutil.which("tesseract")
    if executable is None:
        raise SystemExit("tesseract-ocr is not installed (apt-get install tesseract-ocr)")
    for path in sorted(pdf_dir.glob("*/*.pdf")):
        data = path.read_bytes()
        try:
            pages, _references = split_references(pdf_pages(data, max_pages=2000, max_seconds=120, tables=False))
        except ExtractionError as failure:
            files.append({"file": path.name, "skipped": failure.reason[:80]})
            continue
        text_pages = [page for page in pages if len(normalise(page.text)) >= MIN_PAGE_CHARS][:max_pages]
        if not text_pages:
            files.append({"file": path.name, "skipped": "no text layer to compare with"})
            continue
        ocr = TesseractOcr(lambda _key, data=data: data, page_seconds=settings.ocr_page_seconds, language=language)
        latin = latin_script(" ".join(page.text for page in text_pages))
        row: Counter[str] = Counter()
        for page in text_pages:
            started, cpu_started = time.perf_counter(), _cpu_seconds()
            try:
                read = ocr.read_page(executable, data, page.number or 1).text
            except ExtractionError as failure:
                failed.append(f"{path.name}: {failure.reason}")
                read = ""
            seconds += time.perf_counter() - started
            cpu_seconds += _cpu_seconds() - cpu_started
            expected, found = normalise(page.text), normalise(read)
            distance, part = levenshtein(expected, found), "maths" if is_maths_page(expected) else "text"
            row.update({"distance": distance, "chars": len(expected), "pages": 1, f"{part}_pages": 1})
            if latin:
                totals.update({f"{part}_distance": distance, f"{part}_chars": len(expected), f"{part}_pages": 1})
                kinds.update(error_kinds(expected, found))
        files.append({"file": path.name, "pages": row["pages"], "maths_pages": row["maths_pages"],
                      "chars": row["chars"], "cer": _rate(row["distance"], row["chars"]), "in_corpus_cer": latin})
    distance, chars = totals["text_distance"] + totals["maths_distance"], totals["text_chars"] + totals["maths_chars"]
    pages = sum(file.get("pages", 0) for file in files)
    return {
        "benchmark": "ocr_quality", "pdf_dir": str(pdf_dir), "dpi": DPI, "max_pages_per_file": max_pages,
        "engine": "tesseract " + _tesseract_version(executable), "language": language,
        "page_seconds_limit": settings.ocr_page_seconds, "pages": pages, "failed_pages": failed,
        "corpus_cer": _rate(distance, chars), "corpus_chars": chars,
        "cer_without_maths_pages": _rate(totals["text_distance"], totals["text_chars"]),
        "text_pages": totals["text_pages"], "text_chars": totals["text_chars"],
        "cer_maths_pages": _rate(totals["maths_distance"], totals["maths_chars"]),
        "maths_pages": totals["maths_pages"], "maths_chars": totals["maths_chars"],
        "error_kinds": {kind: {"distance": count, "share_of_errors": _rate(count, sum(kinds.values()))}
                        for kind, count in kinds.most_common()},
        "pages_per_second": round(pages / seconds, 2) if seconds else None,
        "pages_per_cpu_second": round(pages / cpu_seconds, 2) if cpu_seconds else None, "files": files,
    }


def _rate(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


def _cpu_seconds() -> float:
    """CPU time of this process and its finished children (Tesseract): a figure a busy machine leaves alone."""
    import resource

    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _tesseract_version(executable: str) -> str:
    import subprocess

    output = subprocess.run([executable, "--version"], capture_output=True, text=True, check=False).stdout
    return output.split("\n")[0].removeprefix("tesseract ").strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pdf-dir", type=Path, default=PDF_DIR)
    parser.add_argument("--max-pages", type=int, default=20, help="pages per file (the 117-page one dominates)")
    parser.add_argument("--lang", default=None, help='Tesseract models, e.g. "eng+deu" (tesseract-ocr-deu); '
                        "default VOICEASSIST_OCR_LANGUAGES")
    args = parser.parse_args()
    logging.disable(logging.WARNING)  # pypdf warns loudly about the damaged samples
    print(json.dumps(measure(args.pdf_dir, max_pages=args.max_pages, language=args.lang), indent=2))


if __name__ == "__main__":
    main()
