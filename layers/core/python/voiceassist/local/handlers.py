"""Load the Lambda handlers from functions/<name>/handler.py exactly as Lambda does (the folder is the root)."""

from __future__ import annotations

import importlib.util
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from voiceassist.settings import PACKAGE_DIR

REPO_ROOT = PACKAGE_DIR.parents[3]
FUNCTIONS_DIR = REPO_ROOT / "functions"
STATEMACHINES_DIR = REPO_ROOT / "statemachines"

Handler = Callable[[dict[str, Any], Any], Any]
_loaded: dict[str, Handler] = {}
_lock = threading.Lock()


def function_names(functions_dir: Path = FUNCTIONS_DIR) -> list[str]:
    return sorted(p.parent.name for p in functions_dir.glob("*/handler.py"))


def placeholder_for(function_name: str) -> str:
    """functions/ingest_extract -> IngestExtractFunctionArn (the ASL placeholder and CDK substitution key)."""
    return "".join(part.capitalize() for part in function_name.split("_")) + "FunctionArn"


def load_handler(function_name: str, functions_dir: Path = FUNCTIONS_DIR) -> Handler:
    """Import functions/<name>/handler.py once, with its folder on sys.path like Lambda's task root."""
    with _lock:
        if function_name in _loaded:
            return _loaded[function_name]
        folder = functions_dir / function_name
        if str(folder) not in sys.path:
            sys.path.append(str(folder))
        spec = importlib.util.spec_from_file_location(f"voiceassist_function_{function_name}", folder / "handler.py")
        if spec is None or spec.loader is None:
            raise FileNotFoundError(f"no handler at {folder / 'handler.py'}")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        _loaded[function_name] = module.lambda_handler
        return module.lambda_handler


def invoke(function_name: str, event: dict[str, Any]) -> Any:
    """Call a handler in-process with a Lambda-like context."""
    from voiceassist.adapters.local_pipeline import LocalLambdaContext

    return load_handler(function_name)(event, LocalLambdaContext(function_name=function_name))
