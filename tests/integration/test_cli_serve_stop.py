"""Ctrl-C (or a SIGTERM: kill, docker stop, systemd) ends `voiceassist serve` normally: exit status 0 (so
`make run` ends without "Error 130"), no traceback, and the data folder's server.json is removed (the next command
does not look for it)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from voiceassist_local.cli.local import EXAMPLE_QUESTION

README = Path(__file__).resolve().parents[2] / "README.md"


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM])
def test_ctrl_c_or_sigterm_stops_serve_with_status_0_and_removes_its_server_file(tmp_path: Path,
                                                                                 stop: signal.Signals) -> None:
    data = tmp_path / "data"
    env = {**os.environ, "VOICEASSIST_DATA_DIR": str(data), "POWERTOOLS_LOG_LEVEL": "ERROR"}
    code = "import sys; from voiceassist_local.cli import main; sys.exit(main())"
    server = subprocess.Popen(  # noqa: S603 - our own CLI
        [sys.executable, "-c", code, "serve", "--port", "0", "--no-samples", "--no-watch"], env=env,
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
