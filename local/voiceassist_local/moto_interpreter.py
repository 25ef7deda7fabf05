"""Imports moto's Step Functions interpreter without moto's AWS Batch backend, and EC2 behind it.

The interpreter's parser imports every service integration it knows, and the Batch one reads a single enum from
`moto.batch.utils`. Importing that submodule runs `moto/batch/__init__.py`, which builds moto's Batch backend,
which imports moto.ec2, which parses botocore's endpoint files and EC2's instance-type and region catalogues:
about 1.9 s of CPU in every process that builds the local runner (a CLI run without a server, each test worker),
for a service the runner refuses to call (only Lambda tasks run locally: asl_runner.compile_definition).

So, while the interpreter is imported, `moto.batch` is a hollow package (its spec and path, its `__init__` not
run): `moto.batch.utils` loads from it as usual. Both entries leave sys.modules afterwards, so a later
`import moto.batch` (a test using mock_aws's Batch) builds the real package as if nothing happened (its JobStatus
is then a second class; the interpreter compares it with describe_jobs' strings, which a str enum equals). Importing
this module is all it takes, and it does nothing when the interpreter or moto.batch is already imported.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from collections.abc import Iterator
from contextlib import contextmanager

INTERPRETER = "moto.stepfunctions.parser.asl.parse.asl_parser"
HOLLOW_PACKAGE = "moto.batch"


@contextmanager
def hollow_package(name: str) -> Iterator[None]:
    """`name` importable as a package whose `__init__` does not run, for the block; its submodules load normally.
    Nothing changes if the package is already imported."""
    if name in sys.modules:
        yield
        return
    spec = importlib.util.find_spec(name)
    if spec is None or spec.submodule_search_locations is None:
        raise ModuleNotFoundError(f"{name} is not an installed package")
    hollow = importlib.util.module_from_spec(spec)  # the module object, without executing the package's code
    sys.modules[name] = hollow
    try:
        yield
    finally:
        if sys.modules.get(name) is hollow:
            for loaded in [module for module in sys.modules if module == name or module.startswith(f"{name}.")]:
                del sys.modules[loaded]


def import_interpreter() -> None:
    """Import moto's ASL parser (and so the whole interpreter) without building moto's Batch backend."""
    if INTERPRETER in sys.modules:
        return
    with hollow_package(HOLLOW_PACKAGE):
        importlib.import_module(INTERPRETER)


import_interpreter()
