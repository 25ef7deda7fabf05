"""Operator commands: preflight, deploy, smoke test, destroy and model staging, one environment at a time.

Everything that touches AWS goes through the AWS CLI, the CDK CLI or Docker via one `Shell` (shell.py), so
the logic is tested offline with a scripted shell (tests/infra/ops/). `make preflight|deploy|smoke|destroy|
models ENV=...` call `python -m infra.ops`; docs/operations.md walks an operator through them.
"""
