"""The one door to the outside: AWS CLI, CDK CLI, Docker and make, run as subprocesses."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Sequence
from typing import Any

CDK_CLI = "aws-cdk@2.1148.x"  # the Makefile's pin


class CommandFailed(RuntimeError):
    def __init__(self, argv: Sequence[str], code: int, output: str) -> None:
        super().__init__(f"{' '.join(argv)} exited {code}: {output.strip()[-800:]}")
        self.argv = list(argv)
        self.code = code
        self.output = output


class Shell:
    """Runs commands; `aws()` adds the region and JSON output and parses the answer."""

    def __init__(self, region: str, *, echo: bool = True) -> None:
        self.region = region
        self.echo = echo

    def run(self, argv: Sequence[str], *, stream: bool = False) -> str:
        if self.echo:
            print("$", " ".join(argv), flush=True)
        if stream:  # long commands (cdk deploy, docker) print as they go
            completed = subprocess.run(list(argv), check=False)
            if completed.returncode:
                raise CommandFailed(argv, completed.returncode, "")
            return ""
        result = subprocess.run(list(argv), capture_output=True, text=True, check=False)
        if result.returncode:
            raise CommandFailed(argv, result.returncode, result.stderr or result.stdout)
        return result.stdout

    def aws(self, *args: str) -> Any:
        output = self.run(["aws", *args, "--region", self.region, "--output", "json"])
        return json.loads(output) if output.strip() else {}

    def cdk(self, *args: str, env: str) -> str:
        return self.run(["npx", "-y", CDK_CLI, *args, "-c", f"env={env}"], stream=True)
