"""Chunking: token limits (ours and the embedder's), sentences kept whole, headings and pages respected."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from voiceassist.ingest.chunking import chunk_document, count_tokens, split_sentences
from voiceassist.models import Chunk, DocumentMetadata, Page

METADATA = DocumentMetadata(doc_key="guides/hypertension.pdf", title="Hypertension guide")


def chunk(pages: list[Page], **options: object) -> list[Chunk]:
    return chunk_document(
        pages, doc_id="doc_1", doc_key=METADATA.doc_key, version=2, metadata=METADATA, **options  # type: ignore[arg-type]
    )


def numbered_sentences(count: int, start: int = 0) -> list[str]:
    template = "Finding {} concerns amoxicillin 500 mg PO q8h in adult patients."
    return [template.format(n) for n in range(start, start + count)]


# --------------------------------------------------------------------------- sentences


@pytest.mark.parametrize(
    "sentence",
    [
        "Give amoxicillin 500 mg p.o. b.i.d. for 7 days.",
        "Dr. Smith reviewed the chart, e.g. the labs in Fig. 2.",
        "The dose is approx. 2.5 mg/kg vs. 5 mg i.v. q.d. in children.",
        "Infuse 0.9% saline at approx. 1.5 L/h.",
        "See Smith et al. for the original trial.",
    ],
)
def test_split_sentences_keeps_abbreviations_and_decimals_inside_the_sentence(sentence: str) -> None:
    assert split_sentences(f"First sentence. {sentence} Last sentence.") == [
        "First sentence.",
        sentence,
        "Last sentence.",
    ]


def test_split_sentences_ends_a_sentence_after_a_dosing_abbreviation_before_a_capital() -> None:
    assert split_sentences("Take 500 mg b.i.d. Continue for 7 days. Stop if rash! Mild? Yes.") == [
        "Take 500 mg b.i.d.",
        "Continue for 7 days.",
        "Stop if rash!",
        "Mild?",
        "Yes.",
    ]


def test_split_sentences_keeps_list_numbers_with_their_item() -> None:
    assert split_sentences("1. Start aspirin. 2. Add a statin.") == ["1. Start aspirin.", "2. Add a statin."]


# --------------------------------------------------------------------------- sizes


def test_chunk_document_of_empty_pages_is_empty() -> None:
    assert chunk([Page(number=1, text=""), Page(number=2, text=" \n ")]) == []


def test_chunk_document_never_exceeds_max_tokens_and_counts_each_chunk() -> None:
    pages = [Page(number=1, text=" ".join(numbered_sentences(80)))]

    chunks = chunk(pages, max_tokens=64, overlap_tokens=16)

    assert len(chunks) > 5
    assert all(c.token_count == count_tokens(c.text) <= 64 for c in chunks)


def test_chunk_document_ids_are_deterministic_and_ordered() -> None:
    pages = [Page(number=1, text=" ".join(numbered_sentences(30)))]

    first, again = chunk(pages, max_tokens=64), chunk(pages, max_tokens=64)

    assert [c.chunk_id for c in first] == [f"doc_1:{n:05d}" for n in range(len(first))]
    assert [c.ordinal for c in first] == list(range(len(first)))
    assert [c.model_dump() for c in first] == [c.model_dump() for c in again]
    assert all((c.doc_key, c.version, c.metadata) == (METADATA.doc_key, 2, METADATA) for c in first)


def test_chunk_document_keeps_every_sentence_whole_and_in_order_without_overlap() -> None:
    sentences = numbered_sentences(40)

    chunks = chunk([Page(number=1, text=" ".join(sentences))], max_tokens=64, overlap_tokens=0)

    assert [s for c in chunks for s in split_sentences(c.text)] == sentences


def test_chunk_document_overlaps_whole_sentences_up_to_overlap_tokens() -> None:
    sentences = numbered_sentences(40)

    chunks = chunk([Page(number=1, text=" ".join(sentences))], max_tokens=80, overlap_tokens=20)

    for previous, current in zip(chunks, chunks[1:], strict=False):
        before, after = split_sentences(previous.text), split_sentences(current.text)
        shared = [s for s in after if s in before]
        assert shared, "consecutive chunks share at least one sentence"
        assert after[: len(shared)] == before[-len(shared) :]
        assert sum(count_tokens(s) for s in shared) <= 20


def test_chunk_document_splits_an_over_long_sentence_between_words() -> None:
    sentence = " ".join(f"{n}00 mg" for n in range(1, 200)) + "."

    chunks = chunk([Page(number=1, text=sentence)], max_tokens=40, overlap_tokens=10)

    assert len(chunks) > 3
    assert all(c.token_count <= 40 for c in chunks)
    assert " ".join(c.text for c in chunks) == sentence  # no "500" cut into "50" and "0"


def test_chunk_document_keeps_multibyte_characters_whole_when_cutting_tokens() -> None:
    run_on = "10⁹/L≥" * 120  # no spaces to cut at; "⁹" and "≥" are two tokens each in cl100k_base

    chunks = chunk([Page(number=None, text=run_on)], max_tokens=25, overlap_tokens=0)

    assert len(chunks) > 3
    assert "".join(c.text for c in chunks) == run_on


def test_chunk_document_respects_the_embedders_own_token_count() -> None:
    def characters_as_tokens(text: str) -> int:  # a tokenizer far greedier than tiktoken
        return len(text)

    pages = [Page(number=1, text=" ".join(numbered_sentences(20)) + " " + "x" * 300 + ".")]

    chunks = chunk(pages, max_tokens=200, model_max_tokens=100, count_model_tokens=characters_as_tokens)

    assert chunks
    assert all(len(c.text) <= 100 for c in chunks)
    assert "x" * 50 in " ".join(c.text for c in chunks)


@pytest.mark.parametrize(
    "options",
    [
        {"max_tokens": 0},
        {"max_tokens": 50, "overlap_tokens": 50},
        {"model_max_tokens": 100},
        {"count_model_tokens": len},
    ],
)
def test_chunk_document_rejects_inconsistent_limits(options: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        chunk([Page(number=1, text="Text.")], **options)


# --------------------------------------------------------------------------- structure


def test_chunk_document_never_merges_across_headings_and_names_the_section() -> None:
    pages = [
        Page(number=None, text="Short dosing text.", heading="Dosing"),
        Page(number=None, text="Short warning text.", heading="Warnings"),
    ]

    chunks = chunk(pages, max_tokens=200)

    assert [(c.section, c.text) for c in chunks] == [
        ("Dosing", "Short dosing text."),
        ("Warnings", "Short warning text."),
    ]


def test_chunk_document_splits_pdf_pages_at_the_headings_they_list_and_carries_the_section_on() -> None:
    pages = [
        Page(number=1, text="Preface text.\nDosing\nGive 5 mg daily.", heading="Dosing"),
        Page(number=2, text="Halve it in renal failure.\nWarnings\nMay cause rash.", heading="Warnings"),
        Page(number=3, text="Stop if it spreads."),
    ]

    chunks = chunk(pages, max_tokens=200)

    assert [(c.page, c.section, c.text) for c in chunks] == [
        (1, None, "Preface text."),
        (1, "Dosing", "Dosing\nGive 5 mg daily."),
        (2, "Dosing", "Halve it in renal failure."),
        (2, "Warnings", "Warnings\nMay cause rash."),
        (3, "Warnings", "Stop if it spreads."),
    ]


def test_chunk_document_ignores_a_listed_pdf_heading_that_cleaning_removed_from_the_text() -> None:
    pages = [Page(number=1, text="Give 5 mg daily.", heading="Guideline 2024"), Page(number=2, text="Then 10 mg.")]

    assert {c.section for c in chunk(pages, max_tokens=200)} == {None}


def test_chunk_document_opens_a_section_with_the_chapter_heading_above_it() -> None:
    pages = [Page(number=1, text="2 Treatment of\nhypertension\n2.1 First line\nGive a thiazide.",
                  heading="2 Treatment of hypertension\n2.1 First line")]

    chunks = chunk(pages, max_tokens=200)

    assert [(c.section, c.text) for c in chunks] == [
        ("2.1 First line", "2 Treatment of hypertension\n2.1 First line\nGive a thiazide.")]


def test_chunk_document_gives_the_page_each_chunk_starts_on() -> None:
    pages = [
        Page(number=1, text=" ".join(numbered_sentences(3))),
        Page(number=2, text=" ".join(numbered_sentences(12, start=3))),
    ]

    chunks = chunk(pages, max_tokens=60, overlap_tokens=0)

    assert chunks[0].page == 1
    assert chunks[-1].page == 2
    for c in chunks:
        first_number = int(c.text.split()[1])
        assert c.page == (1 if first_number < 3 else 2)


def test_chunk_document_continues_a_sentence_across_a_page_break() -> None:
    pages = [Page(number=4, text="The infusion rate is"), Page(number=5, text="1.5 L/h in adults.")]

    chunks = chunk(pages)

    assert [(c.page, c.text) for c in chunks] == [(4, "The infusion rate is 1.5 L/h in adults.")]


def test_chunk_document_cites_the_right_pages_for_a_long_table_without_full_stops() -> None:
    rows = [" ".join(f"drug{n} {n}0 mg" for n in range(page * 40, page * 40 + 40)) for page in range(3)]
    pages = [Page(number=n, text=row) for n, row in enumerate(rows, start=7)]

    chunks = chunk(pages, max_tokens=50, overlap_tokens=0)

    assert len(chunks) > 6
    for c in chunks:
        words = c.text.split()
        first_named = next(int(w.removeprefix("drug")) for w in words if w.startswith("drug"))
        starting_drug = first_named if words[0].startswith("drug") else first_named - 1  # "1080 mg drug109"
        assert c.page == 7 + starting_drug // 40


def test_chunk_document_starts_list_items_on_their_own_line() -> None:
    page = Page(number=None, text="Options:\n- amlodipine 5 mg\n- ramipril 2.5 mg", heading="Drugs")

    assert chunk([page])[0].text == "Options:\n- amlodipine 5 mg\n- ramipril 2.5 mg"


# --------------------------------------------------------------------------- offline encoding


def test_token_encoding_loads_from_the_shipped_files_without_a_network() -> None:
    script = textwrap.dedent(
        """
        import socket

        def refuse(*args, **kwargs):
            raise OSError("network access attempted")

        socket.socket.connect = refuse
        socket.create_connection = refuse
        from voiceassist.ingest.chunking import count_tokens
        print(count_tokens("Amoxicillin 500 mg PO q8h"))
        """
    )
    env = {k: v for k, v in os.environ.items() if k != "TIKTOKEN_CACHE_DIR"}

    command = [sys.executable, "-c", script]
    result = subprocess.run(command, capture_output=True, text=True, env=env, check=False)

    assert result.returncode == 0, result.stderr
    assert int(result.stdout) == 10


def test_chunk_document_keeps_a_pdf_heading_line_out_of_the_next_sentence() -> None:
    pages = [Page(number=1, text="Dosing\nThe adult dose is 37 mg twice daily.\nin the morning and evening")]

    text = chunk(pages)[0].text

    assert text.startswith("Dosing\nThe adult dose is 37 mg twice daily.")
    assert "daily. in the morning" in text  # a lower-case continuation is not a heading
