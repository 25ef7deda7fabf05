"""File tools over the person's own WebDAV files (Nextcloud or any WebDAV server; tools/workspace.py).

In the PHI boundary (`requires_phi: true`): a clinician's files hold patient documents, so searches may name a
patient and every result is marked as carrying PHI. Searching and reading are low risk. Reading sends the
file through the ingestion extractors (PDF, Word, HTML, Markdown, text) with a size cap. Adding a file to the
knowledge base needs the person's confirmation and the admin role (as POST /v1/documents does), goes through
ingestion (service.accept_upload), and is refused when the file's text holds PHI: the knowledge base is shared.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from voiceassist.errors import ExtractionError, VoiceAssistError
from voiceassist.ingest import extraction
from voiceassist.models import DocumentMetadata, RiskLevel, ToolCategory
from voiceassist.phi.detection import failed_result
from voiceassist.ports import PhiDetector, RemoteFile
from voiceassist.tools.errors import PhiRefused
from voiceassist.tools.registry import Tool, ToolEnvironment, ToolOutput, define
from voiceassist.tools.workspace import Workspace, WorkspaceNotConfigured

RATE_LIMIT = 20  # calls per user per minute (the design's limit for files)
TIMEOUT_S = 8.0
MAX_FILE_BYTES = 10 * 1024 * 1024  # what a read downloads at most
MAX_TEXT_CHARS = 20_000  # what the model reads of a file (the rest is cut, and says so)

LEAVES_ROOT = ("the path leaves the root of your files ('..' or a URL): give the file's path inside your files, "
               "e.g. Documents/protocol.pdf, as search_nextcloud_files returns it")
Ingest = Callable[[str, bytes, DocumentMetadata], dict[str, Any]]  # filename, data, metadata -> ids


class FileSearch(BaseModel):
    model_config = ConfigDict(extra="forbid")

    query: str = Field(min_length=1, max_length=200, description="Part of the file name (or of its text)")
    content: bool = Field(default=False, description="Search the files' text too (Nextcloud full-text search)")
    limit: int = Field(default=10, ge=1, le=50)


class FilePath(BaseModel):
    model_config = ConfigDict(extra="forbid")

    path: str = Field(min_length=1, max_length=1000, description="The file's path inside the user's files, "
                      "as search_nextcloud_files returned it")

    @field_validator("path")
    @classmethod
    def inside_the_root(cls, value: str) -> str:
        """A '..' segment or a URL leaves the user's files: refused here, in those words, before the input screen
        (which would read '../../etc/passwd' as an attack and say so). The adapter checks again (webdav/client)."""
        if leaves_root(value):
            raise ValueError(LEAVES_ROOT)
        return value


class FileToKnowledgeBase(FilePath):
    title: str | None = Field(default=None, max_length=300, description="The document's title (default: name)")


def file_json(found: RemoteFile) -> dict[str, Any]:
    return {"path": found.path, "name": found.name, "size": found.size, "content_type": found.content_type,
            "modified": found.modified}


def file_tools(workspace: Workspace, *, ingest: Ingest | None = None,
               detector: Callable[[], PhiDetector] | None = None) -> list[Tool]:
    def search_files(params: FileSearch, env: ToolEnvironment) -> ToolOutput:
        found = workspace.files(env.user_id).search(params.query, limit=params.limit, content=params.content)
        files = [file_json(f) for f in found]
        lines = [f"- {f['path']} ({f['size'] if f['size'] is not None else '?'} bytes)" for f in files]
        return ToolOutput(content="\n".join(lines) if lines else "No file matched.",
                          data={"files": files, "count": len(files)}, carries_phi=True)

    def retrieve_file(params: FilePath, env: ToolEnvironment) -> ToolOutput:
        text, kind = _read_text(workspace, env, params.path)
        cut = len(text) > MAX_TEXT_CHARS
        shown = text[:MAX_TEXT_CHARS] + ("\n[... cut: the file is longer]" if cut else "")
        return ToolOutput(content=shown, data={"path": params.path, "content_type": kind, "chars": len(text),
                                               "truncated": cut}, carries_phi=True)

    def add_to_knowledge_base(params: FileToKnowledgeBase, env: ToolEnvironment) -> ToolOutput:
        if ingest is None or detector is None:
            raise WorkspaceNotConfigured("adding files to the knowledge base is not available in this deployment")
        data = workspace.files(env.user_id).read(params.path, max_bytes=MAX_FILE_BYTES)
        name = params.path.rsplit("/", 1)[-1]
        text, _kind = _extract(name, data)
        _refuse_phi(text, detector())
        metadata = DocumentMetadata(doc_key=f"workspace/{env.user_id}/{params.path}"[:512],
                                    title=params.title or name)
        ids = ingest(name, data, metadata)
        return ToolOutput(content=f"Added {name} to the knowledge base; ingestion job {ids.get('job_id')}.",
                          data=ids, carries_phi=True)

    common: dict[str, Any] = {"category": ToolCategory.FILE, "requires_phi": True, "rate_limit": RATE_LIMIT,
                              "timeout_seconds": TIMEOUT_S}
    return [
        define("search_nextcloud_files", "Find files in the user's own Nextcloud/WebDAV files by name (or by "
               "content where the server supports it). In the PHI boundary.", FileSearch, search_files, **common),
        define("retrieve_nextcloud_file", "Read the text of one of the user's files (PDF, Word, HTML, Markdown, "
               f"text; up to {MAX_FILE_BYTES // (1024 * 1024)} MB, {MAX_TEXT_CHARS} characters shown).",
               FilePath, retrieve_file, **common),
        define("add_nextcloud_file_to_knowledge_base", "Add one of the user's files to the shared knowledge base "
               "(asks the user to confirm first; refused when the file holds patient details).",
               FileToKnowledgeBase, add_to_knowledge_base, requires_confirmation=True, risk_level=RiskLevel.HIGH,
               allowed_roles=["admin"], summarize=lambda p: f"add your file {p.path} to the shared knowledge base",
               **{**common, "timeout_seconds": 30.0}),
    ]


def _read_text(workspace: Workspace, env: ToolEnvironment, path: str) -> tuple[str, str]:
    data = workspace.files(env.user_id).read(path, max_bytes=MAX_FILE_BYTES)
    return _extract(path.rsplit("/", 1)[-1], data)


def _extract(name: str, data: bytes) -> tuple[str, str]:
    kind = extraction.detect_content_type(name, data)
    try:
        document = extraction.extract(data, kind, max_bytes=MAX_FILE_BYTES, max_seconds=TIMEOUT_S / 2)
    except ExtractionError as exc:
        raise UnreadableFile(f"{name} could not be read: {exc.reason}") from exc
    return "\n\n".join(page.text for page in document.pages if page.text.strip()), document.content_type


class UnreadableFile(VoiceAssistError):
    """The extractors could not read the file (empty, no text, a broken PDF): the reason is theirs, in words."""

    status_code = 422
    code = "unreadable_file"


def _refuse_phi(text: str, detector: PhiDetector) -> None:
    try:
        result = detector.detect(text)
    except Exception as exc:  # noqa: BLE001 - a detector that fails counts as PHI (fail closed)
        result = failed_result(f"PHI detector failed ({type(exc).__name__})")
    if result.contains_phi:
        raise PhiRefused("the file holds patient details (or could not be checked); the shared knowledge base "
                         "takes no PHI")


def leaves_root(path: str) -> bool:
    """Whether `path` climbs out of the files' root ('..') or names another server (a URL)."""
    return "://" in path or any(part == ".." for part in path.replace("\\", "/").split("/"))
