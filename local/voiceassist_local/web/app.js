// The VoiceAssist web client: ask, streamed answers with numbered citations, sessions, and (for admins) the
// document list. Plain ES modules, no build step.
import { Api } from "./api.js";
import { Auth } from "./auth.js";
import { loadAdmin } from "./admin.js";
import { loadTelemetry } from "./telemetry.js";
import { pendingActions, toolCards } from "./tools.js";
import { Microphone, readAloudButton, stillPhiUnsure, stillUnsure } from "./voice.js";
import { socketUrl } from "./voice_socket.js";
import {
  answerStatus, answerText, citationList, claimsCiting, clarifyingOptions, el, highlightedPassage, phiBadge, warnings,
  where,
} from "./render.js";

const SESSIONS = "voiceassist.sessions"; // ids and dates only: no question text is kept in the browser
const $ = (id) => document.getElementById(id);
// heard: the last transcript put in the question box, {text, unsure} (its words the recognizer was unsure of), until
// it is asked or the box is emptied; in memory only, like the transcript
const state = { api: null, auth: null, sessionId: null, busy: false, heard: null };

async function main() {
  const config = await (await fetch("/config.json")).json();
  state.auth = new Auth(config.auth, config.groups || []);
  try {
    if (!(await state.auth.complete())) return showSignIn();
  } catch (err) {
    return showError(err);
  }
  state.api = new Api((config.api_base || "").replace(/\/+$/, ""), () => state.auth.idToken(),
    config.websocket_url || null);
  if (state.auth.required) {
    $("who").textContent = state.auth.claims().email || "";
    $("sign-out").hidden = false;
    $("sign-out").addEventListener("click", () => state.auth.signOut());
  }
  $("ask-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const question = $("question").value;
    // a spoken question's unsure words go with it, less those the clinician corrected (voice.js, stillUnsure)
    const misheard = state.heard ? stillUnsure(state.heard.text, state.heard.unsure, question) : [];
    const phiUnsure = state.heard ? stillPhiUnsure(state.heard.text, state.heard.phiUnsure, question) : [];
    ask(question, misheard, phiUnsure);
  });
  $("question").addEventListener("input", () => {
    if (!$("question").value.trim()) state.heard = null; // emptied: what is typed next was not heard
  });
  $("question").addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      $("ask-form").requestSubmit();
    }
  });
  // the voice socket: the local server's (config.json's voice_stream) or the WebSocket API's voice messages (AWS);
  // partial transcripts (locally only) when the clinician ticks the box (each costs the server a decode: decision 0031)
  const socket = config.voice_stream ? { url: socketUrl(state.api.base, config.voice_stream), dialect: "local" }
    : config.websocket_url ? { url: config.websocket_url, dialect: "aws" } : null;
  $("voice-options").hidden = !socket || socket.dialect !== "local";
  state.microphone = new Microphone({
    api: state.api, button: $("mic"), status: $("voice-status"), maxSeconds: config.voice_max_seconds,
    socket, partials: () => $("voice-partials").checked,
    onPartial: (text) => {
      $("voice-partial").textContent = text ? `Heard so far: ${text}` : "";
      $("voice-partial").hidden = !text;
    },
    onHeard: (text, unsure, phiUnsure) => {
      const box = $("question");
      box.value = text;
      state.heard = { text, unsure, phiUnsure };
      box.focus();
      box.setSelectionRange(text.length, text.length);
    },
    onNotice: showNotice, onError: showError,
  });
  $("new-session").addEventListener("click", () => newSession().then(() => {
    $("conversation").replaceChildren();
    $("question").focus();
  }).catch(showError));
  renderSessionList();
  if (state.auth.isAdmin()) {
    loadAdmin(state.api, showError);
    loadTelemetry(state.api, showError);
  }
  const q = new URLSearchParams(location.search).get("q");
  if (q) ask(q).then((answered) => { if (answered) dropAskedQuestion(); });
  else $("question").focus();
}

// The deep link's question leaves the address once answered: a reload (or Back, then Forward) would ask it again, and
// a question holding PHI would stay in the address bar and the history entry. Unanswered, it stays to ask again.
function dropAskedQuestion() {
  const params = new URLSearchParams(location.search);
  params.delete("q");
  const rest = params.toString();
  history.replaceState(history.state, "", location.pathname + (rest ? `?${rest}` : "") + location.hash);
}

function showSignIn() {
  const button = el("button", { type: "button", onclick: () => state.auth.signIn() }, "Sign in");
  $("conversation").append(el("p", {}, "Sign in to ask questions. "), button);
  $("ask-form").hidden = true;
  button.focus();
}

// A message about what was typed (not a failure): in the same alert box, without "Something went wrong".
export function showNotice(text) {
  const box = $("error");
  box.replaceChildren(text, el("button", { type: "button", class: "dismiss", onclick: () => showError(null) }, "Dismiss"));
  box.hidden = false;
}

