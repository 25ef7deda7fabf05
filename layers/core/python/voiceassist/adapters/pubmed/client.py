"""PubMed as a search source: NCBI E-utilities ESearch (ranked PMIDs) then EFetch (the abstracts).

PubMed is outside the PHI boundary (`in_boundary = False`): the caller passes only text the egress guard
(phi.ensure_no_phi) cleared. The client itself never logs the query (only its length) and never puts it, or
the API key, in a URL: both go in a POST form body, which E-utilities accept on every endpoint. URLs end up
in urllib3's debug log, in requests' exception messages and in proxy logs; bodies do not. Error messages say
which stage failed, how often it was tried and the HTTP status, never the server's text (NCBI echoes the
key in its throttling answer).

Time. Every request gets `timeout_s` for connecting and for each read, cut to what is left of the search's
`deadline_s` (ESearch, EFetch, retries, back-off and rate-limit waits all share it). A retry or a wait that
would not fit is not started. The bound is on connect, time to first byte and each read of the body (read
in pieces with a deadline check between them): a server trickling bytes could overshoot by one read timeout.

Retries. Connection errors, time-outs, HTTP 429 and 5xx are retried `max_retries` times per stage, with
exponential back-off and equal jitter (half fixed, half random, so a throttled client never retries at
once); a Retry-After longer than the back-off wins if it fits the deadline. Other 4xx, redirects and
payloads NCBI marks as errors are not retried. Exhausted or hopeless: SourceUnavailable.

Rate limit. NCBI allows 3 requests/s per client without an API key and 10/s with one. The limiter spaces
requests at least 1/rate apart, per process (clients with the same base URL and rate share one). Lambda
runs one process per concurrent execution, so N warm environments can send N times the rate. To share a
budget across them, cap the function's reserved concurrency, or pass a limiter with the same
`acquire(max_wait_s=...)` method that counts requests per second in a shared table (the KeyValueState port's
DynamoDB adapter does conditional writes); NCBI's 429 is the backstop and is retried with back-off.

Pointing it at the real NCBI
----------------------------
- base_url: "https://eutils.ncbi.nlm.nih.gov/entrez/eutils" (https only: http is redirected, and the client
  does not follow redirects, so that the form body with the key is never re-sent elsewhere).
- tool and email: register them with NCBI (eutilities@ncbi.nlm.nih.gov) so that NCBI can contact the
  operator before blocking an abusive tool; email is the operator's address, never an end user's.
- api_key: create one in the NCBI account settings, store it in AWS Secrets Manager, and have the
  composition function read it at cold start (the function's role gets secretsmanager:GetSecretValue on that
  one secret); never an environment variable in plain text. With the key, the default rate is 10 requests/s.
- Egress: a Lambda in a VPC needs a NAT gateway (or a proxy honoured through HTTPS_PROXY) to reach NCBI.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import TypeVar

import requests
from requests.adapters import HTTPAdapter

from voiceassist.adapters.pubmed.parsing import (
    PubMedPayloadError,
    article_hit,
    parse_efetch,
    parse_esearch,
)
from voiceassist.errors import InvalidInput, SourceUnavailable
from voiceassist.models import SearchHit
from voiceassist.observability import logger

NCBI_BASE_URL = "https://eutils.ncbi.nlm.nih.gov/entrez/eutils"
RATE_WITHOUT_KEY = 3.0  # requests per second NCBI allows per client
RATE_WITH_KEY = 10.0
MAX_TOP_K = 100
MAX_RESPONSE_BYTES = 8 * 1024 * 1024  # 100 abstracts are well under 2 MB
READ_PIECE_BYTES = 64 * 1024
BACKOFF_BASE_S = 0.25
BACKOFF_MAX_S = 4.0
MIN_ATTEMPT_S = 0.05  # with less time than this left, a request cannot succeed: do not start it

T = TypeVar("T")


class MinIntervalLimiter:
    """Requests at least 1/requests_per_second apart, thread-safe; waiting callers queue in arrival order.

    A caller reserves the next free slot under the lock and sleeps outside it. `clock` and `sleep` are
    injectable so that tests can check the spacing without waiting.
    """

    def __init__(self, requests_per_second: float, *, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        if requests_per_second <= 0:
            raise InvalidInput("requests_per_second must be greater than 0")
        self.interval_s = 1.0 / requests_per_second
        self._clock = clock
        self._sleep = sleep
        self._next_free = float("-inf")
        self._lock = threading.Lock()

    def acquire(self, *, max_wait_s: float = float("inf")) -> bool:
        """Wait for a slot; False (nothing reserved, no wait) if the slot is more than max_wait_s away."""
        with self._lock:
            now = self._clock()
            slot = max(now, self._next_free)
            if slot - now > max_wait_s:
                return False
            self._next_free = slot + self.interval_s
        if slot > now:
            self._sleep(slot - now)
        return True


_shared_limiters: dict[tuple[str, float], MinIntervalLimiter] = {}
_shared_limiters_lock = threading.Lock()


def shared_rate_limiter(base_url: str, requests_per_second: float) -> MinIntervalLimiter:
    """The process-wide limiter for one E-utilities server and rate (clients built per call share it)."""
    with _shared_limiters_lock:
        key = (base_url, requests_per_second)
        if key not in _shared_limiters:
            _shared_limiters[key] = MinIntervalLimiter(requests_per_second)
        return _shared_limiters[key]


@dataclass(frozen=True, slots=True)
class _Budget:
    clock: Callable[[], float]
    started: float
    deadline: float  # on clock's scale; inf without a deadline

    def remaining(self) -> float:
        return self.deadline - self.clock()

    def elapsed(self) -> float:
        return self.clock() - self.started


class _Retryable(Exception):
    """One attempt failed in a way worth another try; `reason` is safe to show (no query, no key)."""

    def __init__(self, reason: str, retry_after_s: float | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.retry_after_s = retry_after_s


class PubMedClient:
    """A search source over E-utilities. `session` may be a requests.Session of the caller's (its adapters
    should not retry); `rate_limiter`, `clock`, `sleep` and `jitter` are for sharing a limiter and for tests.
    """

    name = "pubmed"
    in_boundary = False

    def __init__(self, base_url: str, *, api_key: str | None = None, tool: str = "voiceassist",
                 email: str | None = None, timeout_s: float = 3.0, max_retries: int = 2,
                 requests_per_second: float | None = None, session: requests.Session | None = None,
                 rate_limiter: MinIntervalLimiter | None = None, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep, jitter: Callable[[], float] = random.random,
                 budget_seconds: float = 4.0) -> None:
        if not base_url.startswith(("https://", "http://")):
            raise InvalidInput("the PubMed base_url must be an http(s) URL, e.g. " + NCBI_BASE_URL)
        if timeout_s <= 0 or max_retries < 0:
            raise InvalidInput("the PubMed client needs timeout_s > 0 and max_retries >= 0")
        self.base_url = base_url.rstrip("/")
        self.budget_seconds = budget_seconds  # one search, retries included (the SearchSource port's budget)
        self.timeout_s = timeout_s
        self.max_retries = max_retries
        rate = requests_per_second if requests_per_second is not None else (
            RATE_WITH_KEY if api_key else RATE_WITHOUT_KEY)
        self.rate_limiter = rate_limiter or shared_rate_limiter(self.base_url, rate)
        self._identity = {"tool": tool, **({"email": email} if email else {}),
                          **({"api_key": api_key} if api_key else {})}
        self._session = session
        self._session_lock = threading.Lock()
        self._clock = clock
        self._sleep = sleep
        self._jitter = jitter

    def __repr__(self) -> str:  # the key stays out of reprs in tracebacks and debug logs
        return f"PubMedClient(base_url={self.base_url!r}, api_key={'***' if 'api_key' in self._identity else None})"

    def search(self, query: str, *, top_k: int = 5, deadline_s: float | None = None) -> list[SearchHit]:
        """PubMed's most relevant articles with an abstract, best first; [] when nothing matches.

        Articles without an abstract are left out: a title alone is no evidence to answer from, and citing it
        would look like support it does not give. So fewer than top_k hits can come back. Scores follow
        ESearch's rank (pubmed_parsing.rank_score), also for the articles after a skipped one.
        """
        if not 1 <= top_k <= MAX_TOP_K:
            raise InvalidInput(f"top_k must be between 1 and {MAX_TOP_K}")
        if not query.strip():
            return []
        now = self._clock()
        budget = _Budget(self._clock, now, now + deadline_s if deadline_s is not None else float("inf"))
        esearch = {"db": "pubmed", "term": query, "retmax": str(top_k), "sort": "relevance", "retmode": "json"}
        pmids = self._parsed("esearch", esearch, budget, parse_esearch)[:top_k]
        efetch = {"db": "pubmed", "id": ",".join(pmids), "retmode": "xml", "rettype": "abstract"}
        articles = self._parsed("efetch", efetch, budget, parse_efetch) if pmids else {}
        hits = [article_hit(articles[pmid], rank=rank) for rank, pmid in enumerate(pmids)
                if pmid in articles and articles[pmid].abstract]
        logger.info("pubmed search", extra={
            "query_chars": len(query), "top_k": top_k, "pmids": len(pmids), "fetched": len(articles),
            "hits": len(hits), "elapsed_ms": round(budget.elapsed() * 1000)})
        return hits

    # ----------------------------------------------------------------------- transport

    def _parsed(self, stage: str, params: dict[str, str], budget: _Budget, parse: Callable[[bytes], T]) -> T:
        try:
            return parse(self._call(stage, params, budget))
        except PubMedPayloadError as exc:  # its message describes the payload's shape, never its text
            raise self._unavailable(stage, f"unusable answer: {exc}", attempts=None, budget=budget) from None

    def _call(self, stage: str, params: dict[str, str], budget: _Budget) -> bytes:
        """The body of a 200 answer to POST {base_url}/{stage}.fcgi, retrying what is worth retrying."""
        attempts = 0
        while True:
            if budget.remaining() < MIN_ATTEMPT_S:
                raise self._unavailable(stage, "no time left before the deadline", attempts, budget)
            if not self.rate_limiter.acquire(max_wait_s=budget.remaining() - MIN_ATTEMPT_S):
                raise self._unavailable(stage, "the rate limit leaves no slot before the deadline", attempts,
                                        budget)
            attempts += 1
            try:
                return self._attempt(stage, params, budget)
            except _Retryable as failure:
                if attempts > self.max_retries:
                    raise self._unavailable(stage, failure.reason, attempts, budget) from None
                delay = self._backoff(attempts, failure.retry_after_s)
                if delay > budget.remaining() - MIN_ATTEMPT_S:
                    raise self._unavailable(stage, f"{failure.reason}; the next retry would miss the deadline",
                                            attempts, budget) from None
                logger.warning("pubmed retry", extra={"stage": stage, "attempt": attempts,
                                                      "reason": failure.reason, "delay_ms": round(delay * 1000)})
                self._sleep(delay)

    def _attempt(self, stage: str, params: dict[str, str], budget: _Budget) -> bytes:
        timeout = min(self.timeout_s, budget.remaining())
        url = f"{self.base_url}/{stage}.fcgi"
        try:
            response = self._http().post(url, data={**params, **self._identity}, timeout=(timeout, timeout),
                                         stream=True, allow_redirects=False)
        except requests.Timeout:
            raise _Retryable(f"timed out after {timeout:.2f}s") from None
        except requests.ConnectionError as exc:
            raise _Retryable(f"connection failed ({type(exc).__name__})") from None
        except requests.RequestException as exc:
            raise self._unavailable(stage, f"request failed ({type(exc).__name__})", None, budget) from None
        with response:
            status = response.status_code
            if status == 429 or status >= 500:
                raise _Retryable(f"HTTP {status}", _retry_after_s(response.headers.get("Retry-After")))
            if status != 200:
                hint = {400: "check the parameters and the API key", 401: "check the API key",
                        403: "check the API key, tool and email"}.get(status, "not retried")
                if 300 <= status < 400:
                    hint = "redirected; check that base_url is the https E-utilities URL"
                raise self._unavailable(stage, f"HTTP {status} ({hint})", None, budget)
            return self._read(response, budget, timeout)  # a PubMedPayloadError is reported by _parsed

    def _read(self, response: requests.Response, budget: _Budget, timeout: float) -> bytes:
        pieces: list[bytes] = []
        size = 0
        try:
            for piece in response.iter_content(READ_PIECE_BYTES):
                size += len(piece)
                if size > MAX_RESPONSE_BYTES:
                    raise PubMedPayloadError(f"answer larger than {MAX_RESPONSE_BYTES} bytes")
                pieces.append(piece)
                if budget.remaining() <= 0:
                    raise _Retryable("deadline passed while reading the answer")
        except requests.RequestException as exc:  # a reset, a time-out (reported as a ConnectionError), a cut
            raise _Retryable(f"reading the answer failed ({type(exc).__name__}, timeout {timeout:.2f}s)") from None
        return b"".join(pieces)

    def _backoff(self, attempt: int, retry_after_s: float | None) -> float:
        ceiling = min(BACKOFF_MAX_S, BACKOFF_BASE_S * 2 ** (attempt - 1))
        delay = ceiling / 2 + self._jitter() * ceiling / 2
        return max(delay, retry_after_s) if retry_after_s is not None else delay

    def _unavailable(self, stage: str, reason: str, attempts: int | None, budget: _Budget) -> SourceUnavailable:
        tried = f" after {attempts} attempt{'s' if attempts != 1 else ''}" if attempts is not None else ""
        message = f"PubMed {stage} failed{tried} in {budget.elapsed():.2f}s: {reason}"
        logger.warning("pubmed unavailable", extra={"stage": stage, "attempts": attempts, "reason": reason})
        return SourceUnavailable(message)

    def _http(self) -> requests.Session:
        if self._session is None:
            with self._session_lock:
                if self._session is None:
                    session = requests.Session()
                    # No urllib3 retries: this client retries itself, within the deadline.
                    session.mount("https://", HTTPAdapter(max_retries=0))
                    session.mount("http://", HTTPAdapter(max_retries=0))
                    self._session = session
        return self._session


def _retry_after_s(value: str | None) -> float | None:
    """Retry-After in seconds, from delta-seconds or an HTTP date; None when absent or unreadable."""
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
    except (TypeError, ValueError):
        return None
