"""The DynamoDB table designs: keys, indexes and TTL attributes. Infra builds the deployed tables from these
and the adapters (and tests, with moto) create the same ones, so the two never drift apart."""

from __future__ import annotations

from dataclasses import dataclass

# ---- logical table names (keys of `names` in create_tables, and of TABLE_DESIGNS) --------------------
DOCUMENTS = "documents"
JOBS = "jobs"
SESSIONS = "sessions"
AUDIT = "audit"
STATE = "state"
BILLING = "billing"

# ---- session item keys -----------------------------------------------------------------------------
SESSION_PK_PREFIX = "SESSION#"
SESSION_META_SK = "META"
MESSAGE_SK_PREFIX = "MSG#"


@dataclass(frozen=True)
class KeyAttribute:
    name: str
    type: str  # "S" or "N", as DynamoDB spells attribute types


@dataclass(frozen=True)
class IndexDesign:
    name: str
    partition_key: KeyAttribute
    sort_key: KeyAttribute | None = None


@dataclass(frozen=True)
class TableDesign:
    partition_key: KeyAttribute
    sort_key: KeyAttribute | None = None
    indexes: tuple[IndexDesign, ...] = ()
    ttl_attribute: str | None = None


def _s(name: str) -> KeyAttribute:
    return KeyAttribute(name, "S")


TABLE_DESIGNS: dict[str, TableDesign] = {
    DOCUMENTS: TableDesign(
        partition_key=_s("doc_id"),
        indexes=(
            IndexDesign("by_doc_key", _s("doc_key"), KeyAttribute("version", "N")),
            IndexDesign("by_status", _s("status"), _s("updated_at")),
        ),
    ),
    JOBS: TableDesign(
        partition_key=_s("job_id"),
        indexes=(
            IndexDesign("by_state", _s("state"), _s("updated_at")),
            IndexDesign("by_doc", _s("doc_id"), _s("created_at")),
        ),
    ),
    SESSIONS: TableDesign(
        partition_key=_s("pk"),
        sort_key=_s("sk"),
        indexes=(IndexDesign("by_user", _s("user_id"), _s("created_at")),),
        ttl_attribute="expires_at_epoch",
    ),
    AUDIT: TableDesign(
        partition_key=_s("audit_id"),
        indexes=(IndexDesign("by_user", _s("user_id"), _s("created_at")),),
    ),
    STATE: TableDesign(partition_key=_s("pk"), ttl_attribute="ttl"),
    # a month's billing events and totals (voiceassist.adapters.aws.dynamodb_billing)
    BILLING: TableDesign(partition_key=_s("pk"), sort_key=_s("sk")),
}
