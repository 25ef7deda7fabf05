"""`voiceassist ingest <folder>` picks up Word documents and scanned PDFs, and both complete (Tesseract)."""

from __future__ import annotations

import logging
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from voiceassist_local.cli import main

from voiceassist.composition import dependencies, use_dependencies

DOCUMENTS = Path(__file__).resolve().parents[1] / "fixtures" / "documents"


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> Iterator[Path]:
    caplog.set_level(logging.ERROR)
    monkeypatch.setenv("VOICEASSIST_DATA_DIR", str(tmp_path / "data"))
    yield tmp_path / "data"
    runner = dependencies().__dict__.get("pipelines")
    if runner is not None:
        runner.close()
    use_dependencies(None)


def test_ingest_folder_takes_docx_and_scanned_pdf(data_dir: Path, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    assert shutil.which("tesseract"), "tesseract-ocr is not installed: run tests/setup.sh (make test does)"
    folder = tmp_path / "incoming"
    folder.mkdir()
    shutil.copy(DOCUMENTS / "guideline.docx", folder / "hypertension.docx")
    shutil.copy(DOCUMENTS / "scanned_two_pages.pdf", folder / "scan.pdf")

    assert main(["ingest", str(folder)]) == 0

    assert capsys.readouterr().out.strip().splitlines()[-1] == "2 completed"
    jobs = {job.doc_key: job for job in dependencies().jobs.list(limit=10)}
    assert [page.number for page in jobs["scan"].ocr_pages] == [1, 2]
    assert jobs["hypertension"].ocr_pages == []