export function showError(err) {
  const box = $("error");
  if (!err) {
    box.hidden = true;
    return;
  }
  if (err.status === 401 && state.auth?.required) {
    showSignIn(); // the hour-long ID token expired: sign in again (the question is still in the URL or box)
  }
  const trace = err.traceId ? ` (trace id ${err.traceId})` : "";
  box.replaceChildren(el("strong", { text: "Something went wrong: " }), `${err.message}${trace}`,
    el("button", { type: "button", class: "dismiss", onclick: () => showError(null) }, "Dismiss"));
  box.hidden = false;
}

// Sessions ---------------------------------------------------------------------------------------------

function savedSessions() {
  return JSON.parse(localStorage.getItem(SESSIONS) || "[]");
}

function renderSessionList() {
  $("session-list").replaceChildren(...savedSessions().map((s) => el("li", {},
    el("button", {
      type: "button", "aria-current": s.session_id === state.sessionId ? "true" : null,
      onclick: () => openSession(s.session_id).catch(showError),
    }, `Session of ${new Date(s.created_at).toLocaleString()}`))));
}

async function newSession() {
  const context = $("clinical-context").value.trim();
  const session = await state.api.call("POST", "/v1/sessions", { clinical_context: context || null });
  const kept = [{ session_id: session.session_id, created_at: session.created_at },
    ...savedSessions().filter((s) => s.session_id !== session.session_id)].slice(0, 20);
  localStorage.setItem(SESSIONS, JSON.stringify(kept));
  state.sessionId = session.session_id;
  renderSessionList();
  return session;
}

async function openSession(sessionId) {
  let session, history;
  try {
    const path = `/v1/sessions/${encodeURIComponent(sessionId)}`;
    [session, history] = await Promise.all([state.api.call("GET", path), state.api.call("GET", `${path}/messages`)]);
  } catch (err) {
    if (err.status === 404) { // expired (sessions last 12 hours) or deleted: forget it
      localStorage.setItem(SESSIONS, JSON.stringify(savedSessions().filter((s) => s.session_id !== sessionId)));
      renderSessionList();
    }
    throw err;
  }
  state.sessionId = sessionId;
  $("clinical-context").value = session.clinical_context || "";
  $("conversation").replaceChildren(...history.messages.map((m) => el("article", { class: `turn ${m.role}` },
    el("h3", { class: "visually-hidden", text: m.role === "user" ? "You asked" : "Answer" }),
    el("p", { text: m.content }))));
  renderSessionList();
  showError(null);
}

// Asking -------------------------------------------------------------------------------------------------

const MAX_QUESTION_CHARS = 4000; // QueryRequest.query's limit

// misheard: the words of a spoken question the recognizer was unsure of and the clinician left as heard
async function ask(question, misheard = [], phiUnsure = []) {
  question = question.trim();
  if (state.busy) return;
  if (!question) {
    showNotice("Type a question first, for example: What is the first-line treatment for uncomplicated hypertension?");
    $("question").focus();
    return;
  }
  if (question.length > MAX_QUESTION_CHARS) {
    showNotice(`The question is ${question.length} characters long; the limit is ${MAX_QUESTION_CHARS}: shorten it.`);
    return;
  }
  state.busy = true;
  $("ask").disabled = true;
  showError(null);
  $("question").value = "";
  state.heard = null;
  const conversation = $("conversation");
  conversation.append(el("article", { class: "turn user" },
    el("h3", { class: "visually-hidden", text: "You asked" }), el("p", { text: question })));
  const turn = el("article", { class: "turn assistant", "aria-busy": "true" },
    el("h3", { class: "visually-hidden", text: "Answer" }));
  const progress = el("p", { class: "progress hint", text: "Checking the question…" });
  const live = el("p", { class: "answer-text streaming" });
  turn.append(progress, live);
  conversation.append(turn);
  try {
    if (!state.sessionId) await newSession().catch(() => null); // asking still works without a session
    const request = { query: question, session_id: state.sessionId };
    if (misheard.length) request.possibly_misheard = misheard;
    if (phiUnsure.length) request.phi_unsure_words = phiUnsure; // keeps it inside the PHI boundary
    const reasons = []; // the route events' reasons and the tools' results, when the answer streams
    const tools = [];
    const response = await state.api.ask(request, (type, data) => {
      // "no PHI detected: ..." is the badge's own label: said once (a PHI step's reason says where it may go)
      if (type === "route" && data.reason && (data.stage !== "phi" || data.phi_detected)) reasons.push(data.reason);
      if (type === "tool" && data.phase === "result") tools.push(data);
      onEvent(type, data, progress, live);
    });
    renderAnswer(turn, response, question, reasons, tools);
    return true;
  } catch (err) {
    turn.replaceChildren(el("p", { class: "failed", text: "No answer: see the message above." }));
    if (!$("question").value.trim()) { // back in the box: Enter asks it again, with its unsure words
      $("question").value = question;
      state.heard = misheard.length || phiUnsure.length ? { text: question, unsure: misheard, phiUnsure } : null;
    }
    showError(err);
    return false;
  } finally {
    turn.removeAttribute("aria-busy");
    state.busy = false;
    $("ask").disabled = false;
    $("question").focus();
  }
}

