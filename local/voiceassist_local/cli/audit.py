"""`voiceassist audit verify`: read every audit record as stored, recompute the hash chains, and report every
break by the record it concerns (in text, or as JSON with --json); exits 1 at a break, never with a traceback.
Locally it reads the SQLite log and its anchor file; `--aws` reads the deployed DynamoDB table."""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict
from typing import Any

from voiceassist.audit_chain import ChainBreak, ChainReport, verify


def add_parser(commands: Any) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = commands.add_parser("audit", help="the tamper-evident audit log")
    actions = parser.add_subparsers(dest="audit_action", required=True, metavar="ACTION")
    check = actions.add_parser("verify", help="check every hash chain; exits 1 at a break",
                               description="Reads every record as stored, recomputes its hash and its link to the "
                                           "previous record of its partition (user), and checks each partition's "
                                           "head and anchor.")
    check.add_argument("--json", action="store_true", help="print the report as JSON")
    check.add_argument("--aws", action="store_true",
                       help="verify the deployed audit table on DynamoDB (AWS credentials and region from the "
                            "environment; the table from --table or VOICEASSIST_AUDIT_TABLE)")
    check.add_argument("--table", help="the DynamoDB audit table's name (with --aws)")
    check.add_argument("--anchor-bucket",
                       help="the audit anchor bucket (with --aws; else VOICEASSIST_AUDIT_ANCHOR_BUCKET, the stack's "
                            "AuditAnchorBucketName output): without one, truncation with a rewritten head is not found")
    check.set_defaults(run=run_verify)
    return parser


def run_verify(args: argparse.Namespace) -> int:
    report = verify(_audit_log(args))
    if args.json:
        print(json.dumps({"ok": report.ok, "partitions": report.partitions, "records": report.records,
                          "breaks": [asdict(b) for b in report.breaks]}, indent=2))
    else:
        print(plain_report(report))
    return 0 if report.ok else 1


def plain_report(report: ChainReport) -> str:
    if report.ok:
        return f"audit chain verified: {report.records} records in {report.partitions} partitions"
    lines = [f"BROKEN  partition {found.partition}, {_where(found)}: {found.problem}" for found in report.breaks]
    partitions = len({found.partition for found in report.breaks})
    lines.append(f"audit chain broken in {partitions} of {report.partitions} partitions "
                 f"({len(report.breaks)} breaks)")
    return "\n".join(lines)


def _where(found: ChainBreak) -> str:
    if found.sequence is not None and found.audit_id:
        return f"sequence {found.sequence} ({found.audit_id})"
    if found.audit_id:
        return f"record {found.audit_id}"
    return f"sequence {found.sequence}" if found.sequence is not None else "the partition"


def _audit_log(args: argparse.Namespace) -> Any:
    if not getattr(args, "aws", False):
        from voiceassist_local.cli.local import local_dependencies

        return local_dependencies().audit
    from voiceassist.adapters.aws.dynamodb_audit import DynamoDbAuditLog
    from voiceassist.adapters.aws.s3_audit_anchor import S3AuditAnchor
    from voiceassist.errors import InvalidInput
    from voiceassist.settings import settings_from_env

    settings = settings_from_env()
    table = args.table or settings.audit_table
    if not table:
        raise InvalidInput("name the audit table: --table <name> or VOICEASSIST_AUDIT_TABLE (the stack's output)")
    bucket = args.anchor_bucket or settings.audit_anchor_bucket
    return DynamoDbAuditLog(table, anchor=S3AuditAnchor(bucket) if bucket else None)
