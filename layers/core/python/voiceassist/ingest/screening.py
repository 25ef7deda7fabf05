"""Screen Metadata: a document's file name, title and metadata pass the PHI boundary before anything indexes them.

The knowledge base is shared: a title, an author or a doc_key is copied onto every chunk, into the search index,
into the citations every user sees, into GET /v1/documents and into the job. So after Register and before
Extract, the workflow runs the PHI detector over every free-text value (docs/phi.md, "Document metadata"):

- detected spans are replaced by `<ENTITY_TYPE>` placeholders in the stored metadata, and so in everything
  derived from it (chunk metadata, the index, citations); a span found in one value is redacted in every value,
  and so is each word of a name found in a prose value (the title's "Zebulon Quartermaine" is redacted in the
  key `quartermaine_zebulon` too);
- keys and file names are read with their separators ("_", "-", "/", "+"; not a "-" or "/" between digits, a
  date's or a range's) and extension as spaces; a weak,
  context-free guess there (the lowercase word "scanned" as a name, a corpus id as an MRN, a word that is a
  Census given name or surname: "Diaz_Charles_MRN97366946") is redacted only when something else in the
  metadata was found;
- a title, key or file name is read as what it is (title_reading.py): a headline-case title a second time
  case-folded, a one-word name or a code matched by its shape alone as a guess;
- a doc_key that held PHI becomes `<redacted key>~<sha1 of the raw key, 16 hex>`: versions of one document stay
  together and two documents never share a key; that hash is the one the doc_id already carries;
- the job and the document report `metadata_phi_redacted`: the entity types, never the values, and an upload
  under incoming/ is moved to a key without its file name (settling.py);
- a detector that fails or times out fails the job (fail closed) with a reason that quotes no value; nothing
  was indexed, the raw values stay where only Screen reads them (the API withholds unscreened metadata), and
  retrying the job screens again; a detector too busy to start raises PhiDetectorBusy (retried longer: below).

Bibliographic values are kept as what they are: a DOI or PMID in its format is not run through the detector (a
PMID is a bare digit run, which the record-number recognizer takes for an MRN), the url field is not redacted as
a URL, and an author's name is not redacted as a PERSON; any other PHI in them is, and so is any value detected
elsewhere (a patient's name in the file name is redacted in the authors too).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

from voiceassist.errors import Conflict, ExtractionError, NotFound, VoiceAssistError
from voiceassist.ingest.document_metadata import words_apart
from voiceassist.ingest.name_vocabulary import common_word_name, eponym
from voiceassist.ingest.registration import document_id
from voiceassist.ingest.settling import settle_upload
from voiceassist.ingest.stages import INCOMING_PREFIX, IngestionContext
from voiceassist.ingest.title_reading import (
    NAME_PARTICLES,
    case_folded,
    census_names,
    confirmed_names,
    context_free,
    cued_identifier,
    drug_term,
    headline_case,
    name_beside_identifier,
    neighbouring_names,
    numbering_plan_phone,
)
from voiceassist.models import DocumentMetadata, KnowledgeDocument, PhiEntity, PhiResult, utc_now
from voiceassist.observability import logger
from voiceassist.phi.detection import detector_busy, whole_word_span
from voiceassist.ports import PhiDetector

KEY_FIELDS = frozenset({"doc_key", "file_name"})  # names and paths: "_", "-", "/", "+" separate words there
_KEY_SEPARATORS = "_+"  # and "-", "/" between words, not a number's own (document_metadata.words_apart)
# Below these, a find is a context-free guess (_weak)
WEAK_KEY_NAME_SCORE = 0.65  # lower-case name shapes score 0.4-0.6 ("crazyones pdfa"), real names 0.85
WEAK_KEY_ID_SCORE = 0.7  # the recognizers' context-free pattern scores are 0.5-0.6; a cue ("MRN", "DOB") adds 0.35
TITLED_FIELDS = KEY_FIELDS | {"title"}  # what names a document rather than says something (title_reading.py)
_SEPARATORS = str.maketrans({"_": " "})  # in any value (a title defaulted from a file name keeps its "_")
_BIBLIOGRAPHIC = {"pmid": re.compile(r"\d{1,9}"), "doi": re.compile(r"10\.\d{4,9}/\S+")}
PSEUDONYM_SEPARATOR = "~"
_MAX_CHARS = {"title": 1000, "specialty": 100}  # DocumentMetadata's limits: placeholders can be longer than names


class MetadataNotScreened(VoiceAssistError):
    """The PHI detector could not screen a document's metadata: the job fails (fail closed), nothing is indexed."""

    code = "metadata_not_screened"

    def __init__(self, reason: str) -> None:
        super().__init__(f"the document's file name and metadata could not be screened for PHI ({reason}); "
                         "nothing was indexed: retry the job")


