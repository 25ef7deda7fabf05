"""OCR quality and speed: text PDFs rasterized and read by Tesseract, compared with their own text layer.

    .venv/bin/python bench/ocr_quality.py [--pdf-dir ../shared/eval/pdf] [--max-pages 20] [--dpi 300] [--lang eng]

Each page with a text layer (pypdf, as Extract Text reads it) is rendered with pypdfium2 and read by the local
OCR adapter (TesseractOcr, eng). Character error rate = Levenshtein distance / reference length, after NFKC
and collapsing white space on both sides (line breaks are layout, not content); the corpus figure sums
distances and lengths over pages. Scripts the installed Tesseract models cannot read (Arabic here) are
reported but left out of the corpus figure. pages_per_second counts rasterizing and recognition, one page at
a time, one thread (pages_per_cpu_second: the same per CPU second, which a busy machine does not change).
Prints JSON.
"""

from __future__ import annotations

import argparse
import json
import logging
import re
import shutil
import time
import unicodedata
from pathlib import Path
from typing import Any

import numpy as np

from voiceassist.adapters.local.tesseract_ocr import TesseractOcr
from voiceassist.errors import ExtractionError
from voiceassist.ingest.extraction import PDF, extract

PDF_DIR = next((path for parent in Path(__file__).resolve().parents[1:3]
                if (path := parent.parent / "shared/eval/pdf").is_dir()), Path("../shared/eval/pdf"))
MIN_PAGE_CHARS = 20  # pages with less text (form labels, a page number) say nothing about OCR quality
# A topology lecture script: formulas and figure labels, which the text layer holds as symbols (ℝ², subscripts)
# and OCR reads as letters. Reported on its own (prose_cer leaves it out; corpus_cer keeps it).
MATHEMATICS = {"GeoTopo-komprimiert.pdf"}


_DOT_LEADER = re.compile(r"(?:\.\s*){3,}")


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


def measure(pdf_dir: Path, *, max_pages: int, dpi: int, language: str) -> dict[str, Any]:
    files: list[dict[str, Any]] = []
    distance = reference = pages = 0
    prose_distance = prose_reference = 0
    seconds = cpu_seconds = 0.0
    executable = shutil.which("tesseract")
    if executable is None:
        raise SystemExit("tesseract-ocr is not installed (apt-get install tesseract-ocr)")
    for path in sorted(pdf_dir.glob("*/*.pdf")):
        data = path.read_bytes()
        try:
            document = extract(data, PDF, max_bytes=100 * 1024 * 1024)
        except ExtractionError as failure:
            files.append({"file": path.name, "skipped": failure.reason[:80]})
            continue
        text_pages = [page for page in document.pages if len(normalise(page.text)) >= MIN_PAGE_CHARS][:max_pages]
        if not text_pages:
            files.append({"file": path.name, "skipped": "no text layer to compare with"})
            continue
        ocr = TesseractOcr(lambda _key, data=data: data, dpi=dpi, page_seconds=120, language=language)
        file_distance = file_reference = 0
        for page in text_pages:
            started, cpu_started = time.perf_counter(), _cpu_seconds()
            read = ocr.read_page(executable, data, page.number or 1)
            seconds += time.perf_counter() - started
            cpu_seconds += _cpu_seconds() - cpu_started
            expected, found = normalise(page.text), normalise(read.text)
            file_distance += levenshtein(expected, found)
            file_reference += len(expected)
        latin = latin_script(" ".join(page.text for page in text_pages))
        files.append({"file": path.name, "pages": len(text_pages), "chars": file_reference,
                      "cer": round(file_distance / file_reference, 4), "in_corpus_cer": latin})
        pages += len(text_pages)
        if latin:
            distance += file_distance
            reference += file_reference
            if path.name not in MATHEMATICS:
                prose_distance += file_distance
                prose_reference += file_reference
    return {
        "benchmark": "ocr_quality", "pdf_dir": str(pdf_dir), "dpi": dpi, "max_pages_per_file": max_pages,
        "engine": "tesseract " + _tesseract_version(executable), "language": language, "pages": pages,
        "corpus_cer": round(distance / reference, 4) if reference else None, "corpus_chars": reference,
        "prose_cer": round(prose_distance / prose_reference, 4) if prose_reference else None,
        "prose_chars": prose_reference,
        "pages_per_second": round(pages / seconds, 2) if seconds else None,
        "pages_per_cpu_second": round(pages / cpu_seconds, 2) if cpu_seconds else None, "files": files,
    }


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
    parser.add_argument("--dpi", type=int, default=300)
    parser.add_argument("--lang", default="eng", help='Tesseract models, e.g. "eng+deu" (tesseract-ocr-deu)')
    args = parser.parse_args()
    logging.disable(logging.WARNING)  # pypdf warns loudly about the damaged samples
    print(json.dumps(measure(args.pdf_dir, max_pages=args.max_pages, dpi=args.dpi, language=args.lang), indent=2))


if __name__ == "__main__":
    main()
