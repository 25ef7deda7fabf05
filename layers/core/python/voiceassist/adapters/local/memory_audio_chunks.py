"""AudioChunkStore in the process's memory (the local runtime): the pieces of a streamed question never touch
the disk, as the local WebSocket keeps its recording in memory (voiceassist_local/voice_stream.py). The same
contract as the S3 store (tests/contract/test_audio_chunk_store_contract.py): a piece is stored once."""

from __future__ import annotations

import threading

from voiceassist.errors import Conflict, NotFound


class MemoryAudioChunkStore:
    def __init__(self) -> None:
        self._pieces: dict[tuple[str, int], bytes] = {}
        self._lock = threading.Lock()

    def put(self, stream_id: str, seq: int, data: bytes) -> None:
        with self._lock:
            if (stream_id, seq) in self._pieces:
                raise Conflict(f"chunk {seq} is already stored")
            self._pieces[(stream_id, seq)] = bytes(data)

    def get(self, stream_id: str, seq: int) -> bytes:
        with self._lock:
            try:
                return self._pieces[(stream_id, seq)]
            except KeyError:
                raise NotFound(f"chunk {seq} is not stored") from None

    def delete(self, stream_id: str, seqs: list[int]) -> None:
        with self._lock:
            for seq in seqs:
                self._pieces.pop((stream_id, seq), None)

    def __len__(self) -> int:
        with self._lock:
            return len(self._pieces)
