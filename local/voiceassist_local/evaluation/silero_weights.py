"""Writes voiceassist/_data/speech/silero_vad_v6.npz: the weights of Silero VAD v6 (Silero Team, MIT), read from
the ONNX file faster-whisper ships inside its wheel (faster_whisper/assets/silero_vad_v6.onnx, faster-whisper
1.2.1, MIT), for voiceassist/speech/vad.py, which runs the network in numpy (no onnxruntime in the api Lambda).

    .venv/bin/python -m voiceassist_local.evaluation.silero_weights

The ONNX file is a protobuf; only its graph's initializers (float32 tensors as raw data) are read, with a reader
of the few wire types they use, so the `onnx` package is not needed. The file's sha256 is checked first.
"""

from __future__ import annotations

import hashlib
import io
from pathlib import Path

import numpy as np

import voiceassist
from voiceassist.speech.vad import WEIGHTS_FILE

SOURCE_SHA256 = "4cbf549b8326f60f80f2536d9eefeb450a9abe83365a098031c89719f1be17d2"
# ONNX initializer name -> the name vad.py reads
NAMES = {
    "encoder.feature_extractor.forward_basis_buffer": "stft_basis",
    **{f"encoder.conv_layers.{n}.{part}": f"conv{n}_{part}" for n in range(4) for part in ("weight", "bias")},
    "onnx::LSTM_209": "lstm_w", "onnx::LSTM_210": "lstm_r", "onnx::LSTM_211": "lstm_b",
    "decoder.conv1d.weight": "decoder_weight", "decoder.conv1d.bias": "decoder_bias",
}
FLOAT = 1  # TensorProto.DataType.FLOAT


def _varint(data: bytes, at: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = data[at]
        value |= (byte & 0x7F) << shift
        at += 1
        if byte < 0x80:
            return value, at
        shift += 7


def _fields(data: bytes) -> list[tuple[int, int, int | bytes]]:
    """(field number, wire type, value) of one protobuf message, in order."""
    out: list[tuple[int, int, int | bytes]] = []
    at = 0
    while at < len(data):
        key, at = _varint(data, at)
        number, kind = key >> 3, key & 7
        if kind == 0:
            value, at = _varint(data, at)
            out.append((number, kind, value))
        elif kind == 2:
            size, at = _varint(data, at)
            out.append((number, kind, data[at:at + size]))
            at += size
        elif kind in (1, 5):
            width = 8 if kind == 1 else 4
            out.append((number, kind, data[at:at + width]))
            at += width
        else:
            raise ValueError(f"protobuf wire type {kind} is not used by ONNX initializers")
    return out


def initializers(model: bytes) -> dict[str, np.ndarray]:
    """The float32 initializers of an ONNX model (ModelProto.graph = 7, GraphProto.initializer = 5; TensorProto
    dims = 1, data_type = 2, name = 8, raw_data = 9)."""
    graph = next(value for number, kind, value in _fields(model) if number == 7 and kind == 2)
    assert isinstance(graph, bytes)
    tensors: dict[str, np.ndarray] = {}
    for number, kind, value in _fields(graph):
        if number != 5 or kind != 2:
            continue
        assert isinstance(value, bytes)
        dims: list[int] = []
        name, raw, data_type = "", b"", 0
        for field, wire, item in _fields(value):
            if field == 1 and wire == 0:
                dims.append(int(item))  # type: ignore[arg-type]
            elif field == 1 and wire == 2:  # packed dims
                assert isinstance(item, bytes)
                at = 0
                while at < len(item):
                    dim, at = _varint(item, at)
                    dims.append(dim)
            elif field == 2:
                data_type = int(item)  # type: ignore[arg-type]
            elif field == 8:
                name = bytes(item).decode()  # type: ignore[arg-type]
            elif field == 9:
                raw = bytes(item)  # type: ignore[arg-type]
        if data_type == FLOAT and raw:
            tensors[name] = np.frombuffer(raw, dtype="<f4").reshape(dims).copy()
    return tensors


def main() -> int:
    import faster_whisper

    source = Path(faster_whisper.__file__).parent / "assets" / "silero_vad_v6.onnx"
    model = source.read_bytes()
    if hashlib.sha256(model).hexdigest() != SOURCE_SHA256:
        raise SystemExit(f"{source} is not the Silero VAD v6 file this was written from (sha256 differs)")
    found = initializers(model)
    weights = {ours: found[theirs] for theirs, ours in NAMES.items()}
    target = Path(voiceassist.__file__).parent / "_data" / "speech" / WEIGHTS_FILE
    out = io.BytesIO()
    np.savez_compressed(out, **weights)  # type: ignore[arg-type]
    target.write_bytes(out.getvalue())
    print(f"wrote {target} ({len(out.getvalue()):,} bytes) from {source.name} (faster-whisper "
          f"{faster_whisper.__version__})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
