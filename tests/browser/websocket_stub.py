"""A stand-in for the WebSocket API on 127.0.0.1 (`websockets`' threaded server), run by the real code.

The handshake does what the `$connect` authorizer does: the token is the offered subprotocol besides
`voiceassist` (voiceassist.authentication), a wrong or missing one gets 403, and the reply accepts
`voiceassist`. Each message goes to `streaming.handle_message`, the handler of functions/stream, with the
local orchestrator and its in-process hub in place of API Gateway's management API; the events the run
publishes are sent back as `{"type", "data"}` messages, as the Lambda posts them to the connection.
A spoken question's messages (voice.start, voice.chunk, voice.end) go to the same handler under one connection
id for the socket, as API Gateway keeps it, and their events are sent as they are published.
Knobs for the tests: pause after the first token until `release` is set; close the socket (1011) after the
first token; or answer with an `error` event.
"""

from __future__ import annotations

import json
import queue
import threading
from http import HTTPStatus
from typing import Any

from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response
from websockets.protocol import State
from websockets.sync.server import ServerConnection, serve

from voiceassist.adapters.local.event_hub import HUB
from voiceassist.authentication import accepted_subprotocol, token_from_subprotocols
from voiceassist.composition import dependencies
from voiceassist.conversation import events, streaming
from voiceassist.models import new_id

END_TYPES = ("done", "error")


class WebSocketStub:
    def __init__(self, *, token: str, user_id: str) -> None:
        self.token = token
        self.user_id = user_id
        self.release = threading.Event()
        self.release.set()  # no pause unless a test clears it
        self.cut_after_first_token = False
        self.fail_with: Exception | None = None
        self.handshakes: list[str | None] = []  # the offered subprotocols, as the header carried them
        self.messages: list[dict[str, Any]] = []
        self.sent: list[str] = []  # the types of the events sent
        self.server = serve(self.handle, "127.0.0.1", 0, process_request=self.authorize,
                            select_subprotocol=self.select_subprotocol)
        self.url = f"ws://127.0.0.1:{self.server.socket.getsockname()[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def authorize(self, connection: ServerConnection, request: Request) -> Response | None:
        offered = ", ".join(request.headers.get_all("Sec-WebSocket-Protocol")) or None
        self.handshakes.append(offered)
        if token_from_subprotocols(offered) != self.token:
            return connection.respond(HTTPStatus.FORBIDDEN, "Forbidden\n")
        return None

    @staticmethod
    def select_subprotocol(connection: ServerConnection, subprotocols: list[str]) -> str | None:
        return accepted_subprotocol(", ".join(subprotocols))

    def handle(self, connection: ServerConnection) -> None:
        voice_id: str | None = None  # a spoken question's messages share the connection's id, as on API Gateway
        try:
            for raw in connection:
                message = json.loads(raw)
                self.messages.append(message)
                if str(message.get("action", "")).startswith("voice."):
                    voice_id = voice_id or self.forward_voice_events(connection)
                    if self.fail_with is not None:
                        HUB.publish(voice_id, events.error(self.fail_with, new_id("req")))
                    else:
                        streaming.handle_message(dependencies(), HUB, connection_id=voice_id,
                                                 user_id=self.user_id, body=str(raw))
                else:
                    self.answer(connection, str(raw))
        except ConnectionClosed:  # the cut this stand-in made, or the page going away
            return
        finally:
            if voice_id is not None:
                HUB.close(voice_id)

    def forward_voice_events(self, connection: ServerConnection) -> str:
        """A channel for the connection's voice messages, whose events (voice.ready, transcript, error, the
        answer's) go to the page as they are published, until the connection ends."""
        connection_id = new_id("con")
        channel = HUB.open(connection_id)

        def forward() -> None:
            while True:
                try:
                    item = channel.get(timeout=0.5)
                except queue.Empty:
                    if connection.state is State.CLOSED:
                        return
                    continue
                try:
                    connection.send(json.dumps(item, default=str))
                except ConnectionClosed:
                    return
                self.sent.append(item["type"])

        threading.Thread(target=forward, daemon=True).start()
        return connection_id

    def answer(self, connection: ServerConnection, body: str) -> None:
        connection_id = new_id("con")
        channel = HUB.open(connection_id)
        if self.fail_with is not None:
            HUB.publish(connection_id, events.error(self.fail_with, new_id("req")))
        else:
            threading.Thread(target=streaming.handle_message, args=(dependencies(), HUB), daemon=True,
                             kwargs={"connection_id": connection_id, "user_id": self.user_id, "body": body}).start()
        try:
            while True:
                item = channel.get(timeout=120)
                connection.send(json.dumps(item, default=str))
                self.sent.append(item["type"])
                if item["type"] == "token" and self.sent.count("token") == 1:
                    if self.cut_after_first_token:
                        connection.close(1011, "stream cut")
                        return
                    self.release.wait(timeout=60)
                if item["type"] in END_TYPES:
                    return
        finally:
            HUB.close(connection_id)

    def close(self) -> None:
        self.release.set()
        self.server.shutdown()
