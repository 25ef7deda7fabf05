"""The audit chain's anchor on AWS: one write-once S3 object per appended record, in an Object Lock bucket.

DynamoDbAuditLog keeps each partition's head beside its records, so whoever can write the table can delete the
last records and rewrite the head to match, and the chain verifies clean. After each append the log also puts
`audit-anchors/<sha256(partition)>/<sequence, 12 digits>.json` (the partition, sequence and record hash) into a
bucket whose default retention (Object Lock, infra storage) forbids deleting or overwriting any object version
until it expires: what was anchored stays, whatever happens to the table. verify compares each chain with the
highest anchored sequence (audit_chain._anchor_break): removed last records, and a chain rebuilt after an edit,
are breaks. An anchor written out of order by two concurrent appends is harmless (the highest wins); an anchor
that could not be written (S3 unavailable after the record committed) leaves the chain one record past its
anchor, which verify accepts, and is logged; two in a row read as records added outside the log.

Partitions are user ids: object keys carry their hash, the body the id (the bucket is encrypted with the
environment key). Listing is one request per 1,000 records: verify is an operator's occasional check.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from voiceassist.adapters.aws.s3_bucket import S3Bucket
from voiceassist.constants.environment import AUDIT_ANCHOR_PREFIX

ANCHOR_PREFIX = AUDIT_ANCHOR_PREFIX


class S3AuditAnchor(S3Bucket):
    def record(self, partition: str, sequence: int, record_hash: str) -> None:
        """Anchor one appended record (the bucket's retention keeps it)."""
        body = json.dumps({"partition": partition, "sequence": sequence, "hash": record_hash}).encode("utf-8")
        arguments: dict[str, Any] = {"Bucket": self.bucket, "Key": anchor_key(partition, sequence), "Body": body,
                                     "ContentType": "application/json", "ChecksumAlgorithm": "SHA256"}
        arguments.update(self._encryption())
        self._s3().put_object(**arguments)

    def heads(self) -> dict[str, tuple[int, str]]:
        """Each anchored partition's highest (sequence, record hash)."""
        highest: dict[str, str] = {}  # partition hash -> its highest key (keys sort by sequence)
        for page in self._s3().get_paginator("list_objects_v2").paginate(Bucket=self.bucket, Prefix=ANCHOR_PREFIX):
            for item in page.get("Contents", []):
                key = str(item["Key"])
                folder = key[len(ANCHOR_PREFIX):].split("/", 1)[0]
                highest[folder] = max(highest.get(folder, ""), key)
        heads: dict[str, tuple[int, str]] = {}
        for key in highest.values():
            try:
                body = json.loads(self._s3().get_object(Bucket=self.bucket, Key=key)["Body"].read())
                heads[str(body["partition"])] = (int(body["sequence"]), str(body["hash"]))
            except (ValueError, KeyError, TypeError):
                continue  # an unreadable anchor: its partition reads as unanchored (a break), never a crash
        return heads



def anchor_key(partition: str, sequence: int) -> str:
    folder = hashlib.sha256(partition.encode("utf-8")).hexdigest()
    return f"{ANCHOR_PREFIX}{folder}/{sequence:012d}.json"
