// author.js: authoring forms: each writes through the admin API (or,
// for command permissions, through the real permissions endpoint with
// the guild owner's Bearer token), then the pane is shown again.
import { admin, discord } from "./api.js";
import { el, clear, errorBox } from "./dom.js";

// actionForm is a folded form: fields are {name, label, options?
// ([value, text] pairs: a select), placeholder?, value?}; submit gets
// the values and returns a promise; done runs after it succeeded.
export function actionForm(id, title, fields, submit, done) {
  const out = el("div", { class: "form-result" });
  const inputs = fields.map((f) => {
    const fid = `${id}-${f.name}`;
    const input = f.options
      ? el("select", { id: fid, name: f.name }, f.options.map(([v, t]) => el("option", { value: v }, t)))
      : el("input", { id: fid, name: f.name, placeholder: f.placeholder || "", value: f.value || "", autocomplete: "off" });
    return { f, input, box: el("div", {}, el("label", { for: fid }, f.label), input) };
  });
  const form = el("form", { class: "optform", id, onsubmit: async (ev) => {
    ev.preventDefault();
    const values = Object.fromEntries(inputs.map(({ f, input }) => [f.name, input.value.trim()]));
    clear(out);
    try {
      const res = await submit(values);
      clear(out, el("div", { class: "status ok", role: "status" }, typeof res === "string" ? res : "Done."));
      if (done) setTimeout(done, typeof res === "string" ? 4000 : 300);
    } catch (e) {
      clear(out, errorBox(fieldErrors(e)));
    }
  } }, el("div", { class: "row" }, inputs.map((i) => i.box),
    el("button", { type: "submit", class: "primary", id: id + "-submit" }, title)), out);
  return el("details", { class: "author" }, el("summary", {}, title), form);
}

// fieldErrors words an API error with its field errors.
function fieldErrors(e) {
  const lines = [e.message];
  const walk = (node, path) => {
    if (!node || typeof node !== "object") return;
    for (const fe of node._errors || []) lines.push(`${path.join(".")}: ${fe.message}`);
    for (const [k, v] of Object.entries(node)) if (k !== "_errors") walk(v, [...path, k]);
  };
  walk(e.body?.errors, []);
  return lines.join(" — ");
}

// editCommandPermissions sets one overwrite of a guild's command
// permissions through PUT /api/v10/applications/{app}/guilds/{guild}/commands/{cmd}/permissions,
// as the guild owner (a Bearer token minted for the app with
// applications.commands.permissions.update), keeping the other entries.
export async function editCommandPermissions(guild, appID, cmdID, current, entry) {
  const grant = await admin("POST", `/users/${guild.owner_id}/tokens`, { type: "bearer", application_id: appID,
    scopes: "applications.commands.permissions.update" });
  const perms = (current || []).filter((p) => p.id !== entry.id);
  if (entry.permission !== "remove") perms.push({ id: entry.id, type: entry.type, permission: entry.permission === "allow" });
  return discord("PUT", `/applications/${appID}/guilds/${guild.id}/commands/${cmdID}/permissions`,
    "Bearer " + grant.access_token, { permissions: perms });
}
