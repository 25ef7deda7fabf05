"""`voiceassist audit verify`: recompute the audit log's hash chains and report the first break."""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict
from typing import Any

from voiceassist.audit_chain import verify


def add_parser(commands: Any) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = commands.add_parser("audit", help="the tamper-evident audit log")
    actions = parser.add_subparsers(dest="audit_action", required=True, metavar="ACTION")
    check = actions.add_parser("verify", help="check every hash chain; exits 1 at a break",
                               description="Recomputes every record's hash and its link to the previous record "
                                           "of its partition (user), and checks each partition's head.")
    check.add_argument("--json", action="store_true", help="print the report as JSON")
    check.set_defaults(run=run_verify)
    return parser


def run_verify(args: argparse.Namespace) -> int:
    from voiceassist_local.cli.local import local_dependencies

    report = verify(local_dependencies().audit)
    if args.json:
        print(json.dumps({"ok": report.ok, "partitions": report.partitions, "records": report.records,
                          "breaks": [asdict(b) for b in report.breaks]}, indent=2))
    elif report.ok:
        print(f"audit chain verified: {report.records} records in {report.partitions} partitions")
    else:
        for found in report.breaks:
            where = f"sequence {found.sequence}" + (f" ({found.audit_id})" if found.audit_id else "")
            print(f"BROKEN  partition {found.partition}, {where}: {found.problem}")
        print(f"audit chain broken in {len(report.breaks)} of {report.partitions} partitions")
    return 0 if report.ok else 1
