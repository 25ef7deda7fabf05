"""The query pipeline on the embedded stack, wired to stub model servers, with everything that could leak PHI
recorded: what reached each model server, the logs, the X-Ray trace metadata, the audit log and the sessions.

    with query_stack(seed_dir, tmp_path, monkeypatch, runner=runner, embedder=..., detector=...) as stack:
        response = stack.ask("What is the metformin dose for eGFR 40?")
        assert not find_phi(stack.cloud.raw_requests)

The cloud model is an OpenAIStub reached through the OpenAI SDK (Settings.openai_base_url); PubMed is a
PubMedStub (NCBI E-utilities, Settings.pubmed_base_url), outside the boundary too; the in-boundary model is
SageMaker: a real boto3 sagemaker-runtime client (built by chat_models.build_local_chat) sent to the
stub's InvokeEndpoint route through AWS_ENDPOINT_URL_SAGEMAKER_RUNTIME, or (in_boundary_provider=BEDROCK) Bedrock:
a real bedrock-runtime client sent to the same stub's Converse route through AWS_ENDPOINT_URL_BEDROCK_RUNTIME.
The pipeline is the real query.asl.json run by the local runner with the real handlers (query_runner).
"""

from __future__ import annotations

import json
import logging
import shutil
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from voiceassist_local.asl_runner import LocalPipelineRunner
from voiceassist_local.cli.local import ensure_sample_corpus
from voiceassist_local.handlers import function_names, load_handler, placeholder_for
from voiceassist_local.pipelines import PIPELINES

from tests.stubs.openai_stub import OpenAIStub, StubReply
from tests.support.pubmed_stub import PubMedStub, StubResponse
from voiceassist import observability, service
from voiceassist.composition import Dependencies, use_dependencies
from voiceassist.errors import DependencyError
from voiceassist.models import (
    Chunk,
    DocumentMetadata,
    QueryRequest,
    QueryResponse,
    RoutingMode,
    SearchQuery,
    Session,
    SourcePreferences,
    SourceType,
    utc_now,
)
from voiceassist.ports import PhiDetector, SearchIndex
from voiceassist.settings import InBoundaryProvider, Settings

CLOUD_MODEL = "gpt-4o-mini"
SAGEMAKER_ENDPOINT = "llama-3-1-8b-endpoint"
SAGEMAKER_MODEL = "llama-3.1-8b"  # SageMakerChatModel's label (BedrockChatModel's too: the same model)
BEDROCK_MODEL_ID = "us.meta.llama3-1-8b-instruct-v1:0"
USER = "clinician-1"
CLINICAL_CONTEXT = "Type 2 diabetes on metformin; chronic kidney disease stage 3b"
CLOUD_ANSWER = "From the reference: see the cited excerpt [1]."
IN_BOUNDARY_ANSWER = "Per the reference, this case fits the cited excerpt [1]."
PUBMED_BUDGET_S = 2.0  # short, so that a slow PubMed costs little, yet enough on a loaded machine


def seed_corpus(data_dir: Path, *, embedder: Any, detector: PhiDetector) -> Path:
    """Ingest the bundled sample corpus into data_dir once; each stack then works on a copy of it."""
    data_dir.mkdir(parents=True)
    deps = Dependencies(Settings(data_dir=data_dir))
    deps.embedder, deps.phi_detector = embedder, detector  # type: ignore[misc]
    use_dependencies(deps)
    try:
        ensure_sample_corpus(deps)
    finally:
        use_dependencies(None)
        deps.pipelines.close()  # type: ignore[attr-defined]
        close(deps)
    return data_dir


def close(deps: Dependencies) -> None:
    """Close the files this Dependencies opened (so its folder can be copied)."""
    built = vars(deps)
    for name in ("index", "_sqlite"):
        if name in built and hasattr(built[name], "close"):
            built[name].close()


def query_runner() -> LocalPipelineRunner:
    """query.asl.json with the real handlers, Retry waits scaled to zero; it reads dependencies() per call, so
    one runner serves every stack (parsing the ASL takes a quarter of a second)."""
    tasks = {placeholder_for(name): load_handler(name) for name in function_names() if name != "api"}
    return LocalPipelineRunner({"query": PIPELINES["query"]}, tasks, retry_interval_scale=0)


# --------------------------------------------------------------------------- failures to inject


