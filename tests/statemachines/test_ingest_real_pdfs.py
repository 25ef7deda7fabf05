"""`voiceassist ingest` over the 31 real-world PDFs in ../shared/eval/pdf (py-pdf/sample-files), through the
real pipeline: every job ends COMPLETED or FAILED with the reason its file deserves, none is left PENDING or
RUNNING, and nothing of a failed document is searchable. Skipped only when the folder is not there."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest
from voiceassist_local.cli import main

from voiceassist.composition import Dependencies, dependencies, use_dependencies
from voiceassist.models import DocumentStatus, JobState

PDF_DIR = Path(__file__).resolve().parents[2].parent / "shared" / "eval" / "pdf"
PDFS = sorted(PDF_DIR.glob("*/*.pdf")) if PDF_DIR.is_dir() else []
NO_WORDS = "no text: the PDF has no text layer and OCR found no words on its 1 scanned page(s)"
EXPECTED_FAILURES = {
    "libreoffice-writer-password": "encrypted: password-protected PDFs are not supported",
    "unreadablemetadata": "broken PDF: ",
    # Image-only: read by OCR (Tesseract), which finds no words in these pictures; none fails for want of OCR.
    "imagemagick-ASCII85Decode": NO_WORDS,
    "imagemagick-CCITTFaxDecode": NO_WORDS,
    "imagemagick-lzw": NO_WORDS,
    "grayscale-image": NO_WORDS,
    "cmyk-image": NO_WORDS,
}

pytestmark = [pytest.mark.slow, pytest.mark.skipif(not PDFS, reason=f"{PDF_DIR} is not present")]


@pytest.fixture
def cli_deps(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
             ) -> Iterator[Path]:
    """A temporary VOICEASSIST_DATA_DIR; afterwards the CLI's process-wide dependencies are shut down."""
    caplog.set_level(logging.ERROR)  # pypdf warns loudly about the damaged samples
    monkeypatch.setenv("VOICEASSIST_DATA_DIR", str(tmp_path / "data"))
    yield tmp_path / "data"
    deps = dependencies()
    runner = deps.__dict__.get("pipelines")
    if runner is not None:
        runner.close()
    use_dependencies(None)


def test_ingest_cli_takes_every_real_pdf_to_a_final_state_with_a_specific_reason(
        cli_deps: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert len(PDFS) == 31

    assert main(["ingest", str(PDF_DIR)]) == 1  # some failed (below): the exit status says so

    deps: Dependencies = dependencies()
    jobs = {job.doc_key: job for job in deps.jobs.list(limit=100)}
    assert sorted(jobs) == sorted(path.stem for path in PDFS)
    for doc_key, job in jobs.items():
        document = deps.documents.get(job.doc_id)
        if doc_key in EXPECTED_FAILURES:
            assert job.state is JobState.FAILED, doc_key
            assert job.reason is not None and job.reason.startswith(EXPECTED_FAILURES[doc_key]), job.reason
            assert document.status is DocumentStatus.FAILED
            assert deps.index.count(doc_key, searchable_only=False) == 0, doc_key
        else:
            assert (job.state, job.reason) == (JobState.COMPLETED, None), doc_key
            assert document.status is DocumentStatus.ACTIVE
            assert deps.index.count(doc_key) == job.chunks_total > 0, doc_key
    summary = capsys.readouterr().out.strip().splitlines()[-1]
    assert summary == "24 completed, 7 failed"
