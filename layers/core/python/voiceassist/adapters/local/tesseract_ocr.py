"""PageOcr with Tesseract (Debian's `tesseract-ocr`): pages rasterized with pypdfium2, read one at a time.

The run is finished when `start` returns (the local pipeline runs in-process, so there is nothing to poll).
Each page gets its own time limit; a page Tesseract cannot read fails the job naming that page.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable, Sequence

from voiceassist.errors import ExtractionError
from voiceassist.models import OcrPage, OcrRun

DPI = 300  # Tesseract's documented sweet spot for body text
UNAVAILABLE = "OCR unavailable here: install tesseract-ocr (Debian/Ubuntu: apt-get install tesseract-ocr)"


def rasterize(data: bytes, number: int, *, dpi: int = DPI) -> bytes:
    """Page `number` (1-based) of a PDF as an 8-bit greyscale PGM image, which Tesseract reads from stdin."""
    import pypdfium2 as pdfium  # local runtime only (the `local` extra); AWS reads scans with Textract

    try:
        document = pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        raise ExtractionError(f"OCR failed: the PDF cannot be rasterized ({exc})") from exc
    try:
        bitmap = document[number - 1].render(scale=dpi / 72, grayscale=True)
        pixels = bitmap.to_numpy()
    except (pdfium.PdfiumError, IndexError) as exc:
        raise ExtractionError(f"OCR failed on page {number}: it cannot be rasterized ({exc})") from exc
    finally:
        document.close()
    height, width = pixels.shape[:2]
    return b"P5\n%d %d\n255\n" % (width, height) + pixels.reshape(height, width).tobytes()


def words_to_text(tsv: str) -> tuple[str, float]:
    """Tesseract's TSV output as text (lines kept, a blank line between paragraphs) and the mean word
    confidence (0 when it found no word)."""
    lines: dict[tuple[str, str, str], list[str]] = {}
    confidences: list[float] = []
    for row in tsv.splitlines()[1:]:
        fields = row.split("\t")
        if len(fields) < 12 or fields[0] != "5" or not fields[11].strip():
            continue
        lines.setdefault((fields[2], fields[3], fields[4]), []).append(fields[11].strip())
        if float(fields[10]) >= 0:
            confidences.append(float(fields[10]))
    parts: list[str] = []
    previous: tuple[str, str] | None = None
    for (block, paragraph, _line), words in lines.items():
        if previous is not None and previous != (block, paragraph):
            parts.append("")
        parts.append(" ".join(words))
        previous = (block, paragraph)
    confidence = sum(confidences) / len(confidences) if confidences else 0.0
    return "\n".join(parts), round(confidence, 1)


class TesseractOcr:
    name = "tesseract"

    def __init__(self, read_blob: Callable[[str], bytes], *, page_seconds: float = 60.0, language: str = "eng",
                 dpi: int = DPI, binary: str = "tesseract") -> None:
        self._read_blob = read_blob
        self._page_seconds = page_seconds
        self._language = language
        self._dpi = dpi
        self._binary = binary

    def start(self, blob_key: str, pages: Sequence[int], *, attempt_key: str = "") -> OcrRun:
        executable = shutil.which(self._binary)
        if executable is None:
            raise ExtractionError(UNAVAILABLE)
        data = self._read_blob(blob_key)
        return OcrRun(done=True, pages=[self.read_page(executable, data, number) for number in pages])

    def poll(self, ticket: str, pages: Sequence[int]) -> OcrRun:
        raise ExtractionError("OCR failed: Tesseract runs finish when they start; there is nothing to poll")

    def read_page(self, executable: str, data: bytes, number: int) -> OcrPage:
        image = rasterize(data, number, dpi=self._dpi)
        # One thread per page: the machine's cores are shared, and OpenMP threads slow small pages down.
        environment = {**os.environ, "OMP_THREAD_LIMIT": "1"}
        try:
            result = subprocess.run(
                [executable, "stdin", "stdout", "-l", self._language, "--dpi", str(self._dpi), "tsv"],
                input=image, capture_output=True, timeout=self._page_seconds, env=environment, check=False)
        except subprocess.TimeoutExpired as exc:
            raise ExtractionError(f"OCR failed on page {number}: Tesseract took longer than the "
                                  f"{self._page_seconds:g} s limit per page") from exc
        if result.returncode != 0:
            message = " ".join(result.stderr.decode("utf-8", "replace").split())[:200]
            raise ExtractionError(f"OCR failed on page {number}: Tesseract exited with {result.returncode} "
                                  f"({message or 'no message'})")
        text, confidence = words_to_text(result.stdout.decode("utf-8", "replace"))
        return OcrPage(number=number, text=text, confidence=confidence)
