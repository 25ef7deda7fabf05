"""The built wheel serves cited answers from outside the checkout: `pip wheel`, installed into a folder of its
own, started from another working directory with the checkout nowhere on the import path.

The third-party packages come from this virtualenv's site-packages as a plain path entry (its .pth files,
among them the editable install's finder, are not processed), so the test needs no network; what a fresh
virtualenv with `pip install 'voiceassist-*.whl[local]'` adds on top is only those packages, from PyPI.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import sysconfig
import time
import urllib.request
from pathlib import Path

import pytest

from tests.artefacts.artefacts import REPO

pytestmark = pytest.mark.slow
QUESTION = "What is the maximum daily dose of metformin?"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _get(url: str) -> dict[str, object]:
    with urllib.request.urlopen(url, timeout=5) as reply:  # noqa: S310 - 127.0.0.1 only
        return json.loads(reply.read())


def test_the_built_wheel_serves_cited_answers_from_any_folder(tmp_path: Path) -> None:
    # Given the wheel, built and installed into a folder of its own
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w",
                    str(tmp_path / "dist"), str(REPO)], check=True, cwd=tmp_path, capture_output=True)
    (wheel,) = (tmp_path / "dist").glob("voiceassist-*.whl")
    site = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(site), str(wheel)],
                   check=True, capture_output=True)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    port = _free_port()
    third_party = sysconfig.get_paths()["purelib"]
    program = ("import sys, voiceassist, voiceassist_functions; "
               f"assert voiceassist.__file__.startswith({str(site)!r}), voiceassist.__file__; "
               "from voiceassist_local.cli import main; "
               f"sys.exit(main(['--data-dir', 'data', 'serve', '--port', '{port}', '--no-watch']))")

    # When it serves from another folder, the checkout nowhere on its path
    server = subprocess.Popen([sys.executable, "-S", "-c", program], cwd=elsewhere,
                              env={"PYTHONPATH": f"{site}:{third_party}", "PATH": "/usr/bin:/bin",
                                   "HOME": str(tmp_path)},
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                _get(f"http://127.0.0.1:{port}/v1/health")
                break
            except OSError:
                assert server.poll() is None, server.stdout.read() if server.stdout else ""
                assert time.monotonic() < deadline, "the wheel's server did not start in 120 s"
                time.sleep(0.5)
        request = urllib.request.Request(f"http://127.0.0.1:{port}/v1/query", method="POST",
                                         data=json.dumps({"query": QUESTION}).encode(),
                                         headers={"content-type": "application/json"})
        with urllib.request.urlopen(request, timeout=60) as reply:  # noqa: S310 - 127.0.0.1 only
            answer = json.loads(reply.read())
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as reply:  # noqa: S310
            page = reply.read().decode("utf-8")
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/app.js", timeout=5) as reply:  # noqa: S310
            script = reply.read().decode("utf-8")
    finally:
        server.terminate()
        server.wait(timeout=10)

    # Then it answers from the bundled sample corpus, with a citation, and its data stayed where it was started
    assert [c["doc_key"] for c in answer["citations"]][:1] == ["sample-metformin"], answer
    assert (elsewhere / "data").is_dir()
    # and the web client's files come from the wheel's package data
    assert '<script type="module" src="/app.js">' in page and "import { Api }" in script