class PhiDetectorBusy(MetadataNotScreened):
    """No detection could start: the detector was busy (back-pressure, not a verdict). Step Functions sees the class
    name: ingest.asl.json's Retry on "PhiDetectorBusy" waits longer; then the job fails closed, nothing indexed."""

    code = "phi_detector_busy"

    def __init__(self, reason: str) -> None:
        VoiceAssistError.__init__(
            self, f"the PHI detector was busy (back-pressure: {reason}), so the document's file name and metadata "
                  "were not screened and nothing was indexed: ingest it again (a re-run of ingest-jsonl picks it "
                  "up) or retry the job")


def _checked(result: PhiResult) -> list[PhiEntity]:
    """The entities of a detection that ran; a failed one stops the screen (busy: PhiDetectorBusy)."""
    if result.error is not None:
        raise PhiDetectorBusy(result.error) if detector_busy(result) else MetadataNotScreened(result.error)
    return result.entities


@dataclass(frozen=True)
class ScreenedMetadata:
    metadata: DocumentMetadata
    file_name: str
    entity_types: list[str]  # sorted, unique: what was redacted (never the values)


def screen_metadata(detector: PhiDetector, metadata: DocumentMetadata, file_name: str) -> ScreenedMetadata:
    """The metadata and file name with every detected PHI span redacted; raises MetadataNotScreened when the
    detector fails (a failed detection hides everything, and the job must not go on with a guess)."""
    values = _values(metadata, file_name)
    found: dict[str, str] = {}  # a detected value (normalised, lower case) -> its entity type
    guesses: dict[str, str] = {}  # weak, context-free finds in keys: they count once anything else is found
    paired = False  # a name guess beside an identifier guess in one value: together they name a patient
    for field, text in values:
        if field in _BIBLIOGRAPHIC and _BIBLIOGRAPHIC[field].fullmatch(text):
            continue
        probe = _probe(field, text)
        entities = _checked(detector.detect(probe))
        # capitals say nothing in a headline: read it without them (unless a cued record number or date of birth
        # says whom the title is about: "Referral: Veindorfer Teresa, MRN 87200282")
        if field in TITLED_FIELDS and headline_case(probe) and not cued_identifier(entities):
            entities = confirmed_names(entities, _folded(detector, probe), probe)
        own_guesses: dict[str, str] = {}
        if field in KEY_FIELDS:  # "Diaz_Charles_MRN97366946": names without a sentence the detector can read
            own_guesses.update(dict.fromkeys(census_names(probe), "PERSON"))
        for entity in entities:
            if _kept(field, entity) or (field in TITLED_FIELDS and (
                    not numbering_plan_phone(entity, probe) or drug_term(entity, probe))):
                continue
            start, end = whole_word_span(probe, entity.start, entity.end)
            value = probe[start:end].strip().lower()
            if _weak(field, entity, probe):
                own_guesses.setdefault(value, entity.entity_type)
                continue
            found.setdefault(value, entity.entity_type)
            if entity.entity_type == "PERSON" and field not in KEY_FIELDS:
                # a name recurs in another order or in part ("quartermaine_zebulon" in the key); words of names
                # found in prose-like values only (a key's context-free span can swallow a word: "zebulon plan")
                for word in re.findall(r"[^\W\d_]{2,}", value):
                    if word not in NAME_PARTICLES:
                        found.setdefault(word, "PERSON")
        paired = paired or name_beside_identifier(own_guesses)
        guesses = own_guesses | guesses
    if found or paired:  # a document whose metadata names a patient: every guess counts
        found = guesses | found
        _widen_names(detector, values, found)
    redacted = {}
    for field, text in values:
        probe = _probe(field, text)
        entities = _occurrences(probe, found)
        redacted[field] = _redact(text, probe, entities) if entities else text
    return ScreenedMetadata(metadata=_rebuilt(metadata, redacted), file_name=redacted["file_name"],
                            entity_types=sorted(set(found.values())))


