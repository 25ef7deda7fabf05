"""Real DAV servers for the workspace tools' tests: Radicale (CalDAV) and WsgiDAV (WebDAV), each started as a
subprocess on 127.0.0.1 with a free port and a temporary folder, stopped by the fixture that started it."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

USER, PASSWORD = "doc", "secret"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _wait_for(port: int, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited: {log.read_text(errors='replace')[-2000:]}")
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise RuntimeError(f"the server did not listen on {port}: {log.read_text(errors='replace')[-2000:]}")


@contextmanager
def _serve(command: list[str], port: int, log: Path) -> Iterator[None]:
    with log.open("wb") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)
    try:
        _wait_for(port, process, log)
        yield
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@dataclass(frozen=True)
class DavServer:
    base_url: str  # http://127.0.0.1:<port>
    root: Path


@contextmanager
def radicale(tmp: Path) -> Iterator[DavServer]:
    """Radicale with one user (plain htpasswd: doc/secret) and an empty storage folder. No delay after a failed
    login (Radicale's --auth-delay, 1 s by default): a CalDAV client's first request of a session goes without
    credentials and is answered 401 (a failed login to Radicale), so each test waited a second or more for nothing
    (16 calendar tests: 1.2-3.2 s of wall each, 0.03 s of CPU)."""
    users = tmp / "users"
    users.write_text(f"{USER}:{PASSWORD}\n", encoding="utf-8")
    port = free_port()
    command = [sys.executable, "-m", "radicale", "--server-hosts", f"127.0.0.1:{port}",
               "--storage-filesystem-folder", str(tmp / "collections"), "--auth-type", "htpasswd",
               "--auth-htpasswd-filename", str(users), "--auth-htpasswd-encryption", "plain", "--auth-delay", "0"]
    with _serve(command, port, tmp / "radicale.log"):
        yield DavServer(base_url=f"http://127.0.0.1:{port}", root=tmp / "collections")


def make_calendar(server: DavServer, cal_id: str = "work") -> str:
    """Create a calendar collection for the user (MKCALENDAR through caldav) and return its URL."""
    import caldav

    client = caldav.DAVClient(url=f"{server.base_url}/{USER}/", username=USER, password=PASSWORD, timeout=10)
    calendar = client.principal().make_calendar(name=cal_id.title(), cal_id=cal_id)
    return str(calendar.url)


FILES_PREFIX = f"/remote.php/dav/files/{USER}"  # Nextcloud's path shape, served by WsgiDAV


@contextmanager
def wsgidav(tmp: Path, share: Path) -> Iterator[DavServer]:
    """WsgiDAV sharing `share` at Nextcloud's files path, basic auth doc/secret (its simple domain controller)."""
    import json

    port = free_port()
    config = {"host": "127.0.0.1", "port": port, "verbose": 1, "provider_mapping": {FILES_PREFIX: str(share)},
              "http_authenticator": {"domain_controller": None, "accept_basic": True, "accept_digest": False,
                                     "default_to_digest": False},
              "simple_dc": {"user_mapping": {"*": {USER: {"password": PASSWORD}}}},
              "dir_browser": {"enable": False}}
    config_file = tmp / "wsgidav.json"
    config_file.write_text(json.dumps(config), encoding="utf-8")
    command = [sys.executable, "-m", "wsgidav.server.server_cli", "--config", str(config_file)]
    with _serve(command, port, tmp / "wsgidav.log"):
        yield DavServer(base_url=f"http://127.0.0.1:{port}", root=share)