class UnreachableIndex:
    """The search cluster is down: every search fails the way the OpenSearch adapter reports it."""

    def __init__(self, inner: SearchIndex) -> None:
        self._inner = inner

    def search(self, query: SearchQuery) -> Any:
        raise DependencyError("the search cluster could not be reached")

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


class OutsideEmbedder:
    """The same vectors from an embedder outside the boundary (a cloud API), recording every text it was given:
    no question with PHI may reach it, ahead or otherwise. Everything else (embed_apart included) is the inner
    embedder's, so the boundary check, not a missing method, is what must stop a call."""

    in_boundary = False

    def __init__(self, inner: Any) -> None:
        self.inner, self.texts = inner, []

    def embed(self, texts: list[str]) -> Any:
        self.texts.extend(texts)
        return self.inner.embed(texts)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


class CrashingDetector:
    """A PHI detector that crashes, quoting its input in the error as careless libraries do."""

    def detect(self, text: str) -> Any:
        raise RuntimeError(f"recognizer crashed on {text!r}")


# --------------------------------------------------------------------------- what could leak


class TraceRecorder:
    """Stands in for the X-Ray recorder behind Powertools' Tracer: keeps every annotation and metadata."""

    def __init__(self) -> None:
        self.entries: list[str] = []

    @contextmanager
    def in_subsegment(self, name: str | None = None, **_: Any) -> Iterator[TraceRecorder]:
        yield self

    def put_metadata(self, key: str, value: Any, namespace: str = "default") -> None:
        self.entries.append(f"{key}: {json.dumps(value, default=repr)}")

    def put_annotation(self, key: str, value: Any) -> None:
        self.entries.append(f"{key}: {value!r}")


class LogRecorder(logging.Handler):
    """Every log record of any logger, rendered with its extra fields and exception text, into `lines` as it is
    emitted (a check made while the recorder is installed sees every line so far)."""

    def __init__(self, lines: list[str]) -> None:
        super().__init__(level=logging.DEBUG)
        self.lines = lines

    def emit(self, record: logging.LogRecord) -> None:
        fields = {k: v for k, v in vars(record).items() if k not in ("args", "exc_info")}
        text = json.dumps(fields, default=repr)
        if record.exc_info:
            text += logging.Formatter().formatException(record.exc_info)
        self.lines.append(text)


class FormattedRecorder(logging.Handler):
    """Each record as a formatter renders it (Powertools' JSON), into `lines` as it is emitted."""

    def __init__(self, lines: list[str], formatter: logging.Formatter) -> None:
        super().__init__(level=logging.DEBUG)
        self.lines = lines
        self.setFormatter(formatter)

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))


@contextmanager
def recorded_logs() -> Iterator[list[str]]:
    """Our logger at DEBUG as Powertools prints it (JSON), and every other logger at INFO (Lambda's level); the
    list fills as records are emitted."""
    lines: list[str] = []
    ours = logging.getLogger(observability.logger.name)
    powertools_json = FormattedRecorder(lines, observability.logger.registered_formatter)
    everything = LogRecorder(lines)
    root = logging.getLogger()
    saved = ours.level, root.level
    ours.setLevel(logging.DEBUG)
    root.setLevel(logging.INFO)
    ours.addHandler(powertools_json)
    ours.addHandler(everything)
    root.addHandler(everything)
    try:
        yield lines
    finally:
        ours.removeHandler(powertools_json)
        ours.removeHandler(everything)
        root.removeHandler(everything)
        ours.setLevel(saved[0])
        root.setLevel(saved[1])


def find_phi(values: Sequence[str], *texts: Any) -> list[str]:
    """The PHI values that occur in any of the texts (strings, or anything with a JSON or repr form)."""
    haystack = "\n".join(t if isinstance(t, str) else json.dumps(t, default=repr) for t in texts)
    return [value for value in values if value.lower() in haystack.lower()]


# --------------------------------------------------------------------------- the stack


@dataclass
class QueryStack:
    deps: Dependencies
    cloud: OpenAIStub
    sagemaker: OpenAIStub
    pubmed: PubMedStub
    traces: TraceRecorder
    session_id: str
    responses: list[QueryResponse] = field(default_factory=list)

    def ask(self, question: str, *, session_id: str | None = None, sources: SourcePreferences | None = None
            ) -> QueryResponse:
        request = QueryRequest(query=question, session_id=session_id or self.session_id,
                               sources=sources or SourcePreferences())
        response = service.answer(self.deps, request, user_id=USER)
        self.responses.append(response)
        return response

    def stored_text(self) -> list[str]:
        """What the pipeline stored: the user's audit records and the session's messages."""
        audits = [record.model_dump_json() for record in self.deps.audit.list(user_id=USER, limit=1000)]
        messages = [m.model_dump_json() for m in self.deps.sessions.messages(self.session_id, limit=1000)]
        return audits + messages