def screen_document(ctx: IngestionContext, detector: PhiDetector, doc_id: str, job_id: str) -> dict[str, Any]:
    """The workflow step: screen the registered version's metadata and file name, store the redacted values
    on the document and the job, and report the entity types. A version screened before is left as it is."""
    document = ctx.documents.get(doc_id)
    if document.metadata_screened:  # a retried job, or Lambda re-ran this step after a lost response
        if document.blob_key.startswith(INCOMING_PREFIX):  # screened before uploads were settled
            _stored(ctx, document, {"blob_key": settle_upload(ctx, document)})
        return {"metadata_phi_redacted": document.metadata_phi_redacted}
    blob = PurePosixPath(document.blob_key)
    screened = screen_metadata(detector, document.metadata, blob.name)
    shown_key = str(blob.with_name(screened.file_name)) if screened.file_name != blob.name else None
    doc_key = _earlier_pseudonym(ctx, document.doc_key, screened.metadata.doc_key)
    _stored(ctx, document, {
        "metadata": screened.metadata.model_copy(update={"doc_key": doc_key}), "doc_key": doc_key,
        "metadata_screened": True, "blob_key": settle_upload(ctx, document),
        "metadata_phi_redacted": screened.entity_types, "redacted_blob_key": shown_key})
    job = ctx.jobs.get(job_id)
    ctx.jobs.save(job.model_copy(update={"doc_key": doc_key, "metadata_screened": True,
                                         "metadata_phi_redacted": screened.entity_types, "updated_at": utc_now()}),
                  expected_state=job.state)
    logger.info("ingest metadata screened", extra={"doc_id": doc_id, "job_id": job_id,
                                                   "metadata_phi_redacted": screened.entity_types})
    return {"metadata_phi_redacted": screened.entity_types}


def _stored(ctx: IngestionContext, document: KnowledgeDocument, changes: dict[str, Any]) -> None:
    try:
        ctx.documents.put(document.model_copy(update={**changes, "updated_at": utc_now()}),
                          expected_status=document.status)
    except Conflict as exc:
        raise ExtractionError("the document was deleted while it was being ingested") from exc


def _earlier_pseudonym(ctx: IngestionContext, raw_key: str, doc_key: str) -> str:
    """The stored key of the raw key's first version, when that one was re-keyed already: a detector that
    redacts the key differently today must not split one document's versions (two would be live at once)."""
    if doc_key == raw_key:
        return doc_key
    try:
        first = ctx.documents.get(document_id(raw_key, 1))
    except NotFound:
        return doc_key
    same_raw_key = first.doc_key.endswith(doc_key[doc_key.rindex(PSEUDONYM_SEPARATOR):])
    return first.doc_key if first.metadata_screened and same_raw_key else doc_key


def pseudonymous_key(raw_key: str, redacted_key: str) -> str:
    """The doc_key a key with PHI is stored as: stable for the same raw key, distinct for different ones."""
    suffix = PSEUDONYM_SEPARATOR + hashlib.sha1(raw_key.encode("utf-8")).hexdigest()[:16]
    return redacted_key[:512 - len(suffix)] + suffix


# --------------------------------------------------------------------------- helpers


def _values(metadata: DocumentMetadata, file_name: str) -> list[tuple[str, str]]:
    values = [("doc_key", metadata.doc_key), ("title", metadata.title), ("file_name", file_name)]
    values += [(f"author{i}", author) for i, author in enumerate(metadata.authors)]
    values += [(field, text) for field in ("specialty", "url", "doi", "pmid")
               if (text := getattr(metadata, field))]
    return values


def _folded(detector: PhiDetector, probe: str) -> list[PhiEntity]:
    return _checked(detector.detect(case_folded(probe)))


def _widen_names(detector: PhiDetector, values: list[tuple[str, str]], found: dict[str, str]) -> None:
    """Add to `found` the words beside a name in a title, key or file name that are names too (title_reading's
    neighbouring_names), until none is added."""
    for field, text in values:
        if field not in TITLED_FIELDS:
            continue
        probe, folded = _probe(field, text), None
        for _ in range(3):  # a word added may have a name beside it in turn ("van Venrooy, Ossian")
            names = [(e.start, e.end) for e in _occurrences(probe, found) if e.entity_type == "PERSON"]
            if not names:
                break
            folded = folded if folded is not None else _folded(detector, probe)
            added = neighbouring_names(probe, names, folded, census=field not in KEY_FIELDS)
            added -= found.keys() | NAME_PARTICLES
            if not added:
                break
            found.update(dict.fromkeys(added, "PERSON"))


