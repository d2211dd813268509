// log.js: the interaction log: every interaction delivered by this
// node (whatever sent it: the playground, an API client, a test), with
// the payload as delivered, the route, the latency and the answer.
import { el, clear, pill, table, dl, errorBox } from "./dom.js";
import { loadWorld, channelLabel, userLabel } from "./world.js";
import { refusalWhat, refusalDetail } from "./refusal.js";

const types = { 2: "command", 3: "component", 4: "autocomplete", 5: "modal submit" };

async function fetchLog(app, guild) {
  const q = new URLSearchParams();
  if (app) q.set("application_id", app);
  if (guild) q.set("guild_id", guild);
  const r = await fetch("/ui/interactions?" + q, { credentials: "same-origin" });
  if (r.status === 401) location.assign("/");
  if (!r.ok) throw new Error(`HTTP ${r.status}`);
  return r.json();
}

function what(e) {
  const d = e.payload?.data || {};
  if (e.type === 2 || e.type === 4) return "/" + [d.name, ...(d.options || []).filter((o) => o.type === 1 || o.type === 2)
    .map((o) => o.name)].join(" ") + (e.type === 4 ? " · autocomplete" : "");
  if (e.type === 3) return "component " + (d.custom_id || "");
  if (e.type === 5) return "modal " + (d.custom_id || "");
  return "";
}

// curl is a command that invokes the same interaction again as its
// user, through POST /api/v10/interactions (commands, autocomplete and
// components; a modal submission needs its modal's live interaction).
export function curl(e) {
  const p = e.payload || {};
  const d = p.data || {};
  let data;
  if ((e.type === 2 || e.type === 4) && e.command_version) {
    data = { id: d.id, name: d.name, type: d.type, version: e.command_version };
    if (d.options) data.options = d.options;
    if (d.target_id) data.target_id = d.target_id;
  } else if (e.type === 3) {
    data = { component_type: d.component_type, custom_id: d.custom_id };
    if (d.values) data.values = d.values;
  } else {
    return null;
  }
  const body = { type: e.type, application_id: e.application_id, channel_id: e.channel_id, data };
  if (e.type === 3) body.message_id = p.message?.id;
  const quoted = "'" + JSON.stringify(body).replaceAll("'", "'\\''") + "'";
  return `# CLIENT_TOKEN: the user's client token (POST /admin/v1/users/${e.user_id}/tokens {"type":"client"})\n`
    + `curl -X POST '${location.origin}/api/v10/interactions' \\\n`
    + `  -H "Authorization: $CLIENT_TOKEN" -H 'Content-Type: application/json' \\\n  -d ${quoted}`;
}

