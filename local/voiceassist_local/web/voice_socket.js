// A recording streamed to the server while the clinician speaks. Two dialects of one exchange (start, the audio,
// end; then the transcript): the local server's GET /v1/voice/stream (docs/api.md, "Voice over a WebSocket":
// binary frames) and the AWS WebSocket API's voice.start / voice.chunk / voice.end messages ("Voice over the AWS
// WebSocket": base64 pieces numbered by seq, since API Gateway invokes the function once per message, after the
// server's voice.ready). MediaRecorder's WebM/Opus chunks go out as they are recorded, so the transcript arrives
// soon after Stop instead of after the whole recording's upload.
//
// The socket only transcribes ("ask": false): the transcript comes back to the question box for the clinician
// to check and correct, and the corrected text is asked like a typed question. With "ask": true the server would
// answer what it heard before anyone could read it: a misheard drug or dose would already be asked, answered,
// audited and in the session's history when the clinician saw it.
//
// Browsers cannot set Authorization on a WebSocket: the token (if any) is offered as a subprotocol beside
// `voiceassist`, never in the URL. Nothing is kept: the chunks waiting for the socket are in memory only.
import { ApiError } from "./api.js";

const APP_PROTOCOL = "voiceassist";
const OPEN_TIMEOUT_MS = 10000; // then the recording goes by POST when it ends (socket.js waits as long)

// The WebSocket address of a path on the API's origin: ws: beside http:, wss: beside https:.
export function socketUrl(apiBase, path) {
  const url = new URL(apiBase + path, location.href);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  return url.href;
}

// voice.chunk's audio before base64 (speech/chunked.py CHUNK_AUDIO_BYTES: a message must fit one 32 KB WebSocket
// frame on API Gateway); a server's voice.ready may name a smaller chunk_bytes, which then wins
const CHUNK_BYTES = 22 * 1024;

// What each server expects, message by message.
const DIALECTS = {
  local: {
    start: (format, partials) => ({ type: "start", format, ask: false, partials: Boolean(partials) }),
    readyOnOpen: true,
    chunk: async (blob) => blob,
    end: () => ({ type: "end" }),
  },
  aws: {
    start: (format) => ({ action: "voice.start", format, ask: false }), // no partials on AWS (decision 0031)
    readyOnOpen: false, // chunks wait for {"type": "voice.ready"}
    chunk: async (blob, seq) => JSON.stringify({ action: "voice.chunk", seq, audio: base64(await blob.arrayBuffer()) }),
    end: (chunks) => ({ action: "voice.end", chunks }),
  },
};

function base64(buffer) {
  const bytes = new Uint8Array(buffer);
  let text = "";
  for (let i = 0; i < bytes.length; i += 8192) text += String.fromCharCode(...bytes.subarray(i, i + 8192));
  return btoa(text);
}

export class StreamedRecording {
  // dialect: "local" or "aws"; format: the recorder's MIME type; partials: ask for partial transcripts (the
  // local server only: each costs it a decode); onPartial(text): what was heard so far.
  constructor(url, token, { dialect = "local", format, partials, onPartial }) {
    this.dialect = DIALECTS[dialect];
    this.waiting = []; // chunks recorded before the server was ready for them (cut in pieces when sent)
    this.chunkBytes = CHUNK_BYTES;
    this.ready = false;
    this.sent = 0; // chunks handed to the socket (their seq on AWS)
    this.sending = Promise.resolve(); // in order: a chunk's bytes are read asynchronously
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
    const beReady = (offered) => {
      clearTimeout(timer);
      if (Number.isInteger(offered) && offered > 0) this.chunkBytes = Math.min(CHUNK_BYTES, offered);
      this.ready = true;
      this.waiting.forEach((chunk) => this.pieces(chunk).forEach((piece) => this.send(piece)));
      this.waiting = [];
      settleOpen(true);
    };
    this.socket.onopen = () => {
      this.everOpened = true;
      this.socket.send(JSON.stringify(this.dialect.start(format, partials)));
      if (this.dialect.readyOnOpen) beReady();
    };
    this.socket.onmessage = (message) => {
      let item;
      try {
        item = JSON.parse(message.data);
      } catch (err) {
        return; // not ours: the close decides
      }
      if (item.type === "voice.ready") beReady(item.data && item.data.chunk_bytes);
      else if (item.type === "partial" && this.transcript === null) onPartial((item.data && item.data.text) || "");
      else if (item.type === "transcript") {
        this.transcript = item.data || { text: "" };
        settleEnd();
        this.abandon(); // the local server closes too; the AWS API keeps the connection for more
      } else if (item.type === "error" && !this.ready) {
        this.abandon(); // voice.start refused (a deployment without voice messages): POST says what is wrong
      } else if (item.type === "error") {
        const error = (item.data && item.data.error) || {}; // as EventFeed reads it: {"error", "trace_id"}
        this.failure = new ApiError(500, error.code || "stream_error",
          error.message || "The recording could not be transcribed.", item.data && item.data.trace_id);
        settleEnd();
        this.abandon();
      }
    };
    this.socket.onclose = () => {
      clearTimeout(timer);
      settleOpen(false); // no effect once ready
      settleEnd();
    };
  }

  add(chunk) {
    if (!this.socket || this.failure) return;
    if (this.ready) this.pieces(chunk).forEach((piece) => this.send(piece));
    else if (this.socket.readyState <= WebSocket.OPEN) this.waiting.push(chunk);
  }

  pieces(chunk) {
    const pieces = [];
    for (let at = 0; at < chunk.size; at += this.chunkBytes) pieces.push(chunk.slice(at, at + this.chunkBytes));
    return pieces;
  }

  send(piece) {
    const seq = this.sent++;
    this.sending = this.sending.then(() => this.dialect.chunk(piece, seq)).then((message) => {
      if (this.socket.readyState === WebSocket.OPEN) this.socket.send(message);
    });
  }

  // The transcript (as POST /v1/voice/transcribe returns it), or null when the socket could not carry the
  // recording (never ready, or closed before the transcript without saying why): the caller posts it instead.
  // Rejects with the server's error event (a recognizer that failed fails the same way by POST).
  async finish() {
    if (await this.opened) {
      await this.sending;
      if (this.socket.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify(this.dialect.end(this.sent)));
      await this.ended;
    }
    if (this.failure) throw this.failure;
    return this.transcript;
  }

  abandon() {
    if (this.socket && this.socket.readyState <= WebSocket.OPEN) this.socket.close(1000);
  }
}
