"""A small Chrome DevTools Protocol driver for Debian's headless Chromium (no Selenium, no Playwright).

One browser process per test module (a fresh --user-data-dir), one tab per test; commands are sent over the
tab's WebSocket and their replies read back by id, keeping every event (console messages, exceptions) seen
on the way. Waits poll a JavaScript condition until it holds or the wait's bound passes.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import tempfile
import time
import urllib.request
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import websocket

LAUNCH_FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-dev-shm-usage", "--remote-debugging-port=0", "--remote-allow-origins=*",
)
WAIT_SECONDS = 60.0


class BrowserError(AssertionError):
    pass


def chromium_binary() -> str:
    """Debian's chromium (or $CHROMIUM). Missing is a failure: .ci/run installs it before `make test`."""
    binary = os.environ.get("CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    if not binary:
        raise BrowserError("Chromium is not installed: run tests/setup.sh (make test does it, as root or with sudo)")
    return binary


class Chromium:
    def __init__(self, extra_flags: Sequence[str] = ()) -> None:
        """`extra_flags`: more command-line switches (the voice tests' fake microphone)."""
        self.profile = Path(tempfile.mkdtemp(prefix="voiceassist-chromium-"))
        self.process = subprocess.Popen(
            [chromium_binary(), *LAUNCH_FLAGS, *extra_flags, f"--user-data-dir={self.profile}", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.port = self._devtools_port()

    def _devtools_port(self) -> int:
        marker = self.profile / "DevToolsActivePort"
        deadline = time.monotonic() + WAIT_SECONDS
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise BrowserError(f"Chromium exited with status {self.process.returncode} on start")
            if marker.exists() and marker.read_text().strip():
                return int(marker.read_text().split()[0])
            time.sleep(0.05)
        raise BrowserError("Chromium did not open its DevTools port")

    def new_tab(self) -> Tab:
        request = urllib.request.Request(f"http://127.0.0.1:{self.port}/json/new?about:blank", method="PUT")
        with urllib.request.urlopen(request, timeout=10) as reply:
            target = json.loads(reply.read())
        return Tab(self, target["id"], target["webSocketDebuggerUrl"])

    def close_tab(self, target_id: str) -> None:
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/json/close/{target_id}", timeout=10):
            pass

    def close(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        # Chromium's helper processes can still write into the profile for a moment after the browser exits: retry.
        deadline = time.monotonic() + WAIT_SECONDS
        while self.profile.exists() and time.monotonic() < deadline:
            shutil.rmtree(self.profile, ignore_errors=True)
            if self.profile.exists():
                time.sleep(0.1)


class Tab:
    def __init__(self, browser: Chromium, target_id: str, url: str) -> None:
        self.browser = browser
        self.target_id = target_id
        self.socket = websocket.create_connection(url, timeout=WAIT_SECONDS, suppress_origin=True)
        self.next_id = 0
        self.events: list[dict[str, Any]] = []
        # Requests whose failure the page expects and handles (the stream route on a server without one).
        self.expected_failures: set[str] = set()
        for domain in ("Page", "Runtime", "Log", "DOM"):
            self.send(f"{domain}.enable")

    # ------------------------------------------------------------------------------------------ protocol

    def send(self, method: str, **params: Any) -> dict[str, Any]:
        self.next_id += 1
        self.socket.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            message = json.loads(self.socket.recv())
            if message.get("id") == self.next_id:
                if "error" in message:
                    raise BrowserError(f"{method}: {message['error']}")
                return dict(message.get("result", {}))
            if "method" in message:
                self.events.append(message)

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression (awaited when it is a promise)."""
        result = self.send("Runtime.evaluate", expression=expression, awaitPromise=True, returnByValue=True)
        if "exceptionDetails" in result:
            raise BrowserError(f"{expression!r} threw: {result['exceptionDetails'].get('exception', {})}")
        return result["result"].get("value")

    def wait_for(self, condition: str, *, seconds: float = WAIT_SECONDS) -> Any:
        """Poll a JavaScript condition until it is truthy; its value. Fails with the page's errors if not."""
        deadline = time.monotonic() + seconds
        while True:
            value = self.evaluate(condition)
            if value:
                return value
            if time.monotonic() > deadline:
                raise BrowserError(f"gave up waiting for {condition!r}; page errors: {self.errors()}")
            time.sleep(0.1)

    # ------------------------------------------------------------------------------------------ actions

    def open(self, url: str) -> None:
        self.send("Page.navigate", url=url)
        self.wait_for("document.readyState === 'complete'")

    def click(self, selector: str) -> None:
        self.wait_for(f"!!document.querySelector({json.dumps(selector)})")
        self.evaluate(f"document.querySelector({json.dumps(selector)}).click()")

    def text(self, selector: str) -> str:
        return str(self.evaluate(f"document.querySelector({json.dumps(selector)})?.innerText ?? ''"))

    def type_text(self, text: str) -> None:
        self.send("Input.insertText", text=text)

    def press(self, key: str, key_code: int, *, text: str = "") -> None:
        """A key press as a keyboard sends it (Enter carries text "\\r" so it activates a focused button)."""
        down = {"text": text} if text else {}
        self.send("Input.dispatchKeyEvent", type="keyDown", key=key, code=key, windowsVirtualKeyCode=key_code,
                  nativeVirtualKeyCode=key_code, **down)
        self.send("Input.dispatchKeyEvent", type="keyUp", key=key, code=key, windowsVirtualKeyCode=key_code,
                  nativeVirtualKeyCode=key_code)

    def set_files(self, selector: str, *paths: Path) -> None:
        root = self.send("DOM.getDocument")["root"]["nodeId"]
        node = self.send("DOM.querySelector", nodeId=root, selector=selector)["nodeId"]
        self.send("DOM.setFileInputFiles", nodeId=node, files=[str(p) for p in paths])

    def viewport(self, width: int, height: int, *, mobile: bool = False) -> None:
        self.send("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1,
                  mobile=mobile)

    def offline(self, offline: bool) -> None:
        self.send("Network.enable")
        self.send("Network.emulateNetworkConditions", offline=offline, latency=0, downloadThroughput=-1,
                  uploadThroughput=-1)

    def screenshot(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        data = self.send("Page.captureScreenshot", format="png", captureBeyondViewport=True)["data"]
        path.write_bytes(base64.b64decode(data))

    def errors(self) -> list[str]:
        """Uncaught exceptions, console errors and browser log errors (a CSP violation is one)."""
        found = []
        for event in self.events:
            params = event.get("params", {})
            if event["method"] == "Runtime.exceptionThrown":
                details = params["exceptionDetails"]
                found.append(str(details.get("exception", {}).get("description") or details.get("text")))
            elif event["method"] == "Runtime.consoleAPICalled" and params.get("type") == "error":
                found.append(" ".join(str(a.get("value", a.get("description", ""))) for a in params["args"]))
            elif event["method"] == "Log.entryAdded" and params["entry"]["level"] == "error":
                entry = params["entry"]
                if not any(entry.get("url", "").endswith(path) for path in self.expected_failures):
                    found.append(f"{entry['text']} {entry.get('url', '')}".strip())
        return found

    def close(self) -> None:
        self.socket.close()
        self.browser.close_tab(self.target_id)