@contextmanager
def query_stack(seed_dir: Path, work_dir: Path, monkeypatch: pytest.MonkeyPatch, *,
                runner: LocalPipelineRunner, embedder: Any, detector: PhiDetector,
                cloud_script: list[StubReply] | None = None, sagemaker_script: list[StubReply] | None = None,
                routing_mode: RoutingMode = RoutingMode.HYBRID, search_down: bool = False,
                pubmed_faults: dict[str, list[StubResponse]] | None = None,
                clinical_context: str | None = CLINICAL_CONTEXT,
                in_boundary_provider: InBoundaryProvider = InBoundaryProvider.SAGEMAKER,
                settings_overrides: dict[str, Any] | None = None) -> Iterator[QueryStack]:
    """A fresh copy of the seeded data, both stub model servers, the PubMed stub (faults played per route
    first), the real pipeline; installed process-wide. `settings_overrides`: more Settings fields."""
    data_dir = work_dir / "data"
    shutil.copytree(seed_dir, data_dir)
    with ExitStack() as stack:
        cloud = stack.enter_context(OpenAIStub(cloud_script or [StubReply(text=CLOUD_ANSWER)],
                                               model=CLOUD_MODEL))
        sagemaker = stack.enter_context(OpenAIStub(sagemaker_script or [StubReply(text=IN_BOUNDARY_ANSWER)]))
        pubmed = stack.enter_context(PubMedStub())
        for route, faults in (pubmed_faults or {}).items():
            pubmed.fail(route, *faults)
        for name, value in {"AWS_ENDPOINT_URL_SAGEMAKER_RUNTIME": sagemaker.sagemaker_endpoint_url,
                            "AWS_ENDPOINT_URL_BEDROCK_RUNTIME": sagemaker.origin,
                            "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
                            "AWS_SESSION_TOKEN": "testing"}.items():
            monkeypatch.setenv(name, value)
        settings = Settings(data_dir=data_dir, openai_base_url=cloud.base_url,
                            openai_api_key="sk-test-not-a-key", sagemaker_endpoint=SAGEMAKER_ENDPOINT,
                            routing_mode=routing_mode, pubmed_base_url=pubmed.base_url,
                            pubmed_budget_seconds=PUBMED_BUDGET_S, pubmed_requests_per_second=10,
                            in_boundary_provider=in_boundary_provider, bedrock_model_id=BEDROCK_MODEL_ID,
                            **(settings_overrides or {}))
        deps = Dependencies(settings)
        deps.embedder, deps.phi_detector = embedder, detector  # type: ignore[misc]
        deps.pipelines = runner  # type: ignore[misc]
        stack.callback(close, deps)
        if search_down:
            deps.index = UnreachableIndex(deps.index)  # type: ignore[misc]
        traces = TraceRecorder()
        monkeypatch.setattr(observability.tracer, "provider", traces)
        session = Session(user_id=USER, clinical_context=clinical_context,
                          expires_at=utc_now() + timedelta(hours=1))
        deps.sessions.create(session)
        use_dependencies(deps)
        stack.callback(use_dependencies, None)
        yield QueryStack(deps=deps, cloud=cloud, sagemaker=sagemaker, pubmed=pubmed, traces=traces,
                         session_id=session.session_id)


def index_passages(deps: Dependencies, doc_key: str, title: str, passages: dict[str, str], *,
                   token_count: int = 40) -> None:
    """Index passages (section name -> text) straight into the search index as one active guideline."""
    metadata = DocumentMetadata(doc_key=doc_key, title=title, source_type=SourceType.GUIDELINE)
    chunks = [Chunk(chunk_id=key, doc_id=f"{doc_key}#v1", doc_key=doc_key, version=1, ordinal=n, text=text,
                    token_count=token_count, section=key, metadata=metadata)
              for n, (key, text) in enumerate(passages.items())]
    deps.index.index(chunks, deps.embedder.embed([c.text for c in chunks]))
    deps.index.activate(doc_key, 1)
