// The admin panel: upload a document and follow its indexing job; list documents and delete them; the admin
// configuration and the month's spend (admin_config.js).
import { loadAdminConfig } from "./admin_config.js";
import { el } from "./render.js";

const $ = (id) => document.getElementById(id);
const FINAL = new Set(["COMPLETED", "FAILED"]);

export function loadAdmin(api, showError) {
  $("admin").hidden = false;
  $("upload-form").addEventListener("submit", (event) => {
    event.preventDefault();
    upload(api).catch(showError);
  });
  refresh(api, showError).catch(showError);
  loadAdminConfig(api, showError);
}

async function upload(api) {
  const file = $("upload-file").files[0];
  if (!file) return;
  const metadata = { source_type: $("upload-type").value };
  const title = $("upload-title").value.trim();
  if (title) metadata.title = title;
  const status = $("upload-status");
  status.replaceChildren(`Uploading ${file.name}…`);
  // The JSON envelope, not the raw file: the server refuses bodies a browser could send from another site
  // without asking first (text/plain, forms), and a .txt file's own type is text/plain.
  const envelope = { filename: file.name, content_base64: await base64Of(file), metadata };
  const accepted = await api.call("POST", "/v1/documents", envelope);
  const bar = el("progress", { max: "1", value: "0", "aria-label": `Indexing ${file.name}` });
  const label = el("span", { text: "" });
  status.replaceChildren(bar, " ", label);
  let job;
  for (;;) {
    job = await api.call("GET", `/v1/jobs/${encodeURIComponent(accepted.job_id)}`);
    const total = job.chunks_total || 0;
    if (total) {
      bar.max = String(total);
      bar.value = String(job.chunks_done);
    }
    label.textContent = `${file.name}: ${job.state}${total ? ` (${job.chunks_done}/${total} chunks)` : ""}`;
    if (FINAL.has(job.state)) break;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  if (job.state === "FAILED") label.textContent = `${file.name}: FAILED: ${job.reason || "no reason given"}`;
  else if (job.unchanged) label.textContent = `${file.name}: unchanged (already indexed)`;
  $("upload-form").reset();
  await refresh(api, () => {});
}

async function base64Of(file) {
  const bytes = new Uint8Array(await file.arrayBuffer());
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

async function refresh(api, showError) {
  const { documents } = await api.call("GET", "/v1/documents?limit=500");
  const shown = documents.filter((doc) => doc.status !== "DELETED");
  $("documents").tBodies[0].replaceChildren(...shown.map((doc) => el("tr", { "data-doc-id": doc.doc_id },
    el("td", { text: doc.metadata.title }),
    el("td", { text: doc.metadata.source_type.replace("_", " ") }),
    el("td", { text: doc.status }),
    el("td", { text: String(doc.chunk_count) }),
    el("td", {}, el("button", {
      type: "button", class: "delete", "aria-label": `Delete ${doc.metadata.title}`,
      onclick: () => remove(api, doc, showError).catch(showError),
    }, "Delete")))));
}

async function remove(api, doc, showError) {
  if (!(await confirmed(`Delete “${doc.metadata.title}” from search? Answers will no longer cite it.`))) return;
  await api.call("DELETE", `/v1/documents/${encodeURIComponent(doc.doc_id)}`);
  $("upload-status").replaceChildren(`Deleted ${doc.metadata.title}.`);
  await refresh(api, showError);
}

// A modal yes/no (the native <dialog>: focus moves into it, Escape cancels).
function confirmed(question) {
  const dialog = $("confirm");
  $("confirm-text").textContent = question;
  dialog.returnValue = "";
  dialog.showModal();
  return new Promise((resolve) => {
    dialog.addEventListener("close", () => resolve(dialog.returnValue === "yes"), { once: true });
  });
}
