// Voice in the web client. The microphone records a question (MediaRecorder), the server transcribes it inside
// the trust boundary, and what was heard goes into the question box for the clinician to check and correct
// before asking: a misheard drug name or dose is caught before it is asked. Where the server has a voice socket
// (config.json's voice_stream on the local server; the WebSocket API's voice messages on AWS), the recording
// streams to it while the clinician speaks (voice_socket.js), with partial transcripts if asked for (locally);
// otherwise, or when the socket fails (a proxy that does not upgrade, a 426, a connection cut), the whole
// recording goes to POST /v1/voice/transcribe at Stop.
// An answer is read aloud on request (POST /v1/voice/speak), played from a blob: URL (the CSP's media-src).
// Nothing heard or said is kept in the browser: the recording lives in memory until it is transcribed.
import { el } from "./render.js";
import { StreamedRecording } from "./voice_socket.js";

export const MAX_RECORDING_SECONDS = 60; // voiceassist.speech.MAX_AUDIO_SECONDS, unless config.json says less
const MAX_SPOKEN_CHARACTERS = 4000; // voiceassist.speech.MAX_SPEECH_CHARACTERS
// What MediaRecorder may produce and the server takes (speech.AUDIO_TYPES): the first the browser supports.
const RECORDING_TYPES = ["audio/webm;codecs=opus", "audio/ogg;codecs=opus", "audio/webm", "audio/ogg"];

// A getUserMedia or MediaRecorder failure, in words a clinician can act on.
export function microphoneProblem(err) {
  switch (err && err.name) {
    case "NotAllowedError":
    case "SecurityError":
      return "The microphone is blocked for this page: allow it in the browser's site settings, or type the question.";
    case "NotFoundError":
    case "OverconstrainedError":
      return "No microphone was found: connect one and try again, or type the question.";
    case "NotReadableError":
    case "AbortError":
      return "The microphone could not be started (another application may be using it): try again, or type the question.";
    default:
      return `Recording failed (${(err && err.message) || "unknown error"}): type the question instead.`;
  }
}

export function recordingType() {
  return RECORDING_TYPES.find((type) => MediaRecorder.isTypeSupported(type)) || "";
}

// The answer as it is read aloud: without its [n] citation markers, at most MAX_SPOKEN_CHARACTERS, cut at a
// sentence's end.
export function spokenText(answer) {
  const text = answer.replace(/\s*\[\d+(?:\s*[,–-]\s*\d+)*\]/g, "").replace(/\s+/g, " ").trim();
  if (text.length <= MAX_SPOKEN_CHARACTERS) return text;
  const cut = text.slice(0, MAX_SPOKEN_CHARACTERS);
  const end = cut.lastIndexOf(". ");
  return end > 0 ? cut.slice(0, end + 1) : cut;
}

