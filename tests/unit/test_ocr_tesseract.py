"""Tesseract OCR (Debian's tesseract-ocr, installed by tests/setup.sh): scanned pages read word for word, each with
its confidence; a missing binary, a slow page or a crashing engine fail with a reason naming the page."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from voiceassist.adapters.local.tesseract_ocr import UNAVAILABLE, TesseractOcr, rasterize, words_to_text
from voiceassist.errors import ExtractionError

DOCUMENTS = Path(__file__).resolve().parents[1] / "fixtures" / "documents"


@pytest.fixture(scope="module", autouse=True)
def tesseract_installed() -> None:
    # Not a skip: make test installs tesseract-ocr (tests/setup.sh), so its absence is a broken machine, not a choice.
    assert shutil.which("tesseract"), "tesseract-ocr is not installed: run tests/setup.sh (make test does)"


def _ocr(name: str, **options: object) -> TesseractOcr:
    data = (DOCUMENTS / name).read_bytes()
    return TesseractOcr(lambda _key: data, **options)  # type: ignore[arg-type]


def test_tesseract_reads_a_scanned_page_word_for_word_with_high_confidence() -> None:
    run = _ocr("scanned_two_pages.pdf").start("documents/scan.pdf", [1, 2])

    assert run.done and run.ticket is None
    assert [(page.number, page.text) for page in run.pages] == [
        (1, "Amoxicillin 500 mg PO q8h for 7 days.\nReduce the dose if eGFR < 30 mL/min."),
        (2, "Epinephrine 1:1000, 0.5 mg IM.\nRepeat after 5 min if needed."),
    ]
    assert all(page.confidence > 85 for page in run.pages)


def test_tesseract_reads_only_the_pages_asked_for() -> None:
    run = _ocr("mixed_text_and_scan.pdf").start("documents/mixed.pdf", [2])

    assert [page.number for page in run.pages] == [2]
    assert run.pages[0].text.startswith("Epinephrine 1:1000")


def test_tesseract_on_a_blank_image_finds_no_words_and_zero_confidence() -> None:
    run = _ocr("image_only.pdf").start("documents/blank.pdf", [1])

    assert [(page.text, page.confidence) for page in run.pages] == [("", 0.0)]


def test_tesseract_missing_fails_with_how_to_install_it() -> None:
    with pytest.raises(ExtractionError) as caught:
        _ocr("scanned_two_pages.pdf", binary="tesseract-not-installed-here").start("k", [1])

    assert caught.value.reason == UNAVAILABLE
    assert caught.value.reason.startswith("OCR unavailable here: install tesseract-ocr")


def test_tesseract_over_its_time_per_page_fails_naming_the_page() -> None:
    with pytest.raises(ExtractionError) as caught:
        _ocr("scanned_two_pages.pdf", page_seconds=0.001).start("k", [2])

    assert caught.value.reason == "OCR failed on page 2: Tesseract took longer than the 0.001 s limit per page"


def test_tesseract_exiting_with_an_error_fails_naming_the_page(tmp_path: Path) -> None:
    broken = tmp_path / "tesseract"
    broken.write_text("#!/bin/sh\necho 'Error opening data file eng.traineddata' >&2\nexit 1\n")
    broken.chmod(0o755)

    with pytest.raises(ExtractionError) as caught:
        _ocr("scanned_two_pages.pdf", binary=str(broken)).start("k", [1])

    assert caught.value.reason == ("OCR failed on page 1: Tesseract exited with 1 "
                                   "(Error opening data file eng.traineddata)")


def test_rasterize_a_page_that_does_not_exist_fails_naming_it() -> None:
    with pytest.raises(ExtractionError) as caught:
        rasterize((DOCUMENTS / "two_pages.pdf").read_bytes(), 3)

    assert caught.value.reason.startswith("OCR failed on page 3:")


def test_rasterize_gives_a_greyscale_image_at_the_resolution_asked_for() -> None:
    image = rasterize((DOCUMENTS / "two_pages.pdf").read_bytes(), 1, dpi=144)

    header, _, pixels = image.partition(b"\n255\n")
    assert header == b"P5\n600 400"  # a 300 x 200 pt page at 2 pixels per point
    assert len(pixels) == 600 * 400


def test_words_to_text_keeps_lines_and_paragraphs_and_averages_word_confidence() -> None:
    header = "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext"
    rows = [
        "1\t1\t0\t0\t0\t0\t0\t0\t10\t10\t-1\t",
        "5\t1\t1\t1\t1\t1\t0\t0\t1\t1\t90\tGive",
        "5\t1\t1\t1\t1\t2\t0\t0\t1\t1\t80\tepinephrine",
        "5\t1\t1\t1\t2\t1\t0\t0\t1\t1\t70\tIM.",
        "5\t1\t2\t1\t1\t1\t0\t0\t1\t1\t60\tRepeat",
        "5\t1\t2\t1\t1\t2\t0\t0\t1\t1\t95\t ",
    ]

    text, confidence = words_to_text("\n".join([header, *rows]))

    assert text == "Give epinephrine\nIM.\n\nRepeat"
    assert confidence == 75.0
