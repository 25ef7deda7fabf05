"""Whether a recording holds speech: Silero VAD v6 (Silero Team, MIT) run in numpy, so that every adapter of the
SpeechToText port asks the same model the same question before it spends anything on a recording (a Whisper
decode locally, a Transcribe Medical job on AWS). The weights are faster-whisper 1.2.1's copy of the model
(`faster_whisper/assets/silero_vad_v6.onnx`, inside its MIT wheel), exported to `_data/speech/silero_vad_v6.npz`
by `python -m voiceassist_local.evaluation.silero_weights`; no function imports onnxruntime or faster-whisper for
it (the api Lambda carries neither: the ML layer does not fit beside its workspace layer).

The network is the ONNX graph's, step for step: each 512-sample chunk (32 ms at 16 kHz) with the 64 samples
before it, reflect-padded by 128 on each side, a short-time Fourier transform as a strided convolution (the
exported basis), magnitudes, four 1-D convolutions with ReLU, one LSTM over the chunks in order (ONNX gate order
i, o, f, c), ReLU, a 1x1 convolution and a sigmoid: one speech probability per chunk. The verdict is
faster-whisper's `get_speech_timestamps` at its default `VadOptions` (threshold 0.5, no minimum speech length):
speech is found when a chunk that starts inside the recording reaches the threshold. Probabilities agree with
onnxruntime's run of the same file within 1e-5 (tests/unit/test_speech_vad.py).
"""

from __future__ import annotations

import io
import threading
import wave
from functools import cache
from importlib import resources
from typing import Any

import numpy as np
import numpy.typing as npt
from numpy.lib.stride_tricks import sliding_window_view

SAMPLE_RATE = 16_000
CHUNK = 512  # samples a probability covers (faster-whisper's window_size_samples)
CONTEXT = 64  # samples of the chunk before, prepended (faster-whisper's context_size_samples)
REFLECT = 128  # the graph's reflect padding on each side
HOP = 128  # the STFT convolution's stride
THRESHOLD = 0.5  # faster_whisper.vad.VadOptions().threshold
WEIGHTS_FILE = "silero_vad_v6.npz"

Samples = npt.NDArray[np.float32]
_lock = threading.Lock()


@cache
def _weights() -> dict[str, npt.NDArray[np.float32]]:
    with _lock, (resources.files("voiceassist") / "_data" / "speech" / WEIGHTS_FILE).open("rb") as handle:
        archive = np.load(handle)
        return {name: np.asarray(archive[name], dtype=np.float32) for name in archive.files}


def _conv1d(x: Samples, weight: Samples, bias: Samples, stride: int) -> Samples:
    """A 1-D convolution over x [batch, channels, time] with kernel 3 and padding 1 (the encoder's four)."""
    padded = np.pad(x, ((0, 0), (0, 0), (1, 1)))
    windows = sliding_window_view(padded, weight.shape[2], axis=2)[:, :, ::stride]  # [batch, channels, time, k]
    out = np.tensordot(windows, weight, axes=([1, 3], [1, 2]))  # [batch, time, out channels]
    return (out.transpose(0, 2, 1) + bias[None, :, None]).astype(np.float32)


def _sigmoid(x: Samples) -> Samples:
    return (1.0 / (1.0 + np.exp(-x))).astype(np.float32)


