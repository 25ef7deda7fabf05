// What tools did for an answer (from the stream's `tool` events): calculator results as cards, and a
// confirmation for an action that waits for the clinician (POST /v1/actions/{id}/confirm or /cancel).
import { el } from "./render.js";

export function toolCards(results) {
  const cards = results.filter((r) => r.ok && r.data && r.data.calculator).map(calculatorCard);
  return cards.length ? el("div", { class: "tool-cards" }, cards) : null;
}

function calculatorCard(result) {
  const data = result.data;
  const used = Object.entries(data.parameters_used || {}).filter(([name]) => name !== "defaults_applied");
  const defaulted = new Set(data.parameters_used?.defaults_applied || []);
  return el("section", { class: "card", "aria-label": `Calculator: ${data.calculator}` },
    el("h4", { text: data.calculator }),
    el("p", { class: "score" }, el("strong", { text: `${formatScore(data.score)} ${data.unit || ""}`.trim() }),
      data.risk_category ? ` · ${data.risk_category}` : ""),
    el("p", { text: data.interpretation }),
    (data.recommendations || []).length ? el("ul", {}, data.recommendations.map((r) => el("li", { text: r }))) : null,
    used.length ? el("details", {}, el("summary", { text: "Parameters used" }),
      el("dl", {}, used.flatMap(([name, value]) => [
        el("dt", { text: name.replace(/_/g, " ") }),
        el("dd", { text: `${formatScore(value)}${defaulted.has(name) ? " (default)" : ""}` })]))) : null,
    data.source ? el("p", { class: "hint", text: `Source: ${data.source}` }) : null);
}

function formatScore(value) {
  if (Array.isArray(value)) return value.join(", ");
  if (value === null || value === undefined) return "—";
  return String(value);
}

// Actions waiting for a yes or no: a button per action that opens the confirmation dialog.
export function pendingActions(results, api, showError) {
  const pending = results.filter((r) => r.pending_action);
  if (!pending.length) return null;
  return el("div", { class: "pending" }, pending.map((r) => {
    const action = r.pending_action;
    const outcome = el("p", { class: "hint", role: "status" });
    const button = el("button", { type: "button", class: "confirm-action",
      onclick: () => decide(action, api, outcome, button).catch(showError) }, `Review: ${action.summary}`);
    return el("div", {}, button, outcome);
  }));
}

async function decide(action, api, outcome, button) {
  const dialog = document.getElementById("confirm");
  document.getElementById("confirm-text").textContent = `${action.summary} Confirm before ` +
    `${new Date(action.expires_at).toLocaleTimeString()}.`;
  dialog.querySelector("button[value=yes]").textContent = "Confirm";
  dialog.returnValue = "";
  dialog.showModal();
  const yes = await new Promise((resolve) =>
    dialog.addEventListener("close", () => resolve(dialog.returnValue === "yes"), { once: true }));
  dialog.querySelector("button[value=yes]").textContent = "Delete";
  const verb = yes ? "confirm" : "cancel";
  const reply = await api.call("POST", `/v1/actions/${encodeURIComponent(action.action_id)}/${verb}`);
  button.disabled = true;
  outcome.textContent = yes ? (reply.content || "Done.") : "Cancelled.";
}
