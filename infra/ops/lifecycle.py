"""`make deploy` and `make destroy` for one environment.

Deploy: preflight, layers, the main stack, the sample corpus into incoming/ (ingested by the upload trigger),
then (when the weights are staged) the Models stack, a smoke test, and the URLs. Destroy: the Models stack, then
the main stack, which empties its own buckets in dev and staging (retried when late access logs land); prod
only with an explicit flag, and it keeps its data (RETAINED).
"""

from __future__ import annotations

import getpass
import json
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from infra.config import REPO_ROOT, EnvironmentConfig, RemovalChoice
from infra.ops.environment import Stacks, stack_outputs
from infra.ops.preflight import (
    OPENSEARCH_ROLE,
    OPENSEARCH_SERVICE,
    Finding,
    cdk_bootstrap,
    opensearch_role,
    preflight,
    report,
    weights,
)
from infra.ops.shell import CommandFailed, Shell

SAMPLE_CORPUS = REPO_ROOT / "samples" / "corpus"
PROTECTED = frozenset({"prod"})


class OperationRefused(RuntimeError):
    pass


Ask = Callable[[str], str]


def ask_operator(question: str) -> str:
    """A question on the terminal; without one (CI, a pipe) the answer is empty: nothing is done unasked."""
    return input(question) if sys.stdin.isatty() else ""


def ask_secret(question: str) -> str:
    return getpass.getpass(question) if sys.stdin.isatty() else ""


def deploy(shell: Shell, config: EnvironmentConfig, *, smoke: Any = None, ask: Ask = ask_operator,
           ask_secret: Ask = ask_secret) -> dict[str, str]:
    """Preflight (bootstrapping the account when the operator agrees, creating the OpenSearch service-linked
    role), layers, the main stack, the OpenAI key (asked once), the sample corpus, the Models stack where there
    is one, the smoke test; returns the URLs, the web client's first."""
    findings = fix_what_deploy_may(shell, config, preflight(shell, config), ask)
    print(report(findings), flush=True)
    failed = [f.check for f in findings if not f.ok]
    if failed:
        raise OperationRefused(f"preflight failed ({', '.join(failed)}): nothing was deployed")
    stacks = Stacks(config)
    shell.run(["make", "layers"], stream=True)
    shell.cdk("deploy", stacks.main, "--require-approval", "never", env=config.name)
    outputs = stack_outputs(shell, stacks.main) or {}
    openai_key(shell, outputs, ask_secret)
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
    print(next_step(config, outputs), flush=True)
    return {key: outputs[key] for key in ("WebUrl", "RestApiUrl", "WebSocketUrl", "UserPoolId") if key in outputs}


def fix_what_deploy_may(shell: Shell, config: EnvironmentConfig, findings: list[Finding], ask: Ask) -> list[Finding]:
    """The two account set-ups a first deploy needs: CDK bootstrap (asked first: it creates a stack and a bucket
    in the account) and the OpenSearch service-linked role (created: AWS's own role for VPC domains)."""
    fixed = []
    for finding in findings:
        if finding.check == "cdk bootstrap" and not finding.ok:
            target = f"aws://{config.account}/{config.region}"
            if ask(f"{target} is not bootstrapped for the CDK ({finding.detail}). Bootstrap it now? [y/N] ")\
                    .strip().lower() in ("y", "yes"):
                shell.cdk("bootstrap", target, env=config.name)
                finding = cdk_bootstrap(shell, config)
        elif finding.check == "opensearch role" and not finding.ok:
            print(f"creating the OpenSearch service-linked role ({OPENSEARCH_ROLE})", flush=True)
            shell.aws("iam", "create-service-linked-role", "--aws-service-name", OPENSEARCH_SERVICE)
            finding = opensearch_role(shell, config)
        fixed.append(finding)
    return fixed


def openai_key(shell: Shell, outputs: dict[str, str], ask: Ask) -> str:
    """The OpenAI key's secret starts as a random string (one version). Asked for once; never on the command
    line (a 0600 file the AWS CLI reads). Returns "set", "stored" or "missing"."""
    arn = outputs.get("OpenAiSecretArn")
    if not arn:
        return "missing"
    described = shell.aws("secretsmanager", "describe-secret", "--secret-id", arn)
    if len(described.get("VersionIdsToStages") or {}) > 1:
        return "set"
    key = ask("OpenAI API key for PHI-free questions (Enter to skip: they are then answered inside the boundary): ")
    if not key.strip():
        print(f"The OpenAI key is not set. Later: aws secretsmanager put-secret-value --secret-id {arn} "
              f"--secret-string file://key.txt --region {shell.region}", flush=True)
        return "missing"
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "openai-key"
        path.touch(mode=0o600)
        path.write_text(key.strip())
        shell.aws("secretsmanager", "put-secret-value", "--secret-id", arn, "--secret-string", f"file://{path}")
    return "stored"


