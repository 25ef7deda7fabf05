// Talks to the VoiceAssist API: JSON calls, and a question streamed over the WebSocket API when config.json
// names one (AWS), else over Server-Sent Events when the server has POST /v1/query/stream (locally); either
// falls back to POST /v1/query (one reply) when it cannot stream. Both streams feed the same events.
import { askOverWebSocket } from "./socket.js";

export class ApiError extends Error {
  constructor(status, code, message, traceId) {
    super(message);
    this.status = status;
    this.code = code;
    this.traceId = traceId;
  }
}

export class Api {
  constructor(base, token, websocketUrl = null) {
    this.base = base;
    this.token = token; // () => an ID token, or null locally
    this.websocketUrl = websocketUrl; // wss://... on AWS (config.json), null locally
    this.streaming = true; // until the server says it has no stream route, or the socket cannot open
  }

  headers(extra = {}) {
    const token = this.token();
    return token ? { ...extra, authorization: token } : extra;
  }

  async call(method, path, body, contentType = "application/json") {
    const init = { method, headers: this.headers(body === undefined ? {} : { "content-type": contentType }) };
    if (body !== undefined) init.body = contentType === "application/json" ? JSON.stringify(body) : body;
    let reply;
    try {
      reply = await fetch(this.base + path, init);
    } catch (err) {
      throw new ApiError(0, "network", "The server could not be reached. Check your connection and try again.");
    }
    return readReply(reply);
  }

  // POSTs JSON and resolves to the reply's audio as a Blob (errors as call's).
  async audio(path, body) {
    let reply;
    try {
      reply = await fetch(this.base + path, {
        method: "POST", body: JSON.stringify(body),
        headers: this.headers({ "content-type": "application/json", accept: "audio/wav" }),
      });
    } catch (err) {
      throw new ApiError(0, "network", "The server could not be reached. Check your connection and try again.");
    }
    if (!reply.ok) return readReply(reply);
    return reply.blob();
  }

  // Asks a question; onEvent(type, data) sees every streamed event. Resolves to the full QueryResponse.
  async ask(request, onEvent) {
    if (this.streaming) {
      const streamed = this.websocketUrl
        ? await askOverWebSocket(this.websocketUrl, this.token(), request, onEvent)
        : await this.askStreaming(request, onEvent);
      if (streamed !== null) return streamed;
      this.streaming = false;
    }
    const response = await this.call("POST", "/v1/query", request);
    onEvent("done", response);
    return response;
  }

  // null when the server has no stream route (the caller falls back); otherwise the done event's data.
  async askStreaming(request, onEvent) {
    let reply;
    try {
      reply = await fetch(this.base + "/v1/query/stream", {
        method: "POST",
        headers: this.headers({ "content-type": "application/json", accept: "text/event-stream" }),
        body: JSON.stringify(request),
      });
    } catch (err) {
      throw new ApiError(0, "network", "The server could not be reached. Check your connection and try again.");
    }
    if (reply.status === 404 || reply.status === 405) return null;
    const type = reply.headers.get("content-type") || "";
    if (!reply.ok || !type.startsWith("text/event-stream")) return readReply(reply);
    const feed = new EventFeed(onEvent);
    for await (const [event, data] of serverSentEvents(reply.body)) feed.take(event, data);
    return feed.result();
  }
}

export const STREAM_CUT = "The answer stopped before it was complete. Ask again.";

// One streamed answer's events, whichever transport carried them: every event goes to onEvent; `error`
// throws; `done` is the QueryResponse; an end without `done` is an error (the stream was cut).
export class EventFeed {
  constructor(onEvent) {
    this.onEvent = onEvent;
    this.done = null;
  }

  take(type, data) {
    if (type === "error") {
      const error = data.error || data; // {"error": {"code", "message"}, "trace_id"}
      throw new ApiError(500, error.code || "stream_error", error.message || "The answer failed.", data.trace_id);
    }
    this.onEvent(type, data);
    if (type === "done") this.done = data;
  }

  result() {
    if (this.done === null) throw new ApiError(0, "stream_cut", STREAM_CUT);
    return this.done;
  }
}

async function readReply(reply) {
  const text = await reply.text();
  let body = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch (err) {
    body = null;
  }
  if (reply.ok) return body;
  const error = (body && body.error) || {};
  const message = error.message || (body && body.message) || `The server answered ${reply.status}.`;
  throw new ApiError(reply.status, error.code || "http_" + reply.status, message, error.trace_id);
}

// Parses `event: <type>\ndata: <json>\n\n` blocks from a byte stream.
export async function* serverSentEvents(body) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value.replace(/\r\n/g, "\n");
    let end;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const parsed = parseBlock(block);
      if (parsed) yield parsed;
    }
  }
}

export function parseBlock(block) {
  let event = "message";
  const data = [];
  for (const line of block.split("\n")) {
    if (line.startsWith("event:")) event = line.slice(6).trim();
    else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
  }
  if (!data.length) return null;
  try {
    return [event, JSON.parse(data.join("\n"))];
  } catch (err) {
    return [event, { text: data.join("\n") }];
  }
}
