"""The test processes' Whisper memo (tests/support/whisper_memo.py): the same samples with the same options are
decoded by the model once; other samples or another option go to the model."""

from __future__ import annotations

from typing import Any

import numpy as np

from tests.support.whisper_memo import remembering


class CountingModel:
    is_multilingual = True

    def __init__(self) -> None:
        self.calls = 0

    def transcribe(self, audio: Any, **options: Any) -> tuple[Any, dict[str, Any]]:
        self.calls += 1
        return iter([f"segment of {audio.sum():.1f} with {options.get('initial_prompt')}"]), {"language": "en"}


def test_whisper_memo_decodes_the_same_samples_with_the_same_options_once() -> None:
    inner = CountingModel()
    model = remembering(lambda *args, **kwargs: inner)()
    samples = np.ones(16_000, dtype=np.float32)

    first = list(model.transcribe(samples, initial_prompt="Terms: metformin", beam_size=5)[0])
    again = list(model.transcribe(samples.copy(), beam_size=5, initial_prompt="Terms: metformin")[0])

    assert first == again == ["segment of 16000.0 with Terms: metformin"] and inner.calls == 1
    model.transcribe(samples, initial_prompt=None, beam_size=5)  # another prompt
    model.transcribe(samples * 2, initial_prompt="Terms: metformin", beam_size=5)  # other samples
    assert inner.calls == 3 and model.decodings == 3
    assert model.is_multilingual  # everything else is the model's
