"""EventPublisher in-process: the local runtime's stand-in for API Gateway's WebSocket connections.

A reader opens a channel and takes its events from a queue; the query's steps (run in other threads of the same
process) publish to it by the channel id that travels in the state. Publishing to a channel nobody reads (never
opened, or closed) drops the event, as posting to a closed WebSocket connection would.
"""

from __future__ import annotations

import queue
import threading
from typing import Any


class InProcessEventHub:
    def __init__(self) -> None:
        self._channels: dict[str, queue.Queue[dict[str, Any]]] = {}
        self._lock = threading.Lock()

    def open(self, connection_id: str) -> queue.Queue[dict[str, Any]]:
        with self._lock:
            channel: queue.Queue[dict[str, Any]] = queue.Queue()
            self._channels[connection_id] = channel
            return channel

    def close(self, connection_id: str) -> None:
        with self._lock:
            self._channels.pop(connection_id, None)

    def publish(self, connection_id: str, event: dict[str, Any]) -> None:
        with self._lock:
            channel = self._channels.get(connection_id)
        if channel is not None:
            channel.put(event)


HUB = InProcessEventHub()  # process-wide: the steps and the reader share it as they share the process