export async function logView(root) {
  const world = await loadWorld();
  const appSel = el("select", { id: "log-app" }, el("option", { value: "" }, "All apps"),
    world.apps.map((a) => el("option", { value: a.id }, a.name)));
  const guildSel = el("select", { id: "log-guild" }, el("option", { value: "" }, "All guilds"),
    world.guilds.map((g) => el("option", { value: g.id }, g.name)));
  const list = el("div", { id: "log-list" });
  const detail = el("div", { id: "log-detail" });
  let entries = [];
  let selected = "";

  const show = (e) => {
    selected = e.interaction_id;
    const app = world.appByID.get(e.application_id);
    clear(detail,
      el("h2", {}, `${what(e)}`, " ", pill(types[e.type] || String(e.type), "accent")),
      dl([
        ["Interaction", e.interaction_id],
        ["When", new Date(e.at).toLocaleString()],
        ["App", app ? app.name : e.application_id],
        ["User", userLabel(world.userByID.get(e.user_id)) + ` (${e.user_id})`],
        ["Route", e.route === "endpoint" ? `endpoint ${e.endpoint}`
          : e.route === "gateway" ? "gateway (INTERACTION_CREATE)" : "slashd itself"],
        ["Status", e.status ? String(e.status) : "—"],
        ["Outcome", pill(e.outcome, e.outcome === "answered" || e.outcome === "deferred" ? "ok" : "bad")],
        ["Latency", `${e.latency_ms.toFixed(1)} ms`],
        e.signature_headers ? ["Signed with", el("div", { id: "log-signature" },
          Object.entries(e.signature_headers).map(([k, v]) => el("div", {}, el("code", {}, `${k}: ${v}`))))] : null,
        e.reason ? ["Why", [e.reason, (e.refusals || []).length ? el("span", { class: "muted" },
          ` · the app's ${e.refusals.length === 1 ? "request was" : "requests were"} refused: see below`) : null]] : null,
      ].filter(Boolean)),
      el("h3", {}, "Payload as delivered"),
      el("pre", { id: "log-payload" }, JSON.stringify(e.payload, null, 2)),
      el("h3", {}, "Answer"),
      el("pre", { id: "log-answer" }, e.answer ? JSON.stringify(e.answer, null, 2) : "(none)"),
      (e.refusals || []).length ? [el("h3", {}, "Refused: the app's requests for it"),
        el("div", { id: "log-refusals" }, e.refusals.map((r) => el("div", { class: "refusal-entry", "data-refusal-id": r.id },
          el("div", {}, pill(refusalWhat(r), "bad"), " ", el("span", { class: "muted" }, new Date(r.at).toLocaleTimeString())),
          refusalDetail(r))))] : null,
      el("h3", {}, "Then: follow-ups and edits"),
      (e.later || []).length ? el("div", { id: "log-later" }, e.later.map((m) => el("div", { class: "later" },
        el("div", {}, pill(m.event, m.event === "delete" ? "bad" : "accent"), " ",
          m.message?.content ? el("span", {}, m.message.content, " ") : null,
          el("span", { class: "muted" }, `message ${m.message_id} · ${new Date(m.at).toLocaleTimeString()}`)),
        m.message ? el("pre", {}, JSON.stringify(m.message, null, 2)) : null)))
        : el("p", { class: "muted", id: "log-later" }, "None yet: the app's follow-ups and edits of its answer appear here as they happen."),
      el("h3", {}, "Invoke it again"),
      curl(e) ? el("pre", { id: "log-curl" }, curl(e)) : el("p", { class: "muted" },
        "A modal submission answers its modal: it cannot be sent again."),
      el("div", { class: "buttons" },
        curl(e) ? el("button", { type: "button", class: "primary", onclick: () => navigator.clipboard?.writeText(curl(e)) },
          "Copy as curl") : null,
        el("button", { type: "button", class: "secondary", onclick: () =>
          navigator.clipboard?.writeText(JSON.stringify(e.payload, null, 2)) }, "Copy payload")));
    for (const r of list.querySelectorAll("tr[data-id]")) r.classList.toggle("active", r.dataset.id === selected);
  };

  const render = () => {
    if (!entries.length) {
      clear(list, el("p", { class: "muted" }, "No interaction yet: use a command in the Chat tab, or through the API."));
      return;
    }
    const t = table(["When", "What", "App", "Where", "Route", "Outcome", "ms"], []);
    const body = t.querySelector("tbody");
    for (const e of entries) {
      const g = e.guild_id ? world.guilds.find((x) => x.id === e.guild_id)?.name || e.guild_id : "DM";
      const tr = el("tr", { "data-id": e.interaction_id, class: "clickable", onclick: () => show(e) },
        [new Date(e.at).toLocaleTimeString(), what(e), world.appByID.get(e.application_id)?.name || e.application_id, g,
          e.route, [pill(e.outcome, e.outcome === "answered" || e.outcome === "deferred" ? "ok" : "bad"),
            (e.later || []).length ? pill(`+${e.later.length} later`) : null,
            (e.refusals || []).length ? pill(`${e.refusals.length} refused`, "bad") : null],
          e.latency_ms.toFixed(1)].map((c) => el("td", {}, c)));
      body.append(tr);
    }
    clear(list, t);
  };

  // Live: a server-sent event stream of new and completed entries
  // (internal/ui/live.go); on each "ready" and "resync" the log is read
  // once, so a reconnection misses nothing.
  let es = null;
  const load = async () => {
    try {
      entries = await fetchLog(appSel.value, guildSel.value);
      render();
      // #log/ID (the chat's link to a refused request's interaction)
      // selects that entry.
      const wanted = location.hash.match(/^#log\/(\d+)$/)?.[1];
      if (wanted && !selected) selected = wanted;
      const cur = entries.find((x) => x.interaction_id === selected);
      if (cur) show(cur);
    } catch (e) {
      clear(list, errorBox(e));
    }
  };
  const connect = () => {
    if (es) es.close();
    const q = new URLSearchParams();
    if (appSel.value) q.set("application_id", appSel.value);
    if (guildSel.value) q.set("guild_id", guildSel.value);
    const mine = new EventSource("/ui/live/log?" + q);
    es = mine;
    mine.addEventListener("ready", () => es === mine && load());
    mine.addEventListener("resync", () => es === mine && load());
    mine.addEventListener("entry", (ev) => {
      if (es !== mine) return;
      const e = JSON.parse(ev.data);
      const i = entries.findIndex((x) => x.interaction_id === e.interaction_id);
      if (i >= 0) entries[i] = e;
      else entries.unshift(e);
      entries.length = Math.min(entries.length, 200);
      render();
      if (e.interaction_id === selected) show(e);
    });
  };
  appSel.addEventListener("change", connect);
  guildSel.addEventListener("change", connect);

  root.append(el("div", { class: "layout log" },
    el("aside", { class: "side" }, el("h3", {}, "Filter"),
      el("label", { for: "log-app" }, "App"), appSel, el("label", { for: "log-guild" }, "Guild"), guildSel,
      el("p", { class: "muted" }, "The last 200 interactions this node delivered, newest first (kept in memory).")),
    el("section", { class: "pane" }, list, detail)));
  connect();
  return () => { if (es) es.close(); es = null; };
}
