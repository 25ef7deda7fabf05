"""Which pages go to OCR, how its text replaces theirs, and how chunks are flagged by confidence."""

from __future__ import annotations

import pytest

from voiceassist.errors import ExtractionError
from voiceassist.ingest.ocr import flag_chunks, merge_ocr, pages_needing_ocr
from voiceassist.models import Chunk, DocumentMetadata, ExtractedDocument, OcrPage, Page

PDF = "application/pdf"


def _document(*texts: str) -> ExtractedDocument:
    return ExtractedDocument(pages=[Page(number=n, text=t) for n, t in enumerate(texts, start=1)], content_type=PDF)


def test_only_pages_without_a_letter_or_digit_need_ocr() -> None:
    document = _document("Give 5 mg.", "", " \n ", "- 3 -")

    assert pages_needing_ocr(document.pages) == [2, 3]


def test_a_sparse_text_layer_over_an_image_needs_ocr_but_not_over_nothing() -> None:
    stamped = Page(number=1, text="Page 3", draws_images=True)
    short_page = Page(number=2, text="Page 3")
    illustrated = Page(number=3, text="A figure of the heart with its four chambers labelled.", draws_images=True)

    assert pages_needing_ocr([stamped, short_page, illustrated]) == [1]


def test_unnumbered_pages_never_need_ocr() -> None:
    assert pages_needing_ocr([Page(number=None, text="")]) == []


def test_merge_puts_ocr_text_and_confidence_on_the_scanned_pages_only() -> None:
    merged = merge_ocr(_document("Text layer.", ""), [OcrPage(number=2, text="Scanned words.", confidence=88.5)],
                       expected=[2])

    assert [(p.text, p.ocr_confidence) for p in merged.pages] == [("Text layer.", None), ("Scanned words.", 88.5)]


def test_merge_keeps_the_text_layer_of_a_page_where_ocr_found_no_words() -> None:
    merged = merge_ocr(_document("Fig. 2", "Text."), [OcrPage(number=1, text="", confidence=0.0)], expected=[1])

    assert [(p.text, p.ocr_confidence) for p in merged.pages] == [("Fig. 2", None), ("Text.", None)]


def test_merge_without_a_result_for_a_page_fails_naming_it() -> None:
    with pytest.raises(ExtractionError) as caught:
        merge_ocr(_document("", ""), [OcrPage(number=1, text="words", confidence=90)], expected=[1, 2])

    assert caught.value.reason == "OCR failed on page 2: the OCR engine returned no result for it"


def test_merge_where_ocr_found_nothing_anywhere_fails_as_no_text() -> None:
    with pytest.raises(ExtractionError) as caught:
        merge_ocr(_document(""), [OcrPage(number=1, text="", confidence=0)], expected=[1])

    assert caught.value.reason.startswith("no text: the PDF has no text layer and OCR found no words")


def test_chunks_of_ocr_pages_carry_confidence_and_a_flag_below_the_bar() -> None:
    metadata = DocumentMetadata(doc_key="k", title="t")
    chunks = [Chunk(chunk_id=f"d:{n}", doc_id="d", doc_key="k", version=1, ordinal=n, text="x", token_count=1,
                    page=n, metadata=metadata) for n in (1, 2, 3)]
    pages = [Page(number=1, text="x"), Page(number=2, text="x", ocr_confidence=91.0),
             Page(number=3, text="x", ocr_confidence=55.0)]

    flagged = flag_chunks(chunks, pages, low_confidence=70)

    assert [(c.ocr_confidence, c.low_confidence) for c in flagged] == [(None, False), (91.0, False), (55.0, True)]
