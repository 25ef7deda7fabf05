"""A tamper-evident audit log: each record carries the hash of the previous record of its partition (the
user_id), and its own hash over everything it says. A partition's head (last sequence and hash) is written
in the same conditional write as the record, so the chain only grows, one record at a time.

verify() recomputes every hash: an edited record no longer matches its hash, a removed or inserted one breaks
the sequence or the link to its predecessor, and a removed last record no longer matches the head.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field

from voiceassist.models import AuditRecord
from voiceassist.ports import AuditLog

GENESIS = "0" * 64
CHAIN_FIELDS = {"sequence", "prev_hash", "record_hash"}


def digest(record: AuditRecord) -> str:
    """SHA-256 of the record's canonical JSON (sorted keys, no spaces), its own hash excluded."""
    body = record.model_dump(mode="json", exclude={"record_hash"})
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


def verify(log: AuditLog) -> ChainReport:
    report = ChainReport()
    for partition in sorted(log.partitions()):
        records, head = log.chain(partition)
        report.partitions += 1
        report.records += len(records)
        found = verify_partition(partition, records, head)
        if found is not None:
            report.breaks.append(found)
    return report
