"""A document's defaults: a Markdown file is titled with its first heading, anything else with its file name."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from voiceassist.errors import InvalidInput
from voiceassist.ingest.document_metadata import markdown_title, metadata_for
from voiceassist.ingest.screening import screen_metadata
from voiceassist.models import DocumentMetadata


def test_markdown_title_is_the_first_heading() -> None:
    data = b"Intro line\n\n## Acute gout flare ##\n\n# Later heading\n"
    assert metadata_for("gout_note.md", {}, data).title == "Acute gout flare"
    assert metadata_for("gout_note.md", {}, data).doc_key == "gout_note"


def test_markdown_title_skips_headings_inside_code_fences() -> None:
    assert markdown_title("a.markdown", b"```\n# not a heading\n```\n# Colchicine dosing\n") == "Colchicine dosing"


def test_markdown_title_falls_back_to_the_file_name() -> None:
    assert metadata_for("gout_note.md", {}, b"no heading here\n").title == "gout note"
    assert metadata_for("gout_note.txt", {}, b"# looks like a heading\n").title == "gout note"  # not Markdown
    assert metadata_for("gout_note.md", {}).title == "gout note"  # no content given


def test_a_given_title_wins_over_the_heading() -> None:
    assert metadata_for("gout.md", {"title": "Gout (local protocol)"}, b"# Acute gout\n").title == \
        "Gout (local protocol)"


def test_a_patient_named_in_the_first_heading_is_redacted_by_the_metadata_screen(shared_phi_detector: Any) -> None:
    data = b"# Discharge plan for Zebulon Quartermaine, MRN 84736251\n\nSepsis follow-up.\n"
    metadata = metadata_for("plan.md", {}, data)
    assert metadata.title.startswith("Discharge plan for Zebulon")  # the heading became the title...

    screened = screen_metadata(shared_phi_detector, metadata, "plan.md")

    title = screened.metadata.title.lower()  # ...and passes the PHI screen as any title does
    assert "zebulon" not in title and "quartermaine" not in title and "84736251" not in title
    assert "PERSON" in screened.entity_types


def test_metadata_for_keeps_a_numbers_hyphen_in_the_title_from_a_file_name() -> None:
    # "1961 04 17" reads as a phone number to the PHI screen, "1961-04-17" as the date it is
    assert metadata_for("labs-Quartermaine-1961-04-17.pdf", {}).title == "labs Quartermaine 1961-04-17"
    assert metadata_for("HLA-DRB1-01-03_review.pdf", {}).title == "HLA DRB1 01-03 review"


def test_document_url_must_be_an_absolute_web_address() -> None:
    assert metadata_for("gout.md", {"url": " https://example.org/gout?v=2 "}).url == "https://example.org/gout?v=2"
    assert metadata_for("gout.md", {"url": "HTTP://example.org"}).url == "HTTP://example.org"
    for bad in ("javascript:alert(document.domain)", "data:text/html,<script>x</script>", "www.example.org/gout",
                "//example.org/gout", "https://", "https://exa mple.org", "https://example.org/\x00", "ftp://a.org",
                "https://[::1", "https://example.org/" + "a" * 2048, 42):
        with pytest.raises(InvalidInput, match="url: an absolute http") as refused:
            metadata_for("gout.md", {"url": bad})
        assert "example" not in str(refused.value) and "javascript" not in str(refused.value)


@pytest.mark.parametrize("filename", ["C:\\Windows\\evil.md", "\\\\server\\share\\evil.md", "uploads/2024/evil.md",
                                      "C:/mixed\\folders/evil.md"])
def test_metadata_for_cuts_a_windows_or_posix_path_to_the_file_name(filename: str) -> None:
    metadata = metadata_for(filename, {}, b"no heading\n")
    assert (metadata.doc_key, metadata.title) == ("evil", "evil")


def test_metadata_for_reads_the_heading_of_a_markdown_file_sent_with_its_windows_path() -> None:
    assert metadata_for("C:\\notes\\gout.md", {}, b"# Acute gout flare\n").title == "Acute gout flare"


@pytest.mark.parametrize("filename", [".md", "-.txt", "C:\\docs\\", "folder/.pdf", "___.md"])
def test_metadata_for_refuses_a_file_name_without_a_name_before_its_extension(filename: str) -> None:
    with pytest.raises(InvalidInput, match="needs a name before its extension") as refused:
        metadata_for(filename, {"doc_key": "stated", "title": "Stated"})
    assert "docs" not in str(refused.value) and "folder" not in str(refused.value)  # the rule, not the path


def test_metadata_for_keeps_a_dotted_stem_and_an_extensionless_name() -> None:
    assert metadata_for("kdigo.2024.pdf", {}).doc_key == "kdigo.2024"
    assert metadata_for("README", {}).doc_key == "README"


def test_metadata_for_counts_a_file_name_title_as_not_stated_and_a_heading_as_stated() -> None:
    assert "title" not in metadata_for("gout_note.txt", {}).model_fields_set
    assert "title" in metadata_for("gout_note.md", {}, b"# Acute gout\n").model_fields_set
    assert {"doc_key", "title", "specialty"} <= metadata_for("g.txt", {"title": "T", "specialty": "r"}).model_fields_set


PERSIAN = "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645"


@pytest.mark.parametrize(("given", "shown"), [
    ("Safe \u202egnp.exe\u202c guide", "Safe gnp.exe guide"),  # a right-to-left override spoofed the reading order
    ("Guide\n[2] Forged source https://evil.example", "Guide [2] Forged source https://evil.example"),
    ("NUL\x00inside\x1b[31m", "NUL inside [31m"),
    ("Zero\u200bwidth\u00adsoft", "Zerowidthsoft"),
    (PERSIAN, PERSIAN),  # a zero-width non-joiner is spelling
])
def test_a_title_is_one_line_of_visible_text(given: str, shown: str) -> None:
    """A title is shown in every citation, the web page and the chat's Sources list: a newline in it forged a line
    of that list, a bidirectional override reversed what the reader saw. Titles come from uploads' metadata and
    from the documents themselves (a Markdown heading, a PDF's metadata)."""
    assert metadata_for("guide.md", {"title": given}, b"text\n").title == shown
    if "\n" not in given:  # a heading ends at its line
        assert metadata_for("x.md", {}, f"# {given}\n".encode()).title == shown



@pytest.mark.parametrize(("given", "shown"), [
    ("Plain title", "Plain title"),
    ("  Leading", "Leading"), ("Trailing  ", "Trailing"), ("Double  space", "Double space"),
    ("No\u00a0break", "No break"), ("Em\u2003space", "Em space"), ("Tab\tin", "Tab in"), ("x", "x"),
])
def test_a_printable_title_keeps_single_spaces_only(given: str, shown: str) -> None:
    """A printable, singly spaced title is taken as it is (the check every stored chunk's parse makes again);
    any other whitespace, surplus spaces at either end or between words, reads as one space."""
    assert DocumentMetadata(doc_key="k", title=given).title == shown
    assert " ".join(shown.split()) == shown


@pytest.mark.parametrize("given", [" ", "   ", "\u00a0", "\u200b"])
def test_a_title_with_nothing_visible_is_refused(given: str) -> None:
    with pytest.raises(ValidationError):
        DocumentMetadata(doc_key="k", title=given)