const STAGES = { route: "Choosing a model…", plan: "Planning the search…", retrieval: "Reading the sources…",
  tool: "Running a tool…", critique: "Checking the answer against its sources…" };

// A draft token is the model's text as it is generated (data.draft names the model call: a new one starts
// over); it is shown as a draft until the checked answer's tokens (no data.draft) replace it.
function onEvent(type, data, progress, live) {
  if (type === "token" && data.draft) {
    if (live.dataset.draft !== data.draft) live.replaceChildren();
    live.dataset.draft = data.draft;
    live.classList.add("draft");
    progress.textContent = "Writing the answer (a draft until it is checked against its sources)…";
    live.append(data.text || "");
  } else if (type === "token") {
    if (live.dataset.draft) {
      delete live.dataset.draft;
      live.classList.remove("draft");
      live.replaceChildren();
    }
    live.append(data.text || "");
  } else if (STAGES[type]) progress.textContent = STAGES[type];
}

function renderAnswer(turn, response, question, reasons = [], tools = []) {
  const status = answerStatus(response);
  const metadata = response.metadata;
  turn.dataset.status = status;
  const children = [el("h3", { class: "visually-hidden", text: "Answer" })];
  if (status === "no_evidence") {
    children.push(el("div", { class: "no-evidence", role: "status" },
      el("strong", { text: "No evidence found. " }),
      el("span", { text: response.answer || "The knowledge base has no passage that answers this." })));
  } else if (status === "clarification") {
    const text = response.clarifying_question || response.answer;
    children.push(el("p", { class: "clarify", text }));
    const options = clarifyingOptions(text);
    if (options.length) {
      children.push(el("div", { class: "options", role: "group", "aria-label": "Clarify the question" },
        options.map((option) => el("button", { type: "button", class: "option",
          onclick: () => ask(`${question} (${option})`) }, option))));
    }
  } else {
    if (status === "answered_other_population") {
      children.push(el("div", { class: "other-population", role: "status" },
        el("strong", { text: "Evidence for another population. " }),
        el("span", { text: "The cited passages are not about the patient group asked about: read the caution first." })));
    }
    const open = (citation) => openCitation(citation, claimsCiting(response.answer, citation.number));
    children.push(answerText(response.answer, response.citations, open));
    children.push(toolCards(tools), pendingActions(tools, state.api, showError));
    children.push(citationList(response.citations, open));
    const number = [...$("conversation").querySelectorAll("article.turn.assistant")].indexOf(turn) + 1;
    children.push(readAloudButton(state.api, response.answer, showError, number));
  }
  children.push(warnings(metadata), phiBadge(metadata, reasons));
  turn.replaceChildren(...children.filter(Boolean));
}

// A document's url is what its uploader typed: only an http(s) address becomes a link (never javascript: or data:).
function webLink(url) {
  try {
    const parsed = new URL(url);
    return parsed.protocol === "https:" || parsed.protocol === "http:" ? parsed.href : null;
  } catch {
    return null;
  }
}

async function openCitation(citation, claims) {
  const dialog = $("passage");
  $("passage-title").textContent = `[${citation.number}] ${citation.title}`;
  $("passage-where").textContent = where(citation);
  const text = $("passage-text");
  text.replaceChildren(highlightedPassage(citation.excerpt, claims || citation.excerpt));
  const link = webLink(citation.url) || (citation.doi ? `https://doi.org/${citation.doi}` : null);
  $("passage-link").replaceChildren(link ? el("a", { href: link, target: "_blank", rel: "noopener noreferrer" },
    citation.url && citation.url.toLowerCase().endsWith(".pdf") ? "Open the PDF" : "Open the source") : "");
  dialog.showModal();
  if (!citation.chunk_id) return;
  try {
    const passage = await state.api.call("GET",
      `/v1/documents/${encodeURIComponent(citation.doc_id)}/chunks/${encodeURIComponent(citation.chunk_id)}`);
    text.replaceChildren(highlightedPassage(passage.text, claims || citation.excerpt));
    const mark = text.querySelector("mark");
    if (mark) mark.scrollIntoView({ block: "center" });
  } catch (err) {
    text.append(el("p", { class: "hint", text: `(Only the excerpt is available: ${err.message})` }));
  }
}

main().catch(showError);
