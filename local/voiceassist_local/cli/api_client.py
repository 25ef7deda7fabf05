"""How the CLI reaches the API of a data folder: the local server running on it, over HTTP, or the same API
handler in this process.

`voiceassist serve` holds a lock on the data folder (server.lock: a second server on it is refused) and
writes where it listens (server.json: url and pid). A command finds the server through that file and asks it
if it answers; then it loads nothing of the stack (an answer in about a second), and says so. This module
imports only the standard library: it runs before anything else is loaded.
"""

from __future__ import annotations

import errno
import json
import os
import sys
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

SERVER_FILE = "server.json"
LOCK_FILE = "server.lock"
DATA_DIR_ENV = "VOICEASSIST_DATA_DIR"  # voiceassist.constants.environment.ENV_DATA_DIR, read without the stack
TOKEN_ENV = "VOICEASSIST_LOCAL_TOKEN"  # voiceassist.constants.environment.ENV_LOCAL_TOKEN
DEFAULT_DATA_DIR = ".data"  # voiceassist.settings.Settings.data_dir
PROBE_TIMEOUT_S = 2.0
REQUEST_TIMEOUT_S = 300.0


class CliError(Exception):
    """A failure the CLI reports in one line (`error: ...`, exit status 2), never as a traceback."""


def data_dir() -> Path:
    """The data folder the command works on (`--data-dir` is put into the environment by main)."""
    return Path(os.environ.get(DATA_DIR_ENV) or DEFAULT_DATA_DIR)


@dataclass(frozen=True)
class Reply:
    status: int
    body: Any  # the JSON reply, or its text when it is not JSON
    headers: dict[str, str]

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300

    def error_message(self) -> str:
        error = self.body.get("error") if isinstance(self.body, dict) else None
        message = str(error["message"]) if isinstance(error, dict) and error.get("message") else \
            f"the API answered {self.status}: {str(self.body)[:300]}"
        if self.status == 403:
            message += (" (the local user's roles are VOICEASSIST_LOCAL_GROUPS, a clinician by default: "
                        "VOICEASSIST_LOCAL_GROUPS=admin,clinician allows uploads and deletes)")
        return message


def _decoded(data: bytes) -> Any:
    text = data.decode("utf-8", errors="replace")
    try:
        return json.loads(text)
    except ValueError:
        return text


class HttpApi:
    """The API of a running local server."""

    def __init__(self, url: str, token: str | None = None) -> None:
        self.url = url.rstrip("/")
        self.token = token

    @property
    def description(self) -> str:
        return f"the server at {self.url}"

    def call(self, method: str, path: str, body: bytes | None = None, *, content_type: str = "application/json",
             timeout: float = REQUEST_TIMEOUT_S) -> Reply:
        headers = {"content-type": content_type, "accept": "application/json"}
        if self.token:
            headers["authorization"] = f"Bearer {self.token}"
        request = urllib.request.Request(self.url + path, data=body, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310 - our own server
                return Reply(response.status, _decoded(response.read()), dict(response.headers.items()))
        except urllib.error.HTTPError as exc:
            return Reply(exc.code, _decoded(exc.read()), dict(exc.headers.items()))
        except (urllib.error.URLError, OSError) as exc:
            raise CliError(f"{self.description} stopped answering ({getattr(exc, 'reason', exc)}); "
                           "run the command again (it works without a server too)") from exc


class InProcessApi:
    """The API handler Lambda runs, called in this process with the event API Gateway would send (the same
    routes, validation, audit and admin checks as the server's; the local user's groups are the server's)."""

    description = "this process (no server is running on this data folder)"

    def __init__(self) -> None:
        from voiceassist_local.cli.local import local_dependencies

        self.groups = local_dependencies().settings.local_groups

    def call(self, method: str, path: str, body: bytes | None = None, *, content_type: str = "application/json",
             timeout: float = REQUEST_TIMEOUT_S) -> Reply:
        import base64

        from voiceassist_local.handlers import invoke
        from voiceassist_local.http_api import to_api_gateway_event

        event = to_api_gateway_event(method, path, {"content-type": content_type}, body or b"", groups=self.groups)
        reply = invoke("api", event)
        payload = reply.get("body") or ""
        data = base64.b64decode(payload) if reply.get("isBase64Encoded") else payload.encode("utf-8")
        return Reply(int(reply.get("statusCode", 500)), _decoded(data), dict(reply.get("headers") or {}))


def path_with(path: str, params: dict[str, Any]) -> str:
    query = urllib.parse.urlencode({k: v for k, v in params.items() if v not in (None, "")})
    return f"{path}?{query}" if query else path


# --------------------------------------------------------------------------- the running server


def running_server(folder: Path | None = None) -> HttpApi | None:
    """The API of the server running on this data folder, if its server.json names one that answers."""
    info = read_server_file(folder or data_dir())
    if info is None:
        return None
    pid = info.get("pid")
    if isinstance(pid, int) and not _process_exists(pid):
        return None
    api = HttpApi(str(info["url"]), os.environ.get(TOKEN_ENV) or None)
    try:
        reply = api.call("GET", "/v1/health", timeout=PROBE_TIMEOUT_S)
    except CliError:
        return None
    if reply.status == 401:  # a server started with a token this command was not given: say so, not run silently
        print(f"(the server at {info['url']} needs its token: set {TOKEN_ENV} as it was set for the server to go "
              "through it; running in this process instead)", file=sys.stderr, flush=True)
    return api if reply.ok else None


def read_server_file(folder: Path) -> dict[str, Any] | None:
    try:
        info = json.loads((folder / SERVER_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return info if isinstance(info, dict) and isinstance(info.get("url"), str) else None


def _process_exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # someone else's process: it exists
        return True
    return True


def client_url(host: str, port: int) -> str:
    """The URL a client on this machine uses for a server bound to host:port (a wildcard is reached locally)."""
    reachable = "127.0.0.1" if host in ("", "0.0.0.0") else ("::1" if host == "::" else host)  # noqa: S104
    return f"http://[{reachable}]:{port}" if ":" in reachable else f"http://{reachable}:{port}"


def write_server_file(folder: Path, url: str) -> Path:
    path = folder / SERVER_FILE
    path.write_text(json.dumps({"url": url, "pid": os.getpid()}), encoding="utf-8")
    return path


def remove_server_file(folder: Path) -> None:
    info = read_server_file(folder)
    if info is not None and info.get("pid") == os.getpid():
        (folder / SERVER_FILE).unlink(missing_ok=True)


def lock_data_folder(folder: Path) -> IO[str]:
    """Hold the data folder's server lock for this process's life (released when the process ends, however it
    ends); a second server on the same folder is refused with who holds it."""
    import fcntl

    folder.mkdir(parents=True, exist_ok=True)
    handle = (folder / LOCK_FILE).open("a+", encoding="utf-8")
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        handle.close()
        if exc.errno not in (errno.EAGAIN, errno.EACCES):
            raise
        info = read_server_file(folder) or {}
        who = f" (pid {info['pid']}, {info['url']})" if info.get("pid") else ""
        raise CliError(f"another VoiceAssist server{who} is already using the data folder {folder}: stop it "
                       "(Ctrl-C in its terminal), or give this one its own folder with --data-dir") from exc
    return handle
