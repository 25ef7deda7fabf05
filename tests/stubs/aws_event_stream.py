"""AWS event-stream responses without sockets: encoded messages that botocore's own parser reads, served from a
`before-send` hook (SageMaker's InvokeEndpointWithResponseStream, Bedrock's ConverseStream)."""

from __future__ import annotations

import binascii
import io
import json
import struct
from typing import Any

from botocore.awsrequest import AWSResponse
from urllib3.response import HTTPResponse


def _header(name: str, value: str) -> bytes:
    raw_name, raw_value = name.encode(), value.encode()
    string_type = b"\x07"
    return (struct.pack(">B", len(raw_name)) + raw_name + string_type
            + struct.pack(">H", len(raw_value)) + raw_value)


def event_message(event_type: str, payload: bytes, *, message_type: str = "event",
                  content_type: str = "application/octet-stream") -> bytes:
    """One message of the AWS event-stream encoding: prelude, CRC, headers, payload, CRC."""
    kind = ":exception-type" if message_type == "exception" else ":event-type"
    headers = (_header(":message-type", message_type) + _header(kind, event_type)
               + _header(":content-type", content_type))
    prelude = struct.pack(">II", 12 + len(headers) + len(payload) + 4, len(headers))
    prelude += struct.pack(">I", binascii.crc32(prelude))
    message = prelude + headers + payload
    return message + struct.pack(">I", binascii.crc32(message))


def json_event(event_type: str, body: dict[str, Any], *, exception: bool = False) -> bytes:
    """A JSON event (Bedrock's ConverseStream events and exceptions)."""
    return event_message(event_type, json.dumps(body).encode(), content_type="application/json",
                         message_type="exception" if exception else "event")


def serve_stream(client: Any, operation: str, *messages: bytes) -> list[dict[str, Any]]:
    """Answer the client's next `operation` call with these encoded messages; returns the request bodies sent."""
    sent: list[dict[str, Any]] = []

    def send(request: Any, **kwargs: Any) -> AWSResponse:
        sent.append(json.loads(request.body))
        raw = HTTPResponse(body=io.BytesIO(b"".join(messages)), status=200, preload_content=False)
        return AWSResponse(request.url, 200, {"Content-Type": "application/vnd.amazon.eventstream"}, raw)

    client.meta.events.register(f"before-send.{client.meta.service_model.service_id.hyphenize()}.{operation}", send)
    return sent
