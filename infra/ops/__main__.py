"""python -m infra.ops {preflight,deploy,smoke,destroy,models} --env dev (what the Makefile targets run)."""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from infra.ops.environment import Stacks, load, stack_outputs
from infra.ops.lifecycle import OperationRefused, deploy, destroy
from infra.ops.preflight import preflight, report
from infra.ops.shell import CommandFailed, Shell
from infra.ops.smoke import SmokeFailed, smoke
from infra.ops.weights import StagingError, fetch_from_hub, stage


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m infra.ops")
    parser.add_argument("command", choices=["preflight", "deploy", "smoke", "destroy", "models"])
    parser.add_argument("--env", required=True)
    parser.add_argument("--confirm", default="", help="destroy: the environment's name, required for prod")
    parser.add_argument("--source", default="", help="models: a local folder holding the weights")
    parser.add_argument("--hub", default="", help="models: a model-hub repository to download first")
    return parser.parse_args(argv)


def run(args: argparse.Namespace, shell: Shell | None = None) -> int:
    config = load(args.env)
    shell = shell or Shell(config.region)
    if args.command == "preflight":
        findings = preflight(shell, config)
        print(report(findings))
        return 0 if all(f.ok for f in findings) else 1
    if args.command == "deploy":
        urls = deploy(shell, config, smoke=smoke)
        print(json.dumps(urls, indent=2))
    elif args.command == "smoke":
        print(json.dumps(smoke(shell, config, stack_outputs(shell, Stacks(config).main) or {})))
    elif args.command == "destroy":
        destroy(shell, config, allow_protected=args.confirm == config.name)
    elif args.command == "models":
        if not config.llm.on_sagemaker:
            raise StagingError(f"{config.name} has no SageMaker endpoint (llm.provider is "
                               f"{config.llm.provider.value}, enabled {config.llm.enabled}): no weights to stage")
        if bool(args.source) == bool(args.hub):
            raise StagingError("give exactly one of SOURCE=/path/to/weights or HUB=owner/repository")
        with tempfile.TemporaryDirectory(prefix="voiceassist-weights-") as folder:
            source = Path(args.source) if args.source else fetch_from_hub(shell, args.hub, Path(folder))
            staged = stage(shell, config, source)
        print(json.dumps({"staged": [f.name for f in staged], "bucket": config.model_artifacts_bucket_name}))
    return 0


def main(argv: list[str] | None = None) -> int:
    try:
        return run(parse(argv))
    except (OperationRefused, SmokeFailed, StagingError, CommandFailed) as failure:
        print(f"error: {failure}", file=sys.stderr)
        return 1
    except FileNotFoundError as missing:  # the AWS CLI, npx, docker or make is not installed
        print(f"error: {missing.filename} is not installed (docs/operations.md lists what deploys need)",
              file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
