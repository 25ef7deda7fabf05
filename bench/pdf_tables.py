"""PDF tables: what pdfplumber's ruled-lines finder takes out of the text flow, and at what CPU cost.

    .venv/bin/python bench/pdf_tables.py [--pdf-dir ../shared/eval/pdf] [--max-pages 20]

For every page (or the first --max-pages) of every PDF: the tables `find_tables` returns with its defaults
(lines and rectangle edges), with `lines_strict` (drawn lines only, what extraction uses), and those of
`lines_strict` that pass voiceassist.ingest.pdf_tables.is_table (the content rules a grid must meet before it
replaces the page's lines): each with its file, page and size, to be judged by eye as real or false. CPU
seconds of each pass and of pypdf's text extraction over the same pages. Prints JSON.
"""

from __future__ import annotations

import argparse
import io
import json
import logging
import time
from pathlib import Path
from typing import Any

from pypdf import PdfReader

from voiceassist.ingest.pdf_tables import TABLE_SETTINGS, is_table

PDF_DIR = next((path for parent in Path(__file__).resolve().parents[1:3]
                if (path := parent.parent / "shared/eval/pdf").is_dir()), Path("../shared/eval/pdf"))
SETTINGS: dict[str, dict[str, str]] = {
    "default": {},
    "lines_strict": TABLE_SETTINGS,
}


def pdfplumber_pass(paths: list[Path], settings: dict[str, str], max_pages: int) -> dict[str, Any]:
    import pdfplumber

    found: list[dict[str, Any]] = []
    started = time.process_time()
    for path in paths:
        try:
            with pdfplumber.open(path) as pdf:
                for page in pdf.pages[:max_pages]:
                    for table in page.find_tables(settings):
                        rows = table.extract()
                        found.append({"file": path.name, "page": page.page_number, "rows": len(rows),
                                      "columns": max(map(len, rows), default=0), "table_like": is_table(rows),
                                      "first_rows": json.dumps(rows[:2], ensure_ascii=False)[:160]})
        except Exception as exc:  # damaged or encrypted samples: reported, not fatal
            found.append({"file": path.name, "error": type(exc).__name__})
    return {"cpu_seconds": round(time.process_time() - started, 2), "tables": found}


def pypdf_seconds(paths: list[Path], max_pages: int) -> float:
    started = time.process_time()
    for path in paths:
        try:
            reader = PdfReader(io.BytesIO(path.read_bytes()))
            for page in reader.pages[:max_pages]:
                page.extract_text()
        except Exception:  # noqa: S112 - the same damaged samples
            continue
    return round(time.process_time() - started, 2)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pdf-dir", type=Path, default=PDF_DIR)
    parser.add_argument("--max-pages", type=int, default=10_000, help="pages per file (default: all)")
    args = parser.parse_args()
    logging.disable(logging.WARNING)
    paths = sorted(args.pdf_dir.glob("*/*.pdf"))
    result: dict[str, Any] = {"benchmark": "pdf_tables", "files": len(paths), "max_pages_per_file": args.max_pages,
                              "pypdf_cpu_seconds": pypdf_seconds(paths, args.max_pages)}
    for name, settings in SETTINGS.items():
        result[name] = pdfplumber_pass(paths, settings, args.max_pages)
    strict = result["lines_strict"]["tables"]
    result["lines_strict_table_like"] = [table for table in strict if table.get("table_like")]
    print(json.dumps(result, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
