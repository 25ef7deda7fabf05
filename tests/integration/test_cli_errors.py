"""Every error a newcomer meets from the CLI is one line in our words (exit status 2), never a traceback."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from voiceassist_local.cli import main
from voiceassist_local.cli.api_client import lock_data_folder
from voiceassist_local.cli.remote import QUESTION_MAX_CHARS

from voiceassist.composition import use_dependencies
from voiceassist.models import QueryRequest


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("VOICEASSIST_DATA_DIR", str(tmp_path / "data"))
    yield tmp_path / "data"
    use_dependencies(None)


def error_of(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    [line] = [line for line in err.splitlines() if line.startswith("error: ")]
    return line


def test_ask_refuses_an_empty_question_with_an_example(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    line = error_of(capsys, ["ask", "   "])
    assert "the question is empty" in line
    assert 'voiceassist ask "' in line


def test_ask_refuses_a_question_over_the_limit(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    line = error_of(capsys, ["ask", "why " * 1001])
    assert f"the limit is {QUESTION_MAX_CHARS}" in line


def test_ask_limit_is_the_query_requests(data_dir: Path) -> None:
    QueryRequest(query="a" * QUESTION_MAX_CHARS)
    with pytest.raises(ValueError):
        QueryRequest(query="a" * (QUESTION_MAX_CHARS + 1))


def test_ingest_names_every_missing_path_before_ingesting(data_dir: Path, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    present = tmp_path / "note.md"
    present.write_text("# Note\n\nSome text.\n", encoding="utf-8")
    line = error_of(capsys, ["ingest", str(present), "missing.pdf", "gone/"])
    assert line == "error: no such file or folder: missing.pdf, gone/"
    assert not (data_dir / "voiceassist.sqlite3").exists()  # nothing was ingested (not even registered)


def test_ingest_of_a_folder_without_documents_says_what_is_supported(data_dir: Path, tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "empty").mkdir()
    assert "no file to ingest" in error_of(capsys, ["ingest", str(tmp_path / "empty")])


def test_serve_on_a_port_in_use_names_the_port_and_the_way_out(data_dir: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        line = error_of(capsys, ["serve", "--port", str(port), "--no-samples", "--no-watch"])
    assert f"port {port} is already in use" in line
    assert f"--port {port + 1}" in line and f"PORT={port + 1} make run" in line


def test_serve_refuses_a_second_server_on_the_same_data_folder(data_dir: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    held = lock_data_folder(data_dir)  # what a first server holds for its life
    try:
        line = error_of(capsys, ["serve", "--port", "0", "--no-samples", "--no-watch"])
    finally:
        held.close()
    assert "another VoiceAssist server" in line and str(data_dir) in line and "--data-dir" in line


def test_eval_answers_outside_a_checkout_asks_for_a_questions_file(data_dir: Path, tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)  # as from an installed wheel: no tests/fixtures here
    line = error_of(capsys, ["eval", "answers"])
    assert "pass --questions FILE" in line


def test_eval_answers_names_a_missing_questions_file(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert error_of(capsys, ["eval", "answers", "--questions", "nope.jsonl"]) == \
        "error: nope.jsonl: no such questions file"


@pytest.mark.parametrize(("argv", "named"), [
    (["ingest-jsonl", "missing.jsonl"], "missing.jsonl"),
    (["eval", "calculators", "--cases", "missing.csv"], "missing.csv"),
    (["eval", "retrieval", "--corpus", "missing.jsonl", "--queries", "q.jsonl", "--qrels", "dev.tsv"], "missing.jsonl"),
])
def test_a_missing_input_file_is_named_without_a_traceback(data_dir: Path, argv: list[str], named: str,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    assert error_of(capsys, argv) == f"error: no such file or folder: {named}"


def test_ingest_jsonl_of_a_folder_says_a_file_was_expected(data_dir: Path, tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    assert error_of(capsys, ["ingest-jsonl", str(tmp_path)]) == \
        f"error: a folder where a file was expected: {tmp_path}"


@pytest.mark.parametrize("port", ["99999", "-1", "http"])
def test_serve_refuses_a_port_that_is_not_one(data_dir: Path, port: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["serve", "--port", port, "--no-samples", "--no-watch"])
    err = capsys.readouterr().err
    assert exited.value.code == 2 and "Traceback" not in err
    assert f"'{port}' is not a port: give a number from 1 to 65535" in err


def test_serve_refuses_a_port_variable_that_is_not_a_port(data_dir: Path, monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("PORT", "eighty")  # PORT=eighty make run
    with pytest.raises(SystemExit):
        main(["serve", "--no-samples", "--no-watch"])
    assert "'eighty' is not a port" in capsys.readouterr().err
