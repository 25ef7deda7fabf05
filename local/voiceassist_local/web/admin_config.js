// The admin configuration (GET/PUT /v1/admin/config): routing and PHI modes, cost limits and the whole document
// as JSON (models, sources, tools); its versions; and the month's model spend and cost alerts (/v1/admin/billing).
import { el } from "./render.js";

const $ = (id) => document.getElementById(id);
const number = (value) => (value.trim() === "" ? null : Number(value));

export function loadAdminConfig(api, showError) {
  $("config-form").addEventListener("submit", (event) => {
    event.preventDefault();
    save(api).catch((error) => { $("config-status").replaceChildren(`Not saved: ${error.message}`); });
  });
  refresh(api).catch(showError);
}

async function refresh(api) {
  const current = await api.call("GET", "/v1/admin/config");
  show(current);
  const { versions } = await api.call("GET", "/v1/admin/config/history?limit=20");
  $("config-history").replaceChildren(...versions.map((v) => el("li", {
    text: `v${v.version} ${v.version ? `by ${v.updated_by} at ${v.updated_at}: ${v.changed.join(", ") || "no change"}`
      : "(the deployment's settings)"}`,
  })));
  const billing = await api.call("GET", "/v1/admin/billing");
  $("billing-summary").replaceChildren(
    `${billing.month}: ${billing.overall.calls} model calls, $${billing.overall.cost_usd.toFixed(4)}`);
  $("billing-users").tBodies[0].replaceChildren(...Object.entries(billing.users).map(([user, spend]) => el("tr", {},
    el("td", { text: user }), el("td", { text: String(spend.calls) }),
    el("td", { text: String(spend.prompt_tokens + spend.completion_tokens) }),
    el("td", { text: `$${spend.cost_usd.toFixed(4)}` }))));
  $("billing-alerts").replaceChildren(...billing.alerts.map((alert) => el("li", {
    class: "alert", text: `${alert.scope} reached ${Math.round(alert.threshold * 100)}% of $${alert.limit_usd} `
      + `($${alert.spent_usd.toFixed(4)}) at ${alert.at}`,
  })));
}

function show(current) {
  const config = current.config;
  $("config-version").textContent = `Version ${current.version}`;
  $("config-routing").value = config.routing_mode;
  $("config-phi").value = config.phi_mode;
  $("config-limit").value = config.cost.monthly_limit_usd ?? "";
  $("config-user-limit").value = config.cost.per_user_monthly_limit_usd ?? "";
  $("config-json").value = JSON.stringify(config, null, 2);
}

async function save(api) {
  let config;
  try {
    config = JSON.parse($("config-json").value);
  } catch (error) {
    throw new Error(`the JSON is not valid (${error.message})`);
  }
  config.routing_mode = $("config-routing").value;
  config.phi_mode = $("config-phi").value;
  config.cost = { ...config.cost, monthly_limit_usd: number($("config-limit").value),
    per_user_monthly_limit_usd: number($("config-user-limit").value) };
  const saved = await api.call("PUT", "/v1/admin/config", config);
  $("config-status").replaceChildren(`Saved version ${saved.version}: ${saved.changed.join(", ") || "no change"}.`);
  await refresh(api);
}
