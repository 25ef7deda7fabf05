"""Load the Lambda handlers exactly as Lambda does (the function's folder is the task root).

The functions are the catalogue's (voiceassist.constants.functions); their code is the voiceassist_functions
package, found through the import system (resources.py), so an installed wheel serves as a checkout does."""

from __future__ import annotations

import importlib.util
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from voiceassist.constants.functions import FUNCTIONS, placeholder_for
from voiceassist_local.resources import functions_dir

Handler = Callable[[dict[str, Any], Any], Any]
_loaded: dict[str, Handler] = {}
_lock = threading.Lock()


__all__ = ["function_names", "invoke", "load_handler", "placeholder_for"]


def function_names() -> list[str]:
    """Every catalogued function, by name."""
    return sorted(spec.name for spec in FUNCTIONS)


def load_handler(function_name: str, folder_root: Path | None = None) -> Handler:
    """Import functions/<name>/handler.py once, with its folder on sys.path like Lambda's task root."""
    with _lock:
        if function_name in _loaded:
            return _loaded[function_name]
        folder = (folder_root or functions_dir()) / function_name
        if str(folder) not in sys.path:
            sys.path.append(str(folder))
        spec = importlib.util.spec_from_file_location(f"voiceassist_function_{function_name}", folder / "handler.py")
        if spec is None or spec.loader is None:
            raise FileNotFoundError(f"no handler at {folder / 'handler.py'}")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        _loaded[function_name] = module.lambda_handler
        return module.lambda_handler


def invoke(function_name: str, event: dict[str, Any], *, timeout_s: float | None = None) -> Any:
    """Call a handler in-process with a Lambda-like context; `timeout_s`: the budget its context reports
    (default: Lambda's maximum, as the local runner gives every state)."""
    from voiceassist_local.asl_runner import LocalLambdaContext

    if timeout_s is None:
        context = LocalLambdaContext(function_name=function_name)
    else:
        context = LocalLambdaContext(function_name=function_name, deadline=time.monotonic() + timeout_s)
    return load_handler(function_name)(event, context)