def next_step(config: EnvironmentConfig, outputs: dict[str, str]) -> str:
    pool = outputs.get("UserPoolId", "<UserPoolId>")
    return (f"\n{config.name} is up. Web client: {outputs.get('WebUrl', '(no WebUrl output)')}\n"
            f"Next: add yourself (an email you read): aws cognito-idp admin-create-user --user-pool-id {pool} "
            f"--username you@example.org --region {config.region}; then sign in at the web URL (a TOTP second "
            f"factor is set up at first sign-in). To upload documents: aws cognito-idp admin-add-user-to-group "
            f"--user-pool-id {pool} --username you@example.org --group-name admin --region {config.region}")


def upload_samples(shell: Shell, bucket: str) -> None:
    """The sample corpus under incoming/: the upload trigger ingests each file (the smoke test asks about it)."""
    shell.run(["aws", "s3", "cp", str(SAMPLE_CORPUS), f"s3://{bucket}/incoming/", "--recursive",
               "--region", shell.region, "--only-show-errors"])


# What a `retain` environment (prod) keeps after `make destroy` (RETAIN_ON_UPDATE_OR_DELETE in the stacks): delete
# them by hand only once their retention obligations allow it (docs/operations.md "Destroy").
RETAINED = ("the documents, model-artifact, audit-anchor, voice, web and access-log S3 buckets",
            "the DynamoDB tables (documents, jobs, sessions, audit, state, idempotency)", "the OpenSearch domain",
            "the KMS key", "the Cognito user pool", "the secrets", "the log groups")
# The buckets that write server access logs into the access-log bucket (stopped before the stack goes).
LOG_WRITERS = ("DocumentsBucketName", "ModelArtifactsBucketName", "AuditAnchorBucketName", "VoiceBucketName",
               "WebBucketName")
DELETE_ATTEMPTS = 3


def destroy(shell: Shell, config: EnvironmentConfig, *, allow_protected: bool = False) -> list[str]:
    """Both stacks down. dev/staging: every bucket is emptied by the stack itself (auto-delete, writers first);
    logging into the access-log bucket stops first, and a delete that failed on late log deliveries (CloudFront
    writes for a while after its distribution goes) is retried once that bucket is emptied. Returns what stays."""
    if config.name in PROTECTED and not allow_protected:
        raise OperationRefused(f"{config.name} holds real data: destroy it only with CONFIRM={config.name}")
    stacks = Stacks(config)
    if stacks.has_models and stack_outputs(shell, stacks.models) is not None:
        shell.cdk("destroy", stacks.models, "--force", env=config.name)
    outputs = stack_outputs(shell, stacks.main)
    if outputs is None:
        return []
    kept = list(RETAINED) if config.removal is RemovalChoice.RETAIN else []
    if not kept:
        for bucket in (outputs.get(name) for name in LOG_WRITERS):
            if bucket:  # S3 server access logging off: nothing new lands in the access-log bucket
                shell.aws("s3api", "put-bucket-logging", "--bucket", bucket, "--bucket-logging-status", "{}")
    for attempt in range(1, DELETE_ATTEMPTS + 1):
        try:
            shell.cdk("destroy", stacks.main, "--force", env=config.name)
        except CommandFailed:
            if attempt == DELETE_ATTEMPTS or kept:
                raise
        if stack_outputs(shell, stacks.main) is None:
            break
        if kept or attempt == DELETE_ATTEMPTS:
            raise OperationRefused(f"{stacks.main} is still there after {attempt} delete(s): see its events")
        logs = outputs.get("AccessLogsBucketName")
        print(f"{stacks.main} did not delete (late access-log deliveries): emptying {logs} and retrying",
              flush=True)
        if logs:
            empty_bucket(shell, logs, missing_ok=True)
    if kept:
        print(f"{config.name} keeps (removal: retain): " + "; ".join(kept), flush=True)
    else:
        print(f"{config.name}: both stacks and everything in them are gone", flush=True)
    return kept


def empty_bucket(shell: Shell, bucket: str, *, missing_ok: bool = False) -> int:
    """Delete every object version and delete marker (the buckets are versioned), 1,000 at a time."""
    deleted = 0
    while True:
        try:
            listed = shell.aws("s3api", "list-object-versions", "--bucket", bucket, "--max-items", "1000")
        except CommandFailed as failure:
            if missing_ok and "NoSuchBucket" in failure.output:
                return deleted
            raise
        objects = [{"Key": v["Key"], "VersionId": v["VersionId"]}
                   for v in [*listed.get("Versions", []), *listed.get("DeleteMarkers", [])]]
        if not objects:
            return deleted
        with tempfile.TemporaryDirectory() as folder:
            batch = Path(folder) / "delete.json"
            batch.write_text(json.dumps({"Objects": objects, "Quiet": True}))
            shell.aws("s3api", "delete-objects", "--bucket", bucket, "--delete", f"file://{batch}")
        deleted += len(objects)
