"""A tamper-evident audit log: each record carries the hash of the previous record of its partition (the
user_id), and its own hash over everything it says. A partition's head (last sequence and hash) is written
in the same conditional write as the record, so the chain only grows, one record at a time.

verify() reads every row as stored and recomputes every hash, and never stops at a bad row: a row whose bytes
or JSON no longer read as a record, whose key or indexed columns (user_id, created_at) disagree with its body,
an edited record (its hash), a removed, duplicated or inserted one (the sequence, the link to its predecessor),
and a removed last record (the head) are each a break naming the record. A store that keeps an anchor outside
the table (SqliteAuditLog: a file written at each append) catches what rewriting the table and its heads
together would hide: truncation, and a chain rebuilt after an edit.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from pydantic import ValidationError

from voiceassist.models import AuditRecord, StoredAuditRow

if TYPE_CHECKING:
    from voiceassist.ports import AuditLog

GENESIS = "0" * 64
CHAIN_FIELDS = {"sequence", "prev_hash", "record_hash"}
# Fields AuditRecord gained after records were first chained: left out of the hash while unset, so every record
# written before them (which has none) hashes exactly as it did.
ADDED_FIELDS = frozenset({"plan_action", "plan_confidence"})


def digest(record: AuditRecord) -> str:
    """SHA-256 of the record's canonical JSON (sorted keys, no spaces), its own hash and unset ADDED_FIELDS
    excluded."""
    body = record.model_dump(mode="json", exclude={"record_hash", *(f for f in ADDED_FIELDS
                                                                    if getattr(record, f) is None)})
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def chained(record: AuditRecord, head: tuple[int, str] | None) -> AuditRecord:
    """The record as the next link after `head` (None: the partition's first record)."""
    sequence, previous = head or (0, GENESIS)
    linked = record.model_copy(update={"sequence": sequence + 1, "prev_hash": previous, "record_hash": None})
    return linked.model_copy(update={"record_hash": digest(linked)})


@dataclass(frozen=True)
class ChainBreak:
    partition: str
    sequence: int | None
    audit_id: str | None
    problem: str


@dataclass
class ChainReport:
    partitions: int = 0
    records: int = 0
    breaks: list[ChainBreak] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.breaks


def read_row(partition: str, row: StoredAuditRow) -> AuditRecord | ChainBreak:
    """The row as a record, or the break that says why it is not one (never its values: they may be PHI)."""
    def broken(problem: str, sequence: int | None = None) -> ChainBreak:
        return ChainBreak(partition, sequence, row.key, problem)

    try:
        record = (AuditRecord.model_validate_json(row.body) if isinstance(row.body, str)
                  else AuditRecord.model_validate(row.body))
    except ValidationError as exc:
        fields = sorted({".".join(map(str, e["loc"])) or "body" for e in exc.errors()})
        unreadable = any(e["type"].startswith("json") for e in exc.errors())
        return broken("its stored body is not valid JSON: the bytes were altered" if unreadable else
                      f"its stored body is not an audit record (fields {', '.join(fields)}): the record was altered")
    if record.audit_id != row.key:
        return broken("its key does not match the audit_id in its body: the record was altered", record.sequence)
    if row.columns.get("user_id", record.user_id) != record.user_id:
        return broken("its user_id column does not match its body: the record was moved", record.sequence)
    if "created_at" in row.columns and not _same_moment(row.columns["created_at"], record.created_at):
        return broken("its created_at column does not match its body: the record was altered", record.sequence)
    return record


def _same_moment(stored: str, moment: datetime) -> bool:
    try:
        parsed = datetime.fromisoformat(stored)
    except ValueError:
        return False
    as_utc = (lambda d: d.replace(tzinfo=UTC) if d.tzinfo is None else d)  # noqa: E731
    return as_utc(parsed) == as_utc(moment)


def verify_partition(partition: str, records: list[AuditRecord], head: tuple[int, str] | None
                     ) -> ChainBreak | None:
    """The first break of one partition's chain, or None when every link holds."""
    previous, expected = GENESIS, 1
    for record in records:
        def broken(problem: str, at: AuditRecord = record) -> ChainBreak:
            return ChainBreak(partition, at.sequence, at.audit_id, problem)

        if record.sequence != expected:
            return broken(f"expected sequence {expected}, found {record.sequence}: a record was removed or "
                          "inserted")
        if record.prev_hash != previous:
            return broken("its prev_hash does not match the previous record's hash")
        if record.record_hash != digest(record):
            return broken("its content does not match its hash: the record was altered")
        previous, expected = record.record_hash, expected + 1
    if head is None:
        return ChainBreak(partition, None, None, "the partition has records but no head") if records else None
    if head != (expected - 1, previous):
        return ChainBreak(partition, head[0], None, f"the head names sequence {head[0]}, the chain ends at "
                          f"{expected - 1}: the last records were removed")
    return None


def verify(log: AuditLog, *, only: str | None = None) -> ChainReport:
    """Every partition's chain (or `only` that one), row by row; a row that cannot be read is a break, and the rest
    is still checked."""
    report = ChainReport()
    anchors = log.anchors()
    partitions = [only] if only is not None else sorted(set(log.partitions()) | set(anchors or {}))
    for partition in partitions:
        rows, head = log.stored_chain(partition)
        report.partitions += 1
        report.records += len(rows)
        records = []
        for row in rows:
            read = read_row(partition, row)
            if isinstance(read, ChainBreak):
                report.breaks.append(read)
            else:
                records.append(read)
        records.sort(key=lambda r: (r.sequence is None, r.sequence or 0))
        found = verify_partition(partition, records, head)
        if found is None and anchors is not None:
            found = _anchor_break(partition, records, anchors.get(partition))
        if found is not None:  # after an unreadable row, the gap it leaves is reported too
            report.breaks.append(found)
    return report


def _anchor_break(partition: str, records: list[AuditRecord], anchor: tuple[int, str] | None) -> ChainBreak | None:
    """The chain against the anchor written outside the table: it must hold the anchored record unchanged and
    end there, or one record later (an append interrupted between its commit and its anchor)."""
    if anchor is None:
        return ChainBreak(partition, None, None, "the partition has no anchor: its records were written "
                          "outside the log") if records else None
    sequence, anchored_hash = anchor
    at = next((r for r in records if r.sequence == sequence), None)
    if at is None:
        return ChainBreak(partition, sequence, None, f"the anchor names sequence {sequence}, the chain ends at "
                          f"{len(records)}: the last records were removed (the table and its head rewritten)")
    if at.record_hash != anchored_hash:
        return ChainBreak(partition, sequence, at.audit_id, "the record at the anchor is not the one anchored: "
                          "the chain was rewritten")
    if len(records) > sequence + 1:
        return ChainBreak(partition, sequence + 2, records[sequence + 1].audit_id,
                          "records after the anchor were added outside the log")
    return None
