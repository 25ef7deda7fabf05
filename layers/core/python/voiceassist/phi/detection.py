"""The PHI boundary in domain terms: redaction and fail-closed detection (the egress
policy is phi/policy.py).

Detection itself is a port (ports.PhiDetector); the Presidio adapter lives in adapters/presidio_detector.py.
Nothing here puts raw text into an error, a log line or a placeholder.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from functools import lru_cache

from voiceassist.errors import InvalidInput
from voiceassist.models import PhiEntity, PhiResult
from voiceassist.observability import METRIC_PHI_DETECTOR_ERRORS, count, logger
from voiceassist.phi.spoken_dates import spoken_dates
from voiceassist.ports import PhiDetector
from voiceassist.safety.decoding import fold_homoglyphs

# Long enough for a 4,000-character question on a cold CPU, short enough to keep the query responsive.
DEFAULT_TIMEOUT_S = 2.0
# What a failed detection reports as its redacted text: it could not tell what to hide, so it hides all.
WITHHELD = "<WITHHELD>"
# How a detection that never started (every worker busy: back-pressure, not a verdict) begins its error.
BUSY = "PHI detector busy"


_JOINERS = "-'’"
_KEPT_CONTROLS = "\t\n\r"


def whole_word_span(text: str, start: int, end: int) -> tuple[int, int]:
    """Widen a span to the whole words it touches: "Garcia" in "Garcia-Reyes", "8473" in "84736251".

    A detector may find part of a hyphenated name or of an identifier; redacting only that part would leave a
    fragment of PHI ("<PERSON>-Reyes"). A possessive "'s" stays outside ("<PERSON>'s potassium").
    """
    while start > 0 and (text[start - 1].isalnum()
                         or (text[start - 1] in _JOINERS and start > 1 and text[start - 2].isalnum())):
        start -= 1
    while end < len(text) and (text[end].isalnum() or (
            text[end] in _JOINERS and end + 1 < len(text) and text[end + 1].isalnum()
            and not (text[end + 1] in "sS" and (end + 2 == len(text) or not text[end + 2].isalnum())))):
        end += 1
    return start, end


def redact(text: str, entities: Sequence[PhiEntity]) -> str:
    """Replace every entity, widened to whole words, with <ENTITY_TYPE>; overlaps become one placeholder.

    The merged placeholder takes the type of the strongest entity in the overlap (the longest on a tie).
    """
    spans = sorted((e for e in entities if 0 <= e.start < e.end <= len(text)), key=lambda e: e.start)
    merged: list[tuple[int, int, PhiEntity]] = []
    for entity in spans:
        start, end = whole_word_span(text, entity.start, entity.end)
        if merged and start < merged[-1][1]:
            first, last, best = merged[-1]
            stronger = (entity.score, entity.end - entity.start) > (best.score, best.end - best.start)
            merged[-1] = (first, max(last, end), entity if stronger else best)
        else:
            merged.append((start, end, entity))
    pieces: list[str] = []
    cursor = 0
    for start, end, best in merged:
        pieces.append(text[cursor:start])
        pieces.append(f"<{best.entity_type}>")
        cursor = end
    pieces.append(text[cursor:])
    return "".join(pieces)


_OVERRIDE = "\u202e"  # RIGHT-TO-LEFT OVERRIDE: what follows is shown reversed, up to U+202C or the line's end
_OVERRIDDEN = re.compile("\u202e([^\u202c\n]*)")
# Read as the ASCII '-' and '/' the recognizers' patterns expect, besides Unicode's dash punctuation (category Pd)
_MINUS_SIGNS = frozenset(unicodedata.lookup(name) for name in ("MINUS SIGN", "HEAVY MINUS SIGN"))
_SLASHES = frozenset(unicodedata.lookup(name) for name in ("FRACTION SLASH", "DIVISION SLASH"))


@lru_cache(maxsize=4096)
def _readable_char(char: str) -> str:
    category = unicodedata.category(char)
    if category == "Cf":
        return ""
    if category == "Cc":
        return char if char in _KEPT_CONTROLS else " "
    if category == "Nd":  # any script's decimal digit: Devanagari "४८" is 48
        return str(unicodedata.decimal(char))
    if category == "Pd" or char in _MINUS_SIGNS:  # en and em dashes, non-breaking hyphens: "617–555–0199"
        return "-"
    if char in _SLASHES:
        return "/"
    return unicodedata.normalize("NFKC", char)


def readable_form(text: str) -> tuple[str, list[int]]:
    """The text as a reader (or a model) reads it, and for each of its characters the index of the character of
    `text` it comes from: Unicode NFKC character by character (full-width "Ｊａｎｅ" is "Jane"), format characters
    (category Cf: zero-width spaces and joiners, soft hyphens, bidirectional marks) removed, and other control
    characters read as a space; any script's decimal digits as ASCII digits, dashes and minus signs as "-", the
    fraction and division slashes as "/" (an SSN typed with en dashes, "123–45–6789"). A name typed with a
    zero-width space inside ("J\u200bane K\u200bowalczyk") reads as the name, and is detected as one. Look-alike
    letters of other scripts (Cyrillic "а", "о" in "Jаne Kоwalczyk": UTS #39 confusables) read as the Latin
    letters they imitate, as the input screen reads them (safety.decoding.fold_homoglyphs: inside a word that mixes
    them with Latin letters, or anywhere in a text whose letters are mostly Latin; a Russian or Greek question
    keeps its letters). A text with a right-to-left override (U+202E) is read as stored and then, on a line of its
    own, as shown: "\u202ehtimS nhoJ" shows "John Smith". A date's number words read as digits (phi.spoken_dates:
    "the fourteenth of March nineteen sixty-one" is "the 14th of March 1961")."""
    pieces: list[str] = []
    origins: list[int] = []
    order = list(range(len(text)))
    if _OVERRIDE in text:  # read both as stored (as a model reads it) and as shown, on a line of its own
        order += [-1, *_display_order(text)]
    for index in order:
        char = "\n" if index < 0 else text[index]
        read = char if " " <= char <= "~" else _readable_char(char)
        pieces.append(read)
        origins.extend([max(index, 0)] * len(read))
    readable = "".join(pieces)
    if not readable.isascii():
        folded = fold_homoglyphs(readable)  # one character for one: the origins stay those of each character
        if folded is not None and len(folded) == len(readable):
            readable = folded
    spans = spoken_dates(readable)
    return _read_as(readable, origins, spans) if spans else (readable, origins)


def _read_as(text: str, origins: list[int], spans: list[tuple[int, int, str]]) -> tuple[str, list[int]]:
    """`text` with each span (start, end, replacement) replaced; a replacement's characters map onto those of the
    words it replaces, in order, its last onto their last (an entity on "1961" covers "nineteen sixty-one")."""
    pieces: list[str] = []
    mapped: list[int] = []
    cursor = 0
    for start, end, read in spans:
        pieces += [text[cursor:start], read]
        mapped += origins[cursor:start]
        mapped += [origins[start + (end - start) * i // len(read)] for i in range(len(read) - 1)] + [origins[end - 1]]
        cursor = end
    pieces.append(text[cursor:])
    mapped += origins[cursor:]
    return "".join(pieces), mapped


def _display_order(text: str) -> list[int]:
    """The indices of `text` in the order its characters are shown: after a right-to-left override (U+202E), up to
    the pop (U+202C) or the line's end, in reverse ("\u202ehtimS nhoJ" shows "John Smith")."""
    order: list[int] = []
    for match in _OVERRIDDEN.finditer(text):
        order.extend(range(len(order) and order[-1] + 1, match.start(1)))
        order.extend(reversed(range(match.start(1), match.end(1))))
    order.extend(range(max(order, default=-1) + 1, len(text)))
    return order


