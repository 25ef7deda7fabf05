"""Whisper's decoding of one recording, once per test process (tests/conftest.py installs it for every test).

Several voice tests transcribe the same espeak-ng recording of the same question with the same options: the
adapter's test, the contract's, the transcribe route's, the voice query's (the answer, then the answer read aloud).
The model is deterministic there (temperature 0, no fallback), so the second decoding of the same samples with the
same options is the first one again: this keeps the first (the real model's segments and info, keyed by the
samples' hash and every option, the prompt included) and hands it back. Everything around the model still runs for
every test: the audio decoding and its limits, the prompt, the tail and loop cuts, the repair, the route. A
recording the process has not decoded yet (any other audio, a browser's recording, another prompt) goes to the model.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from typing import Any


class RememberingWhisper:
    """A WhisperModel whose transcribe() remembers what it decoded (everything else is the model's)."""

    def __init__(self, model: Any) -> None:
        self._model = model
        self._decoded: dict[tuple[str, str], tuple[list[Any], Any]] = {}
        self.decodings = 0  # how many times the model itself ran

    def transcribe(self, audio: Any, **options: Any) -> tuple[Iterator[Any], Any]:
        key = (hashlib.sha256(audio.tobytes()).hexdigest(), repr(sorted(options.items())))
        if key not in self._decoded:
            segments, info = self._model.transcribe(audio, **options)
            self._decoded[key] = (list(segments), info)
            self.decodings += 1
        segments, info = self._decoded[key]
        return iter(segments), info

    def __getattr__(self, name: str) -> Any:
        return getattr(self._model, name)


def remembering(shared_model: Callable[..., Any]) -> Callable[..., Any]:
    """whisper_stt.shared_model, its models wrapped in RememberingWhisper (one wrapper per model)."""
    wrapped: dict[int, RememberingWhisper] = {}

    def model(*args: Any, **kwargs: Any) -> RememberingWhisper:
        inner = shared_model(*args, **kwargs)
        if id(inner) not in wrapped:
            wrapped[id(inner)] = RememberingWhisper(inner)
        return wrapped[id(inner)]

    return model