def _kept(field: str, entity: PhiEntity) -> bool:
    """What a value keeps of what the detector found: a link in the url field and a name in an author field."""
    if field == "url":
        return entity.entity_type == "URL"
    return field.startswith("author") and entity.entity_type == "PERSON"


def _weak(field: str, entity: PhiEntity, probe: str) -> bool:
    """A context-free guess: a lower-case name shape ("scanned", "libre", "crazyones pdfa": 0.4-0.6) in any
    value; in a title, key or file name also what title_reading.context_free says. Alone it renames nothing;
    with anything else found in the document's metadata it is redacted too."""
    if entity.entity_type == "PERSON" and entity.score < WEAK_KEY_NAME_SCORE:
        return True  # in a title too: "002 trivial libre office writer" (a title made from its file name)
    if field not in TITLED_FIELDS:
        return False
    if field in KEY_FIELDS and entity.score < WEAK_KEY_ID_SCORE:
        return True  # a bare digit run in a key: a corpus id "10608397" (0.6), even when it is the whole key
    # "Diaphragm Atrophy", "Hutchinson-Gilford progeria syndrome": common words and eponyms (name_vocabulary.py)
    return context_free(entity, probe) or common_word_name(entity, probe) or eponym(entity, probe)


def _probe(field: str, text: str) -> str:
    """What the detector reads: separators of keys and file names become spaces (not a number's own "-" or "/"),
    and so does a file name's extension ("Child-Pugh score.txt" reads as a name to the detector, "Child-Pugh
    score" does not); the length is kept, so spans map back onto the value."""
    if field not in KEY_FIELDS:
        return text.translate(_SEPARATORS)
    probe = words_apart(text, _KEY_SEPARATORS)  # length-preserving: spans map back
    suffix = PurePosixPath(text).suffix if field == "file_name" else ""
    return probe[:len(probe) - len(suffix)] + " " * len(suffix) if 1 < len(suffix) <= 10 else probe


def _redact(text: str, probe: str, entities: list[PhiEntity]) -> str:
    """`redact` with word bounds taken from the probe: in a key a hyphen separates words ("DNA-Methylome-of-
    Human.pdf" loses one word, not all), in prose it joins them ("Garcia-Reyes" goes whole)."""
    spans: list[list[Any]] = []
    for entity in sorted(entities, key=lambda e: (e.start, -e.end)):
        start, end = whole_word_span(probe, entity.start, entity.end)
        if spans and start < spans[-1][1]:
            spans[-1][1] = max(spans[-1][1], end)
        else:
            spans.append([start, end, entity.entity_type])
    pieces, cursor = [], 0
    for start, end, entity_type in spans:
        pieces += [text[cursor:start], f"<{entity_type}>"]
        cursor = end
    return "".join(pieces) + text[cursor:]


def _occurrences(probe: str, found: dict[str, str]) -> list[PhiEntity]:
    """Every whole-word, case-insensitive occurrence of a detected value in one value's probe text."""
    entities = []
    lowered = probe.lower()
    for value, entity_type in found.items():
        if not value:
            continue
        for match in re.finditer(r"(?<!\w)" + re.escape(value) + r"(?!\w)", lowered):
            entities.append(PhiEntity(entity_type=entity_type, start=match.start(), end=match.end(), score=1.0))
    return entities


def _rebuilt(metadata: DocumentMetadata, redacted: dict[str, str]) -> DocumentMetadata:
    changes: dict[str, Any] = {field: redacted[field][:_MAX_CHARS.get(field)]
                               for field in ("title", "specialty", "url", "doi", "pmid") if field in redacted}
    changes["authors"] = tuple(redacted[f"author{i}"] for i in range(len(metadata.authors)))
    if redacted["doc_key"] != metadata.doc_key:
        changes["doc_key"] = pseudonymous_key(metadata.doc_key, redacted["doc_key"])
    return metadata.model_copy(update=changes)
