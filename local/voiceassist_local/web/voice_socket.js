// A recording streamed to the server while the clinician speaks: GET /v1/voice/stream, a WebSocket on the local
// server (docs/api.md, "Voice over a WebSocket"). MediaRecorder's WebM/Opus chunks go out as they are recorded,
// so the transcript arrives soon after Stop instead of after the whole recording's upload and decode.
//
// The socket only transcribes ({"ask": false}): the transcript comes back to the question box for the clinician
// to check and correct, and the corrected text is asked like a typed question. With "ask": true the server would
// answer what it heard before anyone could read it: a misheard drug or dose would already be asked, answered,
// audited and in the session's history when the clinician saw it.
//
// Browsers cannot set Authorization on a WebSocket: the token (if any) is offered as a subprotocol beside
// `voiceassist`, never in the URL. Nothing is kept: the chunks waiting for the socket to open are in memory only.
import { ApiError } from "./api.js";

const APP_PROTOCOL = "voiceassist";
const OPEN_TIMEOUT_MS = 10000; // then the recording goes by POST when it ends (socket.js waits as long)

// The WebSocket address of a path on the API's origin: ws: beside http:, wss: beside https:.
export function socketUrl(apiBase, path) {
  const url = new URL(apiBase + path, location.href);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  return url.href;
}

export class StreamedRecording {
  // format: the recorder's MIME type; partials: ask for partial transcripts (each costs the server a decode);
  // onPartial(text): what was heard so far.
  constructor(url, token, { format, partials, onPartial }) {
    this.waiting = []; // chunks recorded before the socket opened
    this.everOpened = false;
    this.failure = null; // an `error` event: the server's message and trace id
    this.transcript = null;
    let settleOpen;
    let settleEnd;
    this.opened = new Promise((resolve) => { settleOpen = resolve; });
    this.ended = new Promise((resolve) => { settleEnd = resolve; });
    try {
      this.socket = new WebSocket(url, token ? [APP_PROTOCOL, token] : [APP_PROTOCOL]);
    } catch (err) { // a URL the page's CSP refuses, or a malformed token: nothing was sent
      this.socket = null;
      settleOpen(false);
      settleEnd();
      return;
    }
    const timer = setTimeout(() => {
      settleOpen(false);
      this.abandon();
    }, OPEN_TIMEOUT_MS);
    this.socket.onopen = () => {
      clearTimeout(timer);
      this.everOpened = true;
      this.socket.send(JSON.stringify({ type: "start", format, ask: false, partials: Boolean(partials) }));
      this.waiting.forEach((chunk) => this.socket.send(chunk));
      this.waiting = [];
      settleOpen(true);
    };
    this.socket.onmessage = (message) => {
      let item;
      try {
        item = JSON.parse(message.data);
      } catch (err) {
        return; // not ours: the close decides
      }
      if (item.type === "partial" && this.transcript === null) onPartial((item.data && item.data.text) || "");
      else if (item.type === "transcript") this.transcript = item.data || { text: "" };
      else if (item.type === "error") {
        const error = (item.data && item.data.error) || {}; // as EventFeed reads it: {"error", "trace_id"}
        this.failure = new ApiError(500, error.code || "stream_error",
          error.message || "The recording could not be transcribed.", item.data && item.data.trace_id);
      }
    };
    this.socket.onclose = () => {
      clearTimeout(timer);
      settleOpen(false); // no effect once open
      settleEnd();
    };
  }

  add(chunk) {
    if (!this.socket || this.failure) return;
    if (this.socket.readyState === WebSocket.CONNECTING) this.waiting.push(chunk);
    else if (this.socket.readyState === WebSocket.OPEN) this.socket.send(chunk);
  }

  // The transcript (as POST /v1/voice/transcribe returns it), or null when the socket could not carry the
  // recording (never opened, or closed before the transcript without saying why): the caller posts it instead.
  // Rejects with the server's error event (a recognizer that failed fails the same way by POST).
  async finish() {
    if (await this.opened) {
      if (this.socket.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify({ type: "end" }));
      await this.ended;
    }
    if (this.failure) throw this.failure;
    return this.transcript;
  }

  abandon() {
    if (this.socket && this.socket.readyState <= WebSocket.OPEN) this.socket.close(1000);
  }
}
