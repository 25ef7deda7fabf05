"""The local runner imports moto's Step Functions interpreter without moto's Batch and EC2 backends."""

from __future__ import annotations

import json
import subprocess
import sys

PROBE = """
import json, sys
import voiceassist_local.asl_runner
skipped = [name for name in ("moto.batch", "moto.batch.models", "moto.ec2") if name in sys.modules]
import moto.batch
from moto.batch.utils import JobStatus
print(json.dumps({"loaded_with_runner": skipped, "batch_backend": type(moto.batch.batch_backends).__name__,
                  "job_status": JobStatus.SUCCEEDED == "SUCCEEDED"}))
"""


def test_moto_interpreter_import_skips_batch_and_ec2_and_leaves_them_importable() -> None:
    # Given a fresh process (sys.modules as a CLI run or a test worker starts with)
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True, timeout=120)
    report = json.loads(done.stdout.strip().splitlines()[-1])
    # Then building the runner's interpreter did not import moto's Batch backend nor EC2 (seconds of CPU)
    assert report["loaded_with_runner"] == []
    # And a later import of moto.batch builds the real package, backend included
    assert report["batch_backend"] == "BackendDict"
    assert report["job_status"] is True
