"""Simon Willison's `llm` CLI against the real local server, configured as its documentation says for an
OpenAI-compatible server (extra-openai-models.yaml with api_base; a key when the server wants one): cited answers,
streamed and not, a token limit, a follow-up with -c, and `llm chat`."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.support.voiceassist_server import serving
from voiceassist.composition import Dependencies

QUESTION = "What is the metformin dose for eGFR 40?"
TOKEN = "s3cret-for-llm"
TIMEOUT_S = 180  # one answer takes about a second; a loaded machine twice as slow, and llm's own start-up

Llm = Callable[..., subprocess.CompletedProcess[str]]


def configure(home: Path, api_base: str, *, key: str | None = None) -> None:
    """What a user writes: the model in extra-openai-models.yaml, and the key under its name (`llm keys set`)."""
    home.mkdir(parents=True, exist_ok=True)
    key_line = "  api_key_name: voiceassist\n" if key else ""
    (home / "extra-openai-models.yaml").write_text(
        f"- model_id: voiceassist\n  model_name: voiceassist\n  api_base: \"{api_base}\"\n{key_line}")
    if key:
        (home / "keys.json").write_text(f'{{"voiceassist": "{key}"}}')


def llm_runner(home: Path) -> Llm:
    def llm(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
        env = {**os.environ, "LLM_USER_PATH": str(home)}
        env.pop("OPENAI_API_KEY", None)
        return subprocess.run([sys.executable, "-m", "llm", *args], input=stdin, capture_output=True, text=True,
                              env=env, timeout=TIMEOUT_S, check=False)

    return llm


@pytest.fixture
def llm(kb_deps: Dependencies, tmp_path: Path) -> Iterator[Llm]:
    with serving() as origin:
        configure(tmp_path / "llm", f"{origin}/v1")
        yield llm_runner(tmp_path / "llm")


def cited(output: str) -> bool:
    return "[1]" in output and "\nSources:\n[1] Metformin" in output


def test_llm_gets_a_cited_answer_streamed_and_the_same_answer_without_streaming(llm: Llm) -> None:
    streamed = llm("-m", "voiceassist", QUESTION)
    plain = llm("-m", "voiceassist", "--no-stream", QUESTION)

    assert streamed.returncode == 0, streamed.stderr
    assert cited(streamed.stdout)
    assert plain.returncode == 0, plain.stderr
    assert plain.stdout == streamed.stdout and cited(plain.stdout)


def test_llm_max_tokens_option_cuts_the_answer(llm: Llm) -> None:
    whole = llm("-m", "voiceassist", QUESTION).stdout
    cut = llm("-m", "voiceassist", "-o", "max_tokens", "5", QUESTION)

    assert cut.returncode == 0, cut.stderr
    assert 0 < len(cut.stdout.strip()) < len(whole) // 4 and whole.startswith(cut.stdout.strip())


def test_llm_continues_the_conversation_with_a_follow_up(llm: Llm) -> None:
    first = llm("-m", "voiceassist", "What is the first-line treatment for uncomplicated hypertension?")
    follow_up = llm("-c", "What blood pressure target should we aim for?")

    assert first.returncode == 0 and follow_up.returncode == 0, follow_up.stderr
    assert "Hypertension in Primary Care" in follow_up.stdout.split("Sources:")[-1]


def test_llm_chat_answers_each_line(llm: Llm) -> None:
    chat = llm("chat", "-m", "voiceassist", stdin=f"{QUESTION}\nexit\n")

    assert chat.returncode == 0, chat.stderr
    assert cited(chat.stdout)


def test_llm_a_json_option_is_refused_with_the_servers_reason(llm: Llm) -> None:
    result = llm("-m", "voiceassist", "-o", "json_object", "1", QUESTION)

    assert result.returncode != 0
    assert "response_format 'json_object' is not supported" in result.stderr


def test_llm_sends_the_key_a_server_with_a_token_wants(kb_deps: Dependencies, tmp_path: Path) -> None:
    with serving(token=TOKEN) as origin:
        configure(tmp_path / "right", f"{origin}/v1", key=TOKEN)
        configure(tmp_path / "wrong", f"{origin}/v1", key="not-the-token")
        right = llm_runner(tmp_path / "right")("-m", "voiceassist", QUESTION)
        wrong = llm_runner(tmp_path / "wrong")("-m", "voiceassist", QUESTION)

    assert right.returncode == 0 and cited(right.stdout), right.stderr
    assert wrong.returncode != 0 and "401" in wrong.stderr and "VOICEASSIST_LOCAL_TOKEN" in wrong.stderr