def detect_readable(detect: Callable[[str], PhiResult], text: str) -> PhiResult:
    """`detect` run on the readable form of `text`, its entities mapped back onto `text` (their offsets and the
    redaction are those of the text as given). A text already in that form, as nearly every one is, is detected as
    it is; a failed detection is passed on unchanged."""
    readable, origins = readable_form(text)
    if readable == text:
        return detect(text)
    result = detect(readable)
    if result.error is not None:
        return result
    entities = [PhiEntity(entity_type=e.entity_type, start=min(origins[e.start:e.end]),
                          end=max(origins[e.start:e.end]) + 1, score=e.score)  # a reversed run maps back reversed
                for e in result.entities if 0 <= e.start < e.end <= len(origins)]
    return PhiResult(contains_phi=result.contains_phi or bool(entities), entities=entities,
                     redacted_text=redact(text, entities))


def failed_result(reason: str) -> PhiResult:
    """A detection that could not run: counts as PHI, hides the whole text, says why without the text."""
    return PhiResult(contains_phi=True, entities=[], redacted_text=WITHHELD, error=reason)


def detector_busy(result: PhiResult) -> bool:
    """Whether a failed detection never started because the detector was busy (FailClosedDetector's queue wait
    ran out). It still fails closed; a caller that can wait (ingestion) may try again later, the query cannot."""
    return result.error is not None and result.error.startswith(BUSY)


