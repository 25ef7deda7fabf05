"""`make deploy` and `make destroy` for one environment.

Deploy: preflight, layers, the main stack, the sample corpus into incoming/ (ingested by the upload trigger),
then (when the weights are staged) the Models stack, a smoke test, and the URLs. Destroy: the Models stack,
the buckets emptied (every object version), then the main stack; prod only with an explicit flag.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from infra.config import REPO_ROOT, EnvironmentConfig
from infra.ops.environment import Stacks, stack_outputs
from infra.ops.preflight import preflight, report, weights
from infra.ops.shell import Shell

SAMPLE_CORPUS = REPO_ROOT / "samples" / "corpus"
PROTECTED = frozenset({"prod"})


class OperationRefused(RuntimeError):
    pass


def deploy(shell: Shell, config: EnvironmentConfig, *, smoke: Any = None) -> dict[str, str]:
    findings = preflight(shell, config)
    print(report(findings), flush=True)
    failed = [f.check for f in findings if not f.ok]
    if failed:
        raise OperationRefused(f"preflight failed ({', '.join(failed)}): nothing was deployed")
    stacks = Stacks(config)
    shell.run(["make", "layers"], stream=True)
    shell.cdk("deploy", stacks.main, "--require-approval", "never", env=config.name)
    outputs = stack_outputs(shell, stacks.main) or {}
    upload_samples(shell, outputs["DocumentsBucketName"])
    if stacks.has_models:
        if not weights(shell, config).ok:
            raise OperationRefused(f"the main stack is up; stage the weights (make models ENV={config.name} "
                                   "SOURCE=...) and run make deploy again for the Models stack")
        shell.cdk("deploy", stacks.models, "--require-approval", "never", env=config.name)
    if smoke is not None and "SmokeClientId" in outputs:
        smoke(shell, config, outputs)
    elif smoke is not None:  # prod: no admin-password client; a clinician checks it by hand (docs/operations.md)
        print(f"{config.name} has no smoke-test client: sign in as a clinician and ask the sample question", flush=True)
    return {key: outputs[key] for key in ("RestApiUrl", "WebSocketUrl", "UserPoolId") if key in outputs}


def upload_samples(shell: Shell, bucket: str) -> None:
    """The sample corpus under incoming/: the upload trigger ingests each file (the smoke test asks about it)."""
    shell.run(["aws", "s3", "cp", str(SAMPLE_CORPUS), f"s3://{bucket}/incoming/", "--recursive",
               "--region", shell.region, "--only-show-errors"])


def destroy(shell: Shell, config: EnvironmentConfig, *, allow_protected: bool = False) -> None:
    if config.name in PROTECTED and not allow_protected:
        raise OperationRefused(f"{config.name} holds real data: destroy it only with CONFIRM={config.name}")
    stacks = Stacks(config)
    if stacks.has_models and stack_outputs(shell, stacks.models) is not None:
        shell.cdk("destroy", stacks.models, "--force", env=config.name)
    outputs = stack_outputs(shell, stacks.main)
    if outputs is None:
        return
    names = ("DocumentsBucketName", "ModelArtifactsBucketName", "AccessLogsBucketName")  # access logs last
    for bucket in (outputs.get(name) for name in names):
        if bucket:
            empty_bucket(shell, bucket)
    shell.cdk("destroy", stacks.main, "--force", env=config.name)


def empty_bucket(shell: Shell, bucket: str) -> int:
    """Delete every object version and delete marker (the buckets are versioned), 1,000 at a time."""
    deleted = 0
    while True:
        listed = shell.aws("s3api", "list-object-versions", "--bucket", bucket, "--max-items", "1000")
        objects = [{"Key": v["Key"], "VersionId": v["VersionId"]}
                   for v in [*listed.get("Versions", []), *listed.get("DeleteMarkers", [])]]
        if not objects:
            return deleted
        with tempfile.TemporaryDirectory() as folder:
            batch = Path(folder) / "delete.json"
            batch.write_text(json.dumps({"Objects": objects, "Quiet": True}))
            shell.aws("s3api", "delete-objects", "--bucket", bucket, "--delete", f"file://{batch}")
        deleted += len(objects)