def speech_probabilities(samples: npt.ArrayLike) -> Samples:
    """One speech probability per 512-sample chunk of 16 kHz mono samples (the last chunk zero-padded)."""
    audio = np.asarray(samples, dtype=np.float32).reshape(-1)
    if audio.size == 0:
        return np.zeros(0, dtype=np.float32)
    w = _weights()
    audio = np.pad(audio, (0, CHUNK - audio.size % CHUNK))  # as faster-whisper pads (a whole chunk when exact)
    chunks = audio.reshape(-1, CHUNK)
    chunks[-1, -CONTEXT:] = 0.0  # faster-whisper zeroes these through a view of its padded audio; so does this
    context = np.roll(np.concatenate([chunks[:-1, -CONTEXT:], np.zeros((1, CONTEXT), np.float32)]), 1, axis=0)
    framed = np.pad(np.concatenate([context, chunks], axis=1), ((0, 0), (REFLECT, REFLECT)), mode="reflect")
    basis = w["stft_basis"][:, 0, :]  # [258, 256]: the real then the imaginary half of 129 frequencies
    frames = sliding_window_view(framed, basis.shape[1], axis=1)[:, ::HOP]  # [n, 5, 256]
    spectrum = (frames @ basis.T).transpose(0, 2, 1)[:, :, 1:]  # [n, 258, 4]: the graph drops frame 0
    half = basis.shape[0] // 2
    x = np.sqrt(spectrum[:, :half] ** 2 + spectrum[:, half:] ** 2)
    for layer, stride in enumerate((1, 2, 2, 1)):
        x = np.maximum(_conv1d(x, w[f"conv{layer}_weight"], w[f"conv{layer}_bias"], stride), 0.0)
    inputs = x[:, :, 0] @ w["lstm_w"][0].T + w["lstm_b"][0, :512] + w["lstm_b"][0, 512:]  # [n, 512]
    recurrent = w["lstm_r"][0].T
    hidden = np.zeros(128, dtype=np.float32)
    cell = np.zeros(128, dtype=np.float32)
    outputs = np.empty((len(inputs), 128), dtype=np.float32)
    for n, step in enumerate(inputs):
        gates = step + hidden @ recurrent
        opened = 1.0 / (1.0 + np.exp(-gates[:384]))  # the input, output and forget gates (ONNX order i, o, f, c)
        cell = opened[256:] * cell + opened[:128] * np.tanh(gates[384:])
        hidden = opened[128:256] * np.tanh(cell)
        outputs[n] = hidden
    logits = np.maximum(outputs, 0.0) @ w["decoder_weight"][0, :, 0] + w["decoder_bias"][0]
    return _sigmoid(logits).astype(np.float32)


def speech_found(samples: npt.ArrayLike, threshold: float = THRESHOLD) -> bool:
    """Whether any chunk that starts inside the recording is speech at `threshold` (faster-whisper's
    get_speech_timestamps returns a segment then, at its default options)."""
    audio = np.asarray(samples, dtype=np.float32).reshape(-1)
    probabilities = speech_probabilities(audio)
    starts = np.arange(len(probabilities)) * CHUNK
    return bool(np.any((probabilities >= threshold) & (starts < audio.size)))


def wav_samples(audio: bytes) -> Samples | None:
    """16 kHz mono float32 samples of a PCM WAV (8, 16, 24 or 32-bit integers, any rate, channels averaged), or
    None when the bytes are not a WAV the standard library reads (WebM, Ogg, a float WAV): the caller cannot
    decide then. Another rate is resampled in the frequency domain (band-limited, so nothing above the new
    Nyquist frequency folds back into the speech band)."""
    try:
        with wave.open(io.BytesIO(audio)) as recording:
            width, channels, rate = recording.getsampwidth(), recording.getnchannels(), recording.getframerate()
            raw = recording.readframes(recording.getnframes())
    except (wave.Error, EOFError, ValueError):
        return None
    if width not in (1, 2, 3, 4) or channels < 1 or rate <= 0:
        return None
    usable = len(raw) - len(raw) % (width * channels)
    data = np.frombuffer(raw[:usable], dtype=np.uint8).reshape(-1, width)
    if width == 1:  # 8-bit WAV is unsigned
        values = data[:, 0].astype(np.float32) - 128.0
    else:
        padded = np.zeros((len(data), 4), dtype=np.uint8)
        padded[:, 4 - width:] = data  # little-endian bytes placed at the top of an int32
        values = padded.view("<i4").reshape(-1).astype(np.float32) / float(1 << (8 * (4 - width)))
    scale = float(1 << (8 * width - 1))
    mono = (values / scale).reshape(-1, channels).mean(axis=1)
    return resampled(mono.astype(np.float32), rate)


def resampled(samples: Samples, rate: int) -> Samples:
    """`samples` at `rate` Hz as 16 kHz (unchanged when already 16 kHz)."""
    if rate == SAMPLE_RATE or samples.size == 0:
        return samples
    length = max(1, round(samples.size * SAMPLE_RATE / rate))
    spectrum: Any = np.fft.rfft(samples)
    kept = np.zeros(length // 2 + 1, dtype=np.complex128)
    bins = min(len(kept), len(spectrum))
    kept[:bins] = spectrum[:bins]
    return (np.fft.irfft(kept, n=length) * (length / samples.size)).astype(np.float32)