// The words of a transcript the recognizer was unsure of (the transcript's possibly_misheard: below probability 0.2
// or known to no vocabulary) that go with the question the clinician asks after reviewing it: those still inside
// a word the clinician left as it was heard. A word edited or deleted loses its mark (the clinician's correction
// wins); a word typed in is the clinician's, never unsure. Words are compared whole, in order (the longest common
// subsequence of the two texts' whitespace-separated words), so an unsure word typed again elsewhere is not kept
// for it. The server reads the list as QueryRequest.possibly_misheard (decision 0031).
const WORD = /[A-Za-z][A-Za-z'-]*/g;

function parts(token) {
  // as speech/unsure.py reads a heard word: each run of letters, whole and in its hyphen or apostrophe pieces
  const found = [];
  for (const word of token.match(WORD) || []) {
    const whole = word.replace(/^[-']+|[-']+$/g, "");
    for (const part of [whole, ...word.split(/[-']/)]) if (part) found.push(part.toLowerCase());
  }
  return found;
}

export function stillUnsure(heard, unsure, asked) {
  if (!heard || !unsure || !unsure.length) return [];
  const before = heard.trim().split(/\s+/);
  const after = asked.trim().split(/\s+/);
  // the longest common subsequence's table, then the heard words it keeps
  const rows = before.length + 1;
  const cols = after.length + 1;
  const table = new Uint16Array(rows * cols);
  for (let i = before.length - 1; i >= 0; i--) {
    for (let j = after.length - 1; j >= 0; j--) {
      table[i * cols + j] = before[i] === after[j] ? table[(i + 1) * cols + j + 1] + 1
        : Math.max(table[(i + 1) * cols + j], table[i * cols + j + 1]);
    }
  }
  const kept = new Set();
  for (let i = 0, j = 0; i < before.length && j < after.length;) {
    if (before[i] === after[j]) {
      parts(before[i]).forEach((part) => kept.add(part));
      i++;
      j++;
    } else if (table[(i + 1) * cols + j] >= table[i * cols + j + 1]) i++;
    else j++;
  }
  return [...new Set(unsure.map((word) => String(word).toLowerCase()))].filter((word) => kept.has(word));
}

// The words heard unsure where PHI sits (the transcript's phi_unsure_words: speech/phi_doubt.py) that go with the
// question: a word the clinician left as heard (as stillUnsure), and a number whose digits are still in the question
// in that order (the recognizer wrote it in groups: "617, 254, 3390"). The server then keeps the question inside
// the PHI boundary (QueryRequest.phi_unsure_words; docs/phi.md, "Spoken questions").
export function stillPhiUnsure(heard, phiUnsure, asked) {
  if (!phiUnsure || !phiUnsure.length) return [];
  const words = stillUnsure(heard, phiUnsure.filter((word) => !/^\d+$/.test(word)), asked);
  const digits = asked.replace(/\D/g, "");
  return [...words, ...phiUnsure.filter((word) => /^\d+$/.test(word) && digits.includes(word))];
}

export class Microphone {
  // button: the Speak/Stop toggle; status: a role=status line; onHeard(text, unsure, phiUnsure): a transcript to
  // review, with the words the recognizer was unsure of (the transcript's possibly_misheard) and those heard unsure
  // where PHI sits (its phi_unsure_words);
  // onNotice(text) and onError(err): the page's message box. socket: the voice socket, {url, dialect: "local" or
  // "aws"} (null: POST only); partials: () => whether to ask for partial transcripts; onPartial(text): what was
  // heard so far ("" clears it).
  constructor({ api, button, status, maxSeconds, onHeard, onNotice, onError, socket = null,
    partials = () => false, onPartial = () => null }) {
    Object.assign(this, { api, button, status, onHeard, onNotice, onError, socket, partials, onPartial });
    this.maxSeconds = Math.min(maxSeconds || MAX_RECORDING_SECONDS, MAX_RECORDING_SECONDS);
    this.recorder = null;
    this.streamed = null; // this recording's socket
    this.busy = false;
    button.addEventListener("click", () => (this.recorder ? this.stop() : this.start()));
  }

  say(text) {
    this.status.textContent = text;
  }

  async start() {
    if (this.busy) return;
    if (!navigator.mediaDevices?.getUserMedia || typeof MediaRecorder === "undefined") {
      this.onNotice("This browser cannot record here (recording needs https or localhost and a recent browser): "
        + "type the question instead.");
      return;
    }
    this.busy = true;
    this.onError(null);
    let stream;
    try {
      stream = await navigator.mediaDevices.getUserMedia({ audio: { channelCount: 1, echoCancellation: true } });
    } catch (err) {
      this.busy = false;
      this.say("");
      this.onNotice(microphoneProblem(err));
      return;
    }
    let recorder;
    const type = recordingType();
    try {
      recorder = new MediaRecorder(stream, type ? { mimeType: type } : {});
    } catch (err) {
      stream.getTracks().forEach((track) => track.stop());
      this.busy = false;
      this.onNotice(microphoneProblem(err));
      return;
    }
    // streamed only in a format the socket's start message can name (WebM or Ogg Opus); kept here too, for POST
    this.streamed = this.socket && type ? new StreamedRecording(this.socket.url, this.api.token(),
      { dialect: this.socket.dialect, format: type, partials: this.partials(), onPartial: this.onPartial }) : null;
    const streamed = this.streamed;
    const chunks = [];
    recorder.addEventListener("dataavailable", (event) => {
      if (!event.data.size) return;
      chunks.push(event.data);
      if (streamed) streamed.add(event.data);
    });
    recorder.addEventListener("stop", () => {
      stream.getTracks().forEach((track) => track.stop());
      this.finish(new Blob(chunks, { type: recorder.mimeType }));
    }, { once: true });
    // a slice every 250 ms (the local socket's partials need them often); on AWS one a second, as it sends no
    // partials and each voice.chunk is a message the WebSocket stage's throttle counts (5 a second in dev)
    recorder.start(streamed && this.socket.dialect === "aws" ? 1000 : 250);
    this.recorder = recorder;
    this.limitTimer = setTimeout(() => this.stop(true), (this.maxSeconds - 0.5) * 1000);
    this.button.textContent = "Stop";
    this.button.classList.add("recording");
    this.say(`Recording: ask your question, then press Stop (at most ${this.maxSeconds} seconds).`);
  }

  stop(atLimit = false) {
    if (!this.recorder) return;
    clearTimeout(this.limitTimer);
    this.atLimit = atLimit;
    this.recorder.stop();
    this.recorder = null;
    this.button.textContent = "Speak";
    this.button.classList.remove("recording");
    this.button.disabled = true;
    this.say("Transcribing your question…");
  }

  async finish(recording) {
    const streamed = this.streamed;
    this.streamed = null;
    try {
      if (!recording.size) {
        if (streamed) streamed.abandon();
        throw Object.assign(new Error("nothing was recorded"), { name: "AbortError" });
      }
      let transcript = streamed ? await streamed.finish() : null;
      if (streamed && !streamed.everOpened) this.socket = null; // refused: this page posts from now on
      if (transcript === null) {
        const type = (recording.type || "audio/webm").split(";")[0];
        transcript = await this.api.call("POST", "/v1/voice/transcribe", recording, type);
      }
      this.onPartial("");
      const text = (transcript.text || "").trim();
      const limit = this.atLimit ? `The recording stopped at the ${this.maxSeconds}-second limit. ` : "";
      if (!text) {
        this.say("");
        this.onNotice(`${limit}No speech was heard: press Speak and ask again, closer to the microphone.`);
        return;
      }
      if (limit) this.onNotice(`${limit}Check that the question is complete.`);
      this.say("Heard your question: check it and correct it if needed, then press Enter or Ask.");
      this.onHeard(text, Array.isArray(transcript.possibly_misheard) ? transcript.possibly_misheard : [],
        Array.isArray(transcript.phi_unsure_words) ? transcript.phi_unsure_words : []);
    } catch (err) {
      this.say("");
      this.onPartial("");
      if (err.status === undefined) this.onNotice(microphoneProblem(err));
      else this.onError(err);
    } finally {
      this.busy = false;
      this.button.disabled = false;
    }
  }
}

// A "Read aloud" button for an answer: the server synthesizes it inside the boundary, the page plays it. Its name
// says which answer (`number`, counted from the conversation's first): every answer has one, and a screen reader's
// list of buttons showed "Read aloud" as many times. The visible words begin the name (WCAG 2.5.3: said by voice
// control, "Read aloud" still finds it).
export function readAloudButton(api, answer, onError, number) {
  const text = spokenText(answer || "");
  if (!text) return null;
  const button = el("button", { type: "button", class: "read-aloud", "aria-label": `Read aloud answer ${number}` },
    "Read aloud");
  button.addEventListener("click", async () => {
    const turn = button.closest("article");
    const old = turn.querySelector("audio.spoken");
    if (old) {
      URL.revokeObjectURL(old.src);
      old.remove();
    }
    button.disabled = true;
    button.textContent = "Preparing the audio…";
    try {
      const audio = await api.audio("/v1/voice/speak", { text });
      const player = el("audio", { controls: true, class: "spoken", "aria-label": "The answer read aloud" });
      player.src = URL.createObjectURL(audio);
      button.after(player);
      player.play().catch(() => null); // a browser that blocks autoplay leaves the player's own Play button
    } catch (err) {
      onError(err);
    } finally {
      button.disabled = false;
      button.textContent = "Read aloud";
    }
  });
  return button;
}
