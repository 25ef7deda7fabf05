"""The PubMed client against a real HTTP stub on 127.0.0.1 serving recorded E-utilities answers.

Time is injected (FakeTime) wherever the behaviour allows: back-off, Retry-After, the deadline and the rate
limiter are checked on a clock that only moves when the client sleeps, so nothing here waits for real
back-offs. The two tests that need a real slow server say so and assert with a generous margin.
"""

from __future__ import annotations

import json
import logging
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from tests.support.pubmed_stub import PubMedStub, StubResponse, fixture_bytes
from voiceassist import observability
from voiceassist.adapters.pubmed import client as pubmed
from voiceassist.adapters.pubmed.client import MinIntervalLimiter, PubMedClient
from voiceassist.adapters.pubmed.parsing import PubMedPayloadError, parse_efetch, parse_xml
from voiceassist.errors import InvalidInput, SourceUnavailable
from voiceassist.models import SearchHit, SourceType

QUERY = "metformin maximum dose eGFR 35 chronic kidney disease"
API_KEY = "ncbi-key-7f3a9c1e5b"
ALL_WITH_ABSTRACT = ["90000001", "90000002", "90000004", "90000005"]  # 90000003 is a letter without one


class FakeTime:
    """A monotonic clock that moves only when someone sleeps on it."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.sleeps: list[float] = []

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def make_client(stub: PubMedStub, fake: FakeTime | None = None, **options: Any) -> PubMedClient:
    """A client on fake time; its own limiter (real time, 1 µs apart) stays out of fake.sleeps."""
    fake = fake or FakeTime()
    defaults: dict[str, Any] = {
        "timeout_s": 2.0, "clock": fake.clock, "sleep": fake.sleep, "jitter": lambda: 0.5,
        "rate_limiter": MinIntervalLimiter(1e6),
    }
    return PubMedClient(stub.base_url, **{**defaults, **options})


def by_pmid(hits: list[SearchHit]) -> dict[str | None, SearchHit]:
    return {hit.chunk.metadata.pmid: hit for hit in hits}


@contextmanager
def recorded_logs() -> Iterator[list[str]]:
    """Every record of our logger and of every other logger (urllib3 included) at DEBUG, with extras."""
    lines: list[str] = []

    class Recorder(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            lines.append(json.dumps({k: v for k, v in vars(record).items() if k != "exc_info"}, default=repr))

    recorder = Recorder(level=logging.DEBUG)
    loggers = [logging.getLogger(), logging.getLogger(observability.logger.name)]
    levels = [one.level for one in loggers]
    for one in loggers:
        one.setLevel(logging.DEBUG)
        one.addHandler(recorder)
    try:
        yield lines
    finally:
        for one, level in zip(loggers, levels, strict=True):
            one.removeHandler(recorder)
            one.setLevel(level)


# --------------------------------------------------------------------------- results


def test_search_returns_articles_with_an_abstract_in_relevance_order() -> None:
    with PubMedStub() as stub:
        hits = make_client(stub).search(QUERY)

    assert [hit.chunk.metadata.pmid for hit in hits] == ALL_WITH_ABSTRACT
    # Scores follow ESearch's rank, 1 / (1 + rank); the letter at rank 2 leaves a gap.
    assert [hit.score for hit in hits] == pytest.approx([1.0, 1 / 2, 1 / 4, 1 / 5])
    assert all(hit.source == "pubmed" for hit in hits)


def test_search_maps_a_structured_abstract_and_its_citation_fields() -> None:
    with PubMedStub() as stub:
        hit = by_pmid(make_client(stub).search(QUERY))["90000001"]

    chunk, meta = hit.chunk, hit.chunk.metadata
    assert chunk.text == (
        "BACKGROUND: Metformin is often stopped early in chronic kidney disease. "
        "METHODS: Adults with an eGFR of 30-59 were randomized to 500 or 1000 mg daily for 24 weeks. "
        "RESULTS: HbA1c fell by 0.6% with 1000 mg; no lactic acidosis occurred. "
        "CONCLUSIONS: Up to 1000 mg daily was safe at an eGFR of 30-44.")
    assert meta.title == "Metformin dosing in chronic kidney disease: a randomized trial."
    assert meta.authors == ("Smith JA", "Lee K", "Nguyen P")  # initials made from ForeName when missing
    assert (meta.year, meta.doi) == (2021, "10.9999/synth.dc.2021.0001")  # not the cited reference's DOI
    assert meta.url == "https://pubmed.ncbi.nlm.nih.gov/90000001/"
    assert meta.source_type is SourceType.PUBMED
    assert (chunk.doc_key, chunk.doc_id, chunk.chunk_id) == ("pmid:90000001", "pubmed_90000001_v1",
                                                            "pubmed_90000001_v1:00000")
    assert (chunk.version, chunk.ordinal, meta.doc_key) == (1, 0, "pmid:90000001")
    assert len(chunk.text) // 6 < chunk.token_count < len(chunk.text) // 2


def test_search_reads_medline_dates_elocation_dois_collective_authors_and_superscripts() -> None:
    with PubMedStub() as stub:
        hits = by_pmid(make_client(stub).search(QUERY))

    cohort, old = hits["90000002"].chunk, hits["90000005"].chunk
    assert (cohort.metadata.year, cohort.metadata.doi) == (2019, "10.9999/synth.nephrol.2019.0002")
    assert cohort.metadata.authors == ("Synthetic Renal Outcomes Consortium",)
    assert "30-44 mL/min/1.73 m^2 when" in cohort.text and "Synthetic fixture" not in cohort.text
    assert old.metadata.year == 1998  # "1998 Dec-1999 Jan"
    assert old.metadata.authors == ("Brown P",)  # the ValidYN="N" spelling is left out
    assert old.metadata.doi is None  # the DOI in its ReferenceList is a cited work's
    assert old.text == ("Renal clearance of metformin falls in proportion to creatinine clearance. "
                        "Clinical relevance: Doses should be reduced as eGFR declines.")


def test_search_reads_bookshelf_chapters() -> None:
    with PubMedStub() as stub:
        chapter = by_pmid(make_client(stub).search(QUERY))["90000004"].chunk.metadata

    assert (chapter.title, chapter.year, chapter.doi) == ("Metformin", 2024, None)
    assert chapter.authors == ("Corcoran C", "Jacobs TF")  # the editors are not authors


def test_search_sends_esearch_then_efetch_with_ncbi_parameters_in_a_form_body() -> None:
    with PubMedStub() as stub:
        make_client(stub, email="ops@example.org").search(QUERY, top_k=5)

    esearch, efetch = stub.requests
    assert (esearch.route, esearch.method, efetch.route, efetch.method) == ("esearch", "POST", "efetch", "POST")
    assert esearch.params == {"db": "pubmed", "term": QUERY, "retmax": "5", "sort": "relevance",
                              "retmode": "json", "tool": "voiceassist", "email": "ops@example.org"}
    assert efetch.params == {"db": "pubmed", "id": "90000001,90000002,90000003,90000004,90000005",
                             "retmode": "xml", "rettype": "abstract", "tool": "voiceassist",
                             "email": "ops@example.org"}
    assert "?" not in esearch.path and "?" not in efetch.path  # nothing in URLs, which end up in logs


def test_search_top_k_limits_what_is_asked_for_and_returned() -> None:
    with PubMedStub() as stub:
        hits = make_client(stub).search(QUERY, top_k=2)

    assert stub.requests_to("esearch")[0].params["retmax"] == "2"
    assert stub.requests_to("efetch")[0].params["id"] == "90000001,90000002"
    assert [hit.chunk.metadata.pmid for hit in hits] == ["90000001", "90000002"]


def test_search_without_matches_returns_nothing_and_fetches_nothing() -> None:
    with PubMedStub(esearch=fixture_bytes("esearch_no_results.json")) as stub:
        hits = make_client(stub).search("xylophagous metforminoid")

    assert hits == []
    assert [r.route for r in stub.requests] == ["esearch"]


def test_search_with_an_empty_article_set_returns_nothing() -> None:
    with PubMedStub(efetch=fixture_bytes("efetch_empty.xml")) as stub:
        assert make_client(stub).search(QUERY) == []


def test_search_refuses_a_bad_top_k_and_skips_a_blank_query() -> None:
    with PubMedStub() as stub:
        client = make_client(stub)
        with pytest.raises(InvalidInput, match="top_k"):
            client.search(QUERY, top_k=0)
        assert client.search("   ") == []

    assert stub.requests == []


# --------------------------------------------------------------------------- retries and deadline


def test_search_retries_server_errors_with_growing_backoff_then_succeeds() -> None:
    fake = FakeTime()
    with PubMedStub() as stub:
        stub.fail("esearch", StubResponse(status=500), StubResponse(status=503))
        hits = make_client(stub, fake).search(QUERY)

    assert [hit.chunk.metadata.pmid for hit in hits] == ALL_WITH_ABSTRACT
    assert len(stub.requests_to("esearch")) == 3
    # Equal jitter at its midpoint (jitter() = 0.5): 3/4 of 0.25 s, then of 0.5 s.
    assert fake.sleeps == pytest.approx([0.1875, 0.375])


def test_search_retries_a_reset_connection_and_a_cut_off_answer() -> None:
    with PubMedStub() as stub:
        stub.fail("efetch", StubResponse(reset=True),
                  StubResponse(body=b"<PubmedArticleSet>", headers={"content-length": "99999"}))
        hits = make_client(stub).search(QUERY)

    assert len(hits) == 4
    assert len(stub.requests_to("efetch")) == 3


def test_search_raises_source_unavailable_when_retries_are_used_up() -> None:
    with PubMedStub() as stub:
        stub.fail("esearch", *[StubResponse(status=502)] * 3)
        with pytest.raises(SourceUnavailable, match=r"PubMed esearch failed after 3 attempts .*HTTP 502"):
            make_client(stub, max_retries=2).search(QUERY)

    assert len(stub.requests_to("esearch")) == 3
    assert stub.requests_to("efetch") == []


def test_search_honours_retry_after_on_429() -> None:
    fake = FakeTime()
    with PubMedStub() as stub:
        stub.fail("esearch", StubResponse(status=429, body=fixture_bytes("rate_limited.json"),
                                          headers={"Retry-After": "2"}))
        hits = make_client(stub, fake).search(QUERY, deadline_s=5)

    assert len(hits) == 4
    assert fake.sleeps == [2.0]


def test_search_gives_up_at_once_when_retry_after_exceeds_the_deadline() -> None:
    fake = FakeTime()
    with PubMedStub() as stub:
        stub.fail("esearch", StubResponse(status=429, headers={"Retry-After": "30"}))
        with pytest.raises(SourceUnavailable, match="HTTP 429; the next retry would miss the deadline"):
            make_client(stub, fake).search(QUERY, deadline_s=3)

    assert fake.sleeps == []
    assert len(stub.requests) == 1


def test_search_does_not_retry_other_client_errors() -> None:
    with PubMedStub() as stub:
        stub.fail("esearch", StubResponse(status=400, body=b'{"error":"Invalid API key"}'))
        with pytest.raises(SourceUnavailable, match=r"HTTP 400 \(check the parameters and the API key\)"):
            make_client(stub).search(QUERY)

    assert len(stub.requests) == 1


def test_search_does_not_follow_redirects() -> None:
    with PubMedStub() as stub:
        stub.fail("esearch", StubResponse(status=301, headers={"Location": "https://elsewhere.invalid/"}))
        with pytest.raises(SourceUnavailable, match="redirected; check that base_url is the https"):
            make_client(stub).search(QUERY)

    assert len(stub.requests) == 1


def test_search_never_sleeps_past_the_deadline() -> None:
    fake = FakeTime()
    with PubMedStub() as stub:
        stub.fail("esearch", *[StubResponse(status=503)] * 20)
        with pytest.raises(SourceUnavailable, match="the next retry would miss the deadline"):
            make_client(stub, fake, max_retries=20).search(QUERY, deadline_s=1.0)

    assert len(fake.sleeps) >= 2  # it did retry while there was time
    assert sum(fake.sleeps) <= 1.0 - pubmed.MIN_ATTEMPT_S


def test_search_cuts_each_request_timeout_to_the_time_left() -> None:
    # The server never answers (until the stub stops); the client allows 10 s per request but 1 s in all: the one
    # request is given what is left of the second, as the reason says. (The elapsed time was asserted, "under
    # 2.4 s": a loaded 2-core runner can pass that without the client being wrong.)
    with PubMedStub() as stub:
        stub.fail("esearch", StubResponse(delay_s=600))
        client = PubMedClient(stub.base_url, timeout_s=10.0, rate_limiter=MinIntervalLimiter(1000))
        with pytest.raises(SourceUnavailable, match="esearch failed") as failed:
            client.search(QUERY, deadline_s=1.0)

    given = re.search(r"timed out after (\d+\.\d+)s", str(failed.value))
    assert given is not None and float(given.group(1)) <= 1.0, str(failed.value)
    assert len(stub.requests) == 1


def test_search_retries_a_request_that_timed_out() -> None:
    # Real time for the slow answers; back-off on fake time. The retried request is answered in 0.5 s, as a loaded
    # 2-core runner may answer it: with the 0.3 s time-out this test had, it timed out too and was retried a third
    # time. A time-out tested by its own test (above), not a short one here.
    with PubMedStub() as stub:
        stub.fail("esearch", StubResponse(delay_s=600), StubResponse(delay_s=0.5))  # the first: never, till the end
        hits = make_client(stub, timeout_s=2.0).search(QUERY, deadline_s=10)

    assert len(hits) == 4
    assert len(stub.requests_to("esearch")) == 2


# --------------------------------------------------------------------------- NCBI errors and bad payloads


@pytest.mark.parametrize(("route", "body", "reason"), [
    ("esearch", fixture_bytes("esearch_error.json"), "NCBI reported an ESearch error"),
    ("esearch", fixture_bytes("rate_limited.json"), "NCBI returned an error object"),
    ("esearch", b"<html>Service maintenance</html>", "not JSON"),
    ("efetch", fixture_bytes("efetch_error.xml"), "NCBI reported an EFetch error"),
    ("efetch", b"<?xml version='1.0'?><PubmedArticleSet><PubmedArticle>", "malformed XML"),
    ("efetch", b"", "malformed XML"),
])
def test_search_treats_error_payloads_and_malformed_answers_as_unavailable(route: str, body: bytes,
                                                                           reason: str) -> None:
    with PubMedStub() as stub:
        stub.fail(route, StubResponse(body=body))
        with pytest.raises(SourceUnavailable, match=f"PubMed {route} failed .*unusable answer: .*{reason}"):
            make_client(stub).search(QUERY)

    assert len(stub.requests_to(route)) == 1  # an answer NCBI meant is not retried


def test_search_refuses_an_oversized_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pubmed, "MAX_RESPONSE_BYTES", 1000)
    with PubMedStub() as stub, pytest.raises(SourceUnavailable, match="larger than 1000 bytes"):
        make_client(stub).search(QUERY)


@pytest.mark.parametrize("body", [
    b'<?xml version="1.0"?><!DOCTYPE r [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;">]>'
    b"<PubmedArticleSet>&b;</PubmedArticleSet>",
    b'<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
    b"<PubmedArticleSet>&x;</PubmedArticleSet>",
    b'<?xml version="1.0"?><!DOCTYPE r [<!ELEMENT r ANY>]><PubmedArticleSet/>',
])
def test_parse_xml_refuses_entity_declarations_and_internal_dtd_subsets(body: bytes) -> None:
    with pytest.raises(PubMedPayloadError, match="refused"):
        parse_xml(body)


def test_parse_xml_never_fetches_the_dtd_it_names() -> None:
    with PubMedStub() as stub:
        body = (f'<?xml version="1.0"?><!DOCTYPE r SYSTEM "{stub.base_url}/efetch.fcgi?evil=1">'
                "<PubmedArticleSet><X>&x;</X></PubmedArticleSet>").encode()
        root = parse_xml(body)

    assert root.tag == "PubmedArticleSet" and "".join(root.itertext()) == ""
    assert stub.requests == []


def test_parse_efetch_accepts_the_doctype_ncbi_sends() -> None:
    articles = parse_efetch(fixture_bytes("efetch_metformin.xml"))

    assert sorted(articles) == ["90000001", "90000002", "90000003", "90000004", "90000005"]
    assert articles["90000003"].abstract == ""


# --------------------------------------------------------------------------- rate limit


def test_rate_limiter_spaces_requests_by_the_rate() -> None:
    fake = FakeTime()
    limiter = MinIntervalLimiter(3, clock=fake.clock, sleep=fake.sleep)
    granted = []
    for _ in range(4):
        limiter.acquire()
        granted.append(fake.now - 1000.0)

    assert granted == pytest.approx([0.0, 1 / 3, 2 / 3, 1.0])


def test_rate_limiter_reserves_nothing_when_the_wait_is_too_long() -> None:
    fake = FakeTime()
    limiter = MinIntervalLimiter(2, clock=fake.clock, sleep=fake.sleep)
    limiter.acquire()

    assert limiter.acquire(max_wait_s=0.1) is False
    assert limiter.acquire(max_wait_s=0.5) is True
    assert fake.sleeps == [0.5]  # the refused caller did not push the next slot back


def test_rate_limiter_gives_concurrent_callers_distinct_slots() -> None:
    waits: list[float] = []
    lock = threading.Lock()

    def record(seconds: float) -> None:
        with lock:
            waits.append(seconds)

    limiter = MinIntervalLimiter(10, clock=lambda: 0.0, sleep=record)
    threads = [threading.Thread(target=limiter.acquire) for _ in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert sorted(waits) == pytest.approx([slot / 10 for slot in range(1, 20)])


def test_client_waits_for_the_rate_limit_before_each_request() -> None:
    fake = FakeTime()
    with PubMedStub() as stub:
        limiter = MinIntervalLimiter(3, clock=fake.clock, sleep=fake.sleep)
        make_client(stub, fake, rate_limiter=limiter).search(QUERY)

    assert fake.sleeps == pytest.approx([1 / 3])  # ESearch at once, EFetch a third of a second later


def test_client_defaults_to_ncbis_rates_shared_per_process() -> None:
    without_key = PubMedClient("https://eutils.example.org/entrez/eutils")
    with_key = PubMedClient("https://eutils.example.org/entrez/eutils/", api_key=API_KEY)

    assert without_key.rate_limiter.interval_s == pytest.approx(1 / 3)
    assert with_key.rate_limiter.interval_s == pytest.approx(1 / 10)
    assert PubMedClient("https://eutils.example.org/entrez/eutils").rate_limiter is without_key.rate_limiter


def test_search_fails_fast_when_the_rate_limit_leaves_no_time() -> None:
    fake = FakeTime()
    limiter = MinIntervalLimiter(0.5, clock=fake.clock, sleep=fake.sleep)  # one request every 2 s
    with PubMedStub() as stub, pytest.raises(SourceUnavailable, match="efetch failed .*rate limit leaves no slot"):
        make_client(stub, fake, rate_limiter=limiter).search(QUERY, deadline_s=1.5)

    assert fake.sleeps == []


# --------------------------------------------------------------------------- secrets and PHI


def test_api_key_is_sent_but_never_shown_in_urls_logs_or_errors() -> None:
    with PubMedStub() as stub, recorded_logs() as logs:
        client = make_client(stub, api_key=API_KEY)
        client.search(QUERY)
        echo = json.dumps({"error": "API rate limit exceeded", "api-key": API_KEY, "count": "11", "limit": "10"})
        stub.fail("esearch", *[StubResponse(status=429, body=echo.encode())] * 3)
        with pytest.raises(SourceUnavailable) as failure:
            client.search(QUERY)

    assert {r.params.get("api_key") for r in stub.requests} == {API_KEY}
    assert all(API_KEY not in r.path for r in stub.requests)
    shown = [str(failure.value), repr(failure.value), repr(client), *logs]
    assert any("HTTP 429" in text for text in shown)
    assert [text for text in shown if API_KEY in text] == []


def test_query_text_stays_out_of_logs_and_errors() -> None:
    with PubMedStub() as stub, recorded_logs() as logs:
        stub.fail("efetch", *[StubResponse(status=500)] * 3)
        with pytest.raises(SourceUnavailable) as failure:
            make_client(stub).search(QUERY)

    assert any("pubmed unavailable" in line for line in logs)
    assert any("/efetch.fcgi" in line for line in logs)  # urllib3's DEBUG line with the URL was recorded too
    shown = [str(failure.value), *logs]
    assert [text for text in shown if "metformin maximum dose" in text] == []
    assert failure.value.__cause__ is None and failure.value.__suppress_context__


@pytest.mark.parametrize(("header", "seconds"), [
    ("2", 2.0), ("0.5", 0.5), ("-3", 0.0), ("Wed, 21 Oct 2015 07:28:00 GMT", 0.0), ("soon", None), (None, None),
])
def test_retry_after_reads_seconds_and_http_dates(header: str | None, seconds: float | None) -> None:
    assert pubmed._retry_after_s(header) == seconds
