// Builds the conversation's DOM. Everything from the server is set as text (never as HTML), so an answer
// or a document passage cannot inject markup into the page.

export function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === null || value === undefined || value === false) continue;
    if (name === "class") node.className = value;
    else if (name === "text") node.textContent = value;
    else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child !== null && child !== undefined) node.append(child);
  }
  return node;
}

// answered, answered_other_population, no_evidence, clarification or tool_result: metadata.answer_status when the server sends it;
// servers before that field say "no evidence" with an uncited answer after a search.
export function answerStatus(response) {
  const status = response.metadata.answer_status || response.answer_status;
  if (status) return status;
  if (response.clarifying_question && clarifyingOptions(response.clarifying_question).length) return "clarification";
  const searched = (response.metadata.sources_searched || []).length > 0;
  if (!response.citations.length && searched) return "no_evidence";
  if (response.clarifying_question) return "clarification";
  return "answered";
}

// "Which diabetes do you mean: type 1, type 2, gestational diabetes, or diabetes insipidus?" -> 4 options.
export function clarifyingOptions(question) {
  const colon = question.indexOf(":");
  if (colon < 0) return [];
  const list = question.slice(colon + 1).replace(/\?\s*$/, "").replace(/\([^)]*\)/g, "");
  return list.split(/,\s*(?:or\s+)?|\s+or\s+/).map((s) => s.trim()).filter((s) => s && s.length <= 60);
}

// The answer with each [n] as a button that opens citation n's passage.
export function answerText(text, citations, openCitation) {
  const byNumber = new Map(citations.map((c) => [c.number, c]));
  const paragraph = el("p", { class: "answer-text" });
  let last = 0;
  for (const match of text.matchAll(/\[(\d+)\]/g)) {
    paragraph.append(text.slice(last, match.index));
    const citation = byNumber.get(Number(match[1]));
    paragraph.append(citation
      ? el("button", { type: "button", class: "cite", "aria-label": `Source ${citation.number}: ${citation.title}`,
        onclick: () => openCitation(citation) }, `[${citation.number}]`)
      : match[0]);
    last = match.index + match[0].length;
  }
  paragraph.append(text.slice(last));
  return paragraph;
}

export function citationList(citations, openCitation) {
  if (!citations.length) return null;
  return el("ol", { class: "citations", "aria-label": "Sources" }, citations.map((c) =>
    el("li", { value: String(c.number) },
      // named by number, title and where, so two sections of one document are two names to a screen reader
      el("button", { type: "button", class: "source", "aria-label": `Source ${c.number}: ${c.title}, ${where(c)}`,
        onclick: () => openCitation(c) }, c.title),
      el("span", { class: "hint", text: " " + where(c) }))));
}

export function where(citation) {
  const parts = [citation.source_type.replace("_", " ")];
  if (citation.section) parts.push(`section “${citation.section}”`);
  if (citation.page) parts.push(`page ${citation.page}`);
  return parts.join(" · ");
}

// Which model answered and why: the PHI boundary made visible.
export function phiBadge(metadata, reasons = []) {
  const types = metadata.phi_entity_types || [];
  const found = metadata.phi_detected;
  const unchecked = (metadata.warnings || []).some((w) => w.startsWith("PHI detection failed"));
  const label = unchecked ? "PHI check failed: treated as PHI"
    : found ? `PHI detected${types.length ? ": " + types.join(", ") : ""}` : "No PHI detected";
  return el("div", { class: found ? "badge phi" : "badge clean", role: "note", "aria-label": "Privacy and model" },
    el("strong", { text: label }), " · ",
    el("span", { class: "model", text: `answered by ${metadata.model}` }), " · ",
    el("span", { class: "why", text: reasons.length ? reasons.join("; ") : whyThisModel(metadata) }));
}

export function whyThisModel(metadata) {
  if (metadata.model === "none") return "no model was needed for this reply";
  if (metadata.extractive) {
    return metadata.degraded
      ? "the language models were unavailable, so the answer quotes the cited excerpts"
      : "no language model is configured, so the answer quotes the cited excerpts";
  }
  if (metadata.phi_detected) return "the question may carry PHI, so only an in-boundary model may answer it";
  return "the question carries no PHI, so any configured model may answer it";
}

export function warnings(metadata) {
  const list = metadata.warnings || [];
  if (!list.length) return null;
  return el("ul", { class: "warnings", "aria-label": "Warnings" }, list.map((w) => el("li", { text: w })));
}

// The sentences of the answer that cite source n, without their markers.
export function claimsCiting(answer, number) {
  const body = answer.replace(/^Extractive answer \([^)]*\):\s*/, "");
  return body.split(/(?<=[.!?])\s+/).filter((sentence) => sentence.includes(`[${number}]`))
    .map((sentence) => sentence.replace(/\s*\[\d+\]/g, "")).join(" ");
}

// The passage with the sentences the answer relies on marked: those sharing most of their words with the
// claims that cite it (the excerpt stands in for the claims when there are none, e.g. before an answer).
export function highlightedPassage(text, claims) {
  const container = el("div");
  const claimWords = words(claims);
  const sentences = text.replace(/\s+/g, " ").trim().split(/(?<=[.!?])\s+/);
  const overlap = sentences.map((sentence) => {
    const own = words(sentence);
    return own.size ? [...own].filter((w) => claimWords.has(w)).length / own.size : 0;
  });
  const best = Math.max(0, ...overlap);
  sentences.forEach((sentence, i) => {
    if (i) container.append(" ");
    const cited = overlap[i] >= 0.6 || (overlap[i] === best && best >= 0.3);
    container.append(cited ? el("mark", { text: sentence }) : sentence);
  });
  return container;
}

function words(text) {
  return new Set((text.toLowerCase().match(/[a-z0-9][a-z0-9,.-]*[a-z0-9]|[a-z0-9]/g) || [])
    .filter((w) => w.length > 2 || /\d/.test(w)));
}
