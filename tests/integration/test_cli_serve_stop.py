"""Ctrl-C (or a SIGTERM: kill, docker stop, systemd) ends `voiceassist serve` normally: exit status 0 (so
`make run` ends without "Error 130"), no traceback, and the data folder's server.json is removed (the next command
does not look for it)."""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from voiceassist_local.cli.local import EXAMPLE_QUESTION

README = Path(__file__).resolve().parents[2] / "README.md"


CLI = "import sys; from voiceassist_local.cli import main; sys.exit(main())"


def serve(env: dict[str, str]) -> tuple[subprocess.Popen[str], dict[str, str]]:
    """`voiceassist serve` in its own process (no samples, no folder watch) and its banner, line name -> text."""
    server = subprocess.Popen(  # noqa: S603 - our own CLI
        [sys.executable, "-c", CLI, "serve", "--port", "0", "--no-samples", "--no-watch"], env=env,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert server.stdout is not None
    banner = {}
    for line in server.stdout:
        name, _, value = line.strip().partition(":")
        banner[name] = value.strip()
        if name == "stop":
            break
    return server, banner


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM])
def test_ctrl_c_or_sigterm_stops_serve_with_status_0_and_removes_its_server_file(tmp_path: Path,
                                                                                 stop: signal.Signals) -> None:
    data = tmp_path / "data"
    env = {**os.environ, "VOICEASSIST_DATA_DIR": str(data), "POWERTOOLS_LOG_LEVEL": "ERROR"}
    server = subprocess.Popen(  # noqa: S603 - our own CLI
        [sys.executable, "-c", CLI, "serve", "--port", "0", "--no-samples", "--no-watch"], env=env,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))  # as a terminal's foreground job
    try:
        assert server.stdout is not None
        banner = []
        deadline = time.monotonic() + 300
        for line in server.stdout:
            banner.append(line)
            if "stop:" in line or time.monotonic() > deadline:
                break
        assert (data / "server.json").is_file(), "".join(banner)
        assert f'ask "{EXAMPLE_QUESTION}"' in "".join(banner)

        server.send_signal(stop)
        rest = server.stdout.read()
        assert server.wait(timeout=60) == 0
        assert "stopped" in rest and "Traceback" not in rest
    finally:
        if server.poll() is None:  # a failed assertion must not leave a server running
            server.kill()
            server.wait()
    assert not (data / "server.json").exists()


def test_the_readme_asks_the_banners_example_question() -> None:
    text = README.read_text(encoding="utf-8")
    assert f'"query": "{EXAMPLE_QUESTION}"' in text  # the curl example make run's banner also prints
    assert f'voiceassist ask "{EXAMPLE_QUESTION}"' in text


def test_with_a_token_the_banners_request_sends_it_and_the_web_line_says_a_browser_cannot(tmp_path: Path) -> None:
    env = {**os.environ, "VOICEASSIST_DATA_DIR": str(tmp_path / "data"), "POWERTOOLS_LOG_LEVEL": "ERROR",
           "VOICEASSIST_LOCAL_TOKEN": "s3cret-for-this-test"}
    server, banner = serve(env)
    try:
        assert "not for a browser" in banner["web"] and "s3cret" not in " ".join(banner.values())
        # the banner's curl line, as a shell would run it: the token comes from the variable
        words = shlex.split(os.path.expandvars(banner["try"].replace("$VOICEASSIST_LOCAL_TOKEN",
                                                                     env["VOICEASSIST_LOCAL_TOKEN"])))
        headers = dict(words[i + 1].split(": ", 1) for i, word in enumerate(words) if word == "-H")
        request = urllib.request.Request(words[2], data=words[words.index("-d") + 1].encode(), headers=headers,
                                         method="POST")
        with urllib.request.urlopen(request, timeout=300) as reply:  # noqa: S310 - 127.0.0.1
            assert reply.status == 200 and json.loads(reply.read())["answer"]
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=60)


def test_the_banners_ask_line_run_in_another_terminal_is_answered_by_this_server(tmp_path: Path) -> None:
    data = tmp_path / "server data"  # not the default .data, and a space the shell line must quote
    env = {**os.environ, "VOICEASSIST_DATA_DIR": str(data), "POWERTOOLS_LOG_LEVEL": "ERROR"}
    server, banner = serve(env)
    try:
        # a second terminal: another folder, none of the server's environment
        words = shlex.split(banner["or"].removesuffix("(answered by this server)"))
        other = {key: value for key, value in env.items() if key != "VOICEASSIST_DATA_DIR"}
        asked = subprocess.run([sys.executable, "-c", CLI, *words[1:]], env=other, cwd=tmp_path,  # noqa: S603
                               capture_output=True, text=True, timeout=300, check=False)
        assert asked.stderr.startswith("(asking the server at http://127.0.0.1:"), asked.stderr
        assert not (tmp_path / ".data").exists()
    finally:
        server.terminate()
        server.wait(timeout=60)