class FailClosedDetector:
    """Wraps a detector so that an exception or a time-out means "contains PHI" (fail closed), and so that it
    detects on the text's readable form (`detect_readable`: a name hidden by a zero-width space is still a name).

    A detector with a load() (building an NLP engine takes seconds) is loaded before the first timed call,
    so a cold start is not mistaken for a hang; a load that fails is a failed detection too.

    Detections run one at a time on one worker thread. The time-out counts from when a detection starts, not
    from when it was asked for: callers on other threads (a local server's requests, the ingest workers)
    queue for the worker, and a queue is not a hang. The wait for the worker is bounded too (by
    `queue_timeout_s`, default four time-outs): a detection that hangs keeps the worker busy (Python cannot
    kill a thread), so later calls fail closed after that wait until the process is recycled.
    """

    def __init__(self, inner: PhiDetector, timeout_s: float = 2.0, queue_timeout_s: float | None = None) -> None:
        if timeout_s <= 0:
            raise InvalidInput(f"timeout_s must be positive, got {timeout_s}")
        if queue_timeout_s is not None and queue_timeout_s <= 0:
            raise InvalidInput(f"queue_timeout_s must be positive, got {queue_timeout_s}")
        self.inner = inner
        self.timeout_s = timeout_s
        self.queue_timeout_s = 4 * timeout_s if queue_timeout_s is None else queue_timeout_s
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="phi-detect")
        self._load_lock = threading.Lock()
        self._loaded = False

    def load(self) -> None:
        """Load the inner detector now (for example at a Lambda's init); errors propagate."""
        with self._load_lock:
            if not self._loaded:
                loader = getattr(self.inner, "load", None)
                if callable(loader):
                    loader()
                self._loaded = True

    @property
    def begin(self) -> Callable[[str], None] | None:
        """The inner detector's `begin` (start detecting a text in its worker process; the next detect of that
        text collects it: adapters/presidio/worker.py), when it has one. A begin that fails starts nothing: the
        detect that follows detects, or fails closed, as always."""
        inner_begin = getattr(self.inner, "begin", None)
        if not callable(inner_begin):
            return None

        def begin(text: str) -> None:  # the text its detect will be given
            inner_begin(readable_form(text)[0])

        return begin

    def detect(self, text: str) -> PhiResult:
        return detect_readable(self._detect, text)

    def _detect(self, text: str) -> PhiResult:
        try:
            self.load()
        except Exception as exc:  # noqa: BLE001 - any failure to load must fail closed
            return self._failed(f"PHI detector could not load ({type(exc).__name__})")
        started = threading.Event()

        def run() -> PhiResult:
            started.set()
            return self.inner.detect(text)

        future = self._executor.submit(run)
        if not started.wait(self.queue_timeout_s) and future.cancel():
            return self._failed(f"{BUSY}: no detection could start within {self.queue_timeout_s:g} s")
        try:
            result = future.result(timeout=self.timeout_s)
        except FutureTimeout:
            return self._failed(f"PHI detector timed out after {self.timeout_s:g} s")
        except Exception as exc:  # noqa: BLE001 - any detector failure must fail closed
            return self._failed(f"PHI detector failed ({type(exc).__name__})")
        if not isinstance(result, PhiResult):
            return self._failed(f"PHI detector returned {type(result).__name__}, not PhiResult")
        return result

    @staticmethod
    def _failed(reason: str) -> PhiResult:
        # Only the reason is logged: an exception's message may quote the text it choked on.
        logger.warning("PHI detection failed closed", extra={"phi_error": reason})
        count(METRIC_PHI_DETECTOR_ERRORS)
        return failed_result(reason)


class DisabledPhiDetector:
    """PHI mode "off": the operator has switched detection off, so nothing is ever flagged.

    Routing still knows the mode is off (Settings.phi_mode) and treats it as an explicit operator choice.
    """

    def detect(self, text: str) -> PhiResult:
        return PhiResult(contains_phi=False, entities=[], redacted_text=text)


class UnionPhiDetector:
    """Several detectors as one: PHI if any finds it; a failure of any fails the whole detection closed.

    Each detector should already be fail-closed (FailClosedDetector); a result with an error, or an exception
    that still escapes, makes the union a failed detection that hides the whole text.
    """

    def __init__(self, *detectors: PhiDetector) -> None:
        if not detectors:
            raise InvalidInput("UnionPhiDetector needs at least one detector")
        self.detectors = detectors

    def load(self) -> None:
        for detector in self.detectors:
            loader = getattr(detector, "load", None)
            if callable(loader):
                loader()

    def detect(self, text: str) -> PhiResult:
        entities: list[PhiEntity] = []
        for detector in self.detectors:
            try:
                result = detector.detect(text)
            except Exception as exc:  # noqa: BLE001 - any detector failure must fail closed
                return failed_result(f"PHI detector failed ({type(exc).__name__})")
            if result.error is not None:
                return failed_result(result.error)
            entities.extend(result.entities)
        entities.sort(key=lambda e: (e.start, e.end))
        return PhiResult(contains_phi=bool(entities), entities=entities, redacted_text=redact(text, entities))

