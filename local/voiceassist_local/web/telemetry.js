// The admin's telemetry panel: GET /v1/admin/telemetry (the last hour, day or month) and one session's trace
// (GET /v1/admin/sessions/{id}/trace). Both carry names, counts and timings only: no question text but the
// audit's redacted one.
import { el } from "./render.js";

const $ = (id) => document.getElementById(id);
const ms = (value) => (value === null || value === undefined ? "–" : `${Math.round(value * 10) / 10} ms`);

export function loadTelemetry(api, showError) {
  $("telemetry").hidden = false;
  $("telemetry-window").addEventListener("change", () => refresh(api).catch(showError));
  $("telemetry-refresh").addEventListener("click", () => refresh(api).catch(showError));
  $("trace-form").addEventListener("submit", (event) => {
    event.preventDefault();
    trace(api).catch(showError);
  });
  refresh(api).catch(showError);
}

async function refresh(api) {
  const report = await api.call("GET", "/v1/admin/telemetry");
  const window = report.windows.find((w) => w.window === $("telemetry-window").value) || report.windows[0];
  const counts = (object) => Object.entries(object).map(([key, value]) => `${key.replace("_", " ")} ${value}`)
    .join(", ") || "none";
  $("telemetry-summary").replaceChildren(
    el("li", { text: `Questions: ${counts(window.questions)} (p50 ${ms(window.question_p50_ms)}, `
      + `p95 ${ms(window.question_p95_ms)})` }),
    el("li", { text: `PHI routing: ${counts(window.phi_routing)}` }),
    el("li", { text: `Blocked by the input screen: ${counts(window.input_screen_blocks)}; by grounding: `
      + `${counts(window.grounding_blocks)}` }),
    el("li", { text: `Ingestion: ${window.ingestion.completed} completed, ${window.ingestion.failed} failed `
      + `(${counts(window.ingestion.failures)}), ${window.ingestion.chunks} chunks` }));
  rows("telemetry-stages", window.stages.map((s) => el("tr", { class: overBudget(s) ? "over-budget" : "" },
    el("td", { text: s.stage }), el("td", { text: String(s.count) }), el("td", { text: ms(s.p50_ms) }),
    el("td", { text: ms(s.p95_ms) + (overBudget(s) ? " (over budget)" : "") }),
    el("td", { text: ms(s.budget_ms) }))));
  rows("telemetry-tools", window.tools.map((t) => el("tr", {}, el("td", { text: t.tool }),
    el("td", { text: counts(t.calls) }), el("td", { text: ms(t.p95_ms) }))));
  rows("telemetry-models", window.models.map((m) => el("tr", {}, el("td", { text: m.model }),
    el("td", { text: String(m.prompt_tokens) }), el("td", { text: String(m.completion_tokens) }),
    el("td", { text: `$${m.cost_usd.toFixed(4)}` }))));
}

function overBudget(stage) {
  return stage.budget_ms !== null && stage.p95_ms !== null && stage.p95_ms > stage.budget_ms;
}

function rows(tableId, trs) {
  $(tableId).tBodies[0].replaceChildren(...trs);
}

async function trace(api) {
  const sessionId = $("trace-session").value.trim();
  if (!sessionId) return;
  const result = await api.call("GET", `/v1/admin/sessions/${encodeURIComponent(sessionId)}/trace`);
  const steps = (turn) => Object.entries(turn.steps).map(([step, value]) => `${step} ${ms(value)}`).join(", ");
  const tools = (turn) => turn.tools.map((t) => `${t.name} (${t.status}, ${ms(t.latency_ms)})`).join(", ") || "none";
  rows("trace-turns", result.turns.map((turn) => el("tr", {},
    el("td", { text: new Date(turn.at).toLocaleTimeString() }), el("td", { text: turn.question }),
    el("td", { text: `${turn.intent || "–"} → ${turn.outcome}${turn.model ? ` (${turn.model})` : ""}` }),
    el("td", { text: `${steps(turn)}; total ${ms(turn.total_ms)}` }),
    el("td", { text: turn.sources.join(", ") || "none" }), el("td", { text: tools(turn) }))));
  $("trace-note").textContent = result.turns.length ? result.attribution : "No turns in this session yet.";
}
