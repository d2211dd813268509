// refusal.js: an app's refused request (internal/ui/refusals.go), as
// the chat and the interaction log show it: what the app tried, the
// status, and each field error of the error body with its path
// (components.0.components.1.custom_id), then the body itself.
import { el, pill } from "./dom.js";

// what names the request the app made, from its route.
export function refusalWhat(r) {
  const route = r.route || "";
  if (route === "inline answer") return "inline answer (the endpoint's HTTP response)";
  if (route.endsWith("/callback")) return "answer (interaction callback)";
  if (route.includes("/webhooks/") && r.method === "POST") return "follow-up";
  if (route.includes("/webhooks/") && r.method === "PATCH") {
    return (r.path || "").endsWith("/@original") ? "edit of its answer" : "edit of a follow-up";
  }
  if (route.includes("/channels/") && r.method === "POST") return "channel message";
  if (route.includes("/channels/") && r.method === "PATCH") return "channel message edit";
  return "request";
}

// fieldErrors flattens an error body's "errors" tree: one
// {path, code, message} per leaf of _errors.
export function fieldErrors(body) {
  const out = [];
  const walk = (node, path) => {
    if (!node || typeof node !== "object") return;
    if (Array.isArray(node._errors)) {
      for (const fe of node._errors) out.push({ path: path.join("."), code: fe.code || "", message: fe.message || "" });
    }
    for (const [k, v] of Object.entries(node)) if (k !== "_errors") walk(v, [...path, k]);
  };
  walk(body?.errors, []);
  return out;
}

// refusalDetail is the refusal's request, status, message and field
// errors, then the error body (folded).
export function refusalDetail(r) {
  const body = r.error;
  const msg = body && typeof body === "object" ? body.message : typeof body === "string" ? body : "";
  const code = body && typeof body === "object" && body.code !== undefined ? ` (${body.code})` : "";
  const fields = fieldErrors(body);
  return [
    el("div", { class: "refusal-req" },
      r.method ? el("code", {}, `${r.method} ${r.path}`) : el("code", {}, r.path || ""), " → ",
      pill(String(r.status), "bad"), " ", el("strong", { class: "refusal-msg" }, (msg || "") + code)),
    fields.length ? el("ul", { class: "refusal-fields" }, fields.map((f) => el("li", {},
      el("code", { class: "field-path" }, f.path || "(body)"), " ", el("span", {}, f.message),
      f.code ? el("span", { class: "muted" }, " · " + f.code) : null))) : null,
    el("details", { class: "refusal-body" }, el("summary", {}, "Error body"),
      el("pre", {}, JSON.stringify(body, null, 2))),
  ];
}

// invoked says what the member did, as a message's interaction line
// does.
function invoked(r, who) {
  switch (r.interaction_type) {
    case 2: return `${who} used ${r.command_type === 1 ? "/" : ""}${r.name || "a command"}`;
    case 3: return `${who} used a button or menu`;
    case 4: return `${who} typed an option (autocomplete)`;
    case 5: return `${who} submitted a form`;
    default: return "";
  }
}

// refusalCard is a refusal in the chat: marked as the playground's, with
// what the member invoked (who: the member's name) and a link to its
// interaction in the log.
export function refusalCard(r, appName, who) {
  const via = r.interaction_id ? invoked(r, who) : "";
  return el("div", { class: "msg refusal", "data-refusal-id": r.id },
    via ? el("div", { class: "via" }, "↳ " + via) : null,
    el("div", { class: "head" }, el("span", { class: "author" }, appName), pill("REFUSED", "bad"), " ",
      el("span", { class: "meta" }, new Date(r.at).toLocaleTimeString())),
    el("div", { class: "refusal-title" }, `The app's ${refusalWhat(r)} was refused`),
    refusalDetail(r),
    el("div", { class: "eph" }, "Shown by the playground to the bot’s developer: members are not told why",
      r.interaction_id ? [" · ", el("a", { href: "#log/" + r.interaction_id, class: "log-link" }, "interaction " + r.interaction_id + " in the log")] : null));
}
