// testworld.js: one test world at work (docs/worlds.md): a picker with
// its reset button, the bot sessions of its apps, its faults with a form
// to add one, and its journal, live. Everything here is the admin API's:
// GET …/worlds/{world}/sessions, …/faults and …/events (long-polled).
import { admin, adminGet } from "./api.js";
import { el, clear, table, pill, errorBox } from "./dom.js";

// keep is how many journal entries the page holds: older ones leave the
// DOM as new ones come (the journal itself keeps more; the API reads it).
const keep = 300;

// filters are the journal's, as GET …/events takes them (type=).
const filters = [
  ["", "everything"],
  ["failures", "failures only"],
  ["interaction.delivered,interaction.answered,interaction.failed", "interactions"],
  ["rest.request", "REST requests"],
  ["message.created,message.edited,message.deleted", "messages"],
  ["gateway.identify,gateway.resume,gateway.close", "gateway sessions"],
  ["gateway.dispatch", "dispatches"],
  ["rate_limit.hit", "429s given"],
  ["fault.fired", "faults fired"],
];

// faultKinds are docs/faults.md's, with the parameters each takes.
const faultKinds = {
  "rest.429": ["retry_after", "scope"], "rest.500": [], "rest.502": [], "rest.delay": ["delay_ms"],
  "delivery.late": ["delay_ms"], "delivery.drop": [], "delivery.answered": [],
  "gateway.reconnect": [], "gateway.invalid_session": ["resumable"], "gateway.close": ["code"],
  "gateway.withhold_ack": [], "gateway.delay_dispatch": ["event", "delay_ms"],
};

// routes suggested for a REST fault (any route pattern may be typed).
const commonRoutes = [
  "POST /api/v10/interactions/{interaction_id}/{interaction_token}/callback",
  "POST /api/v10/channels/{channel_id}/messages",
  "PATCH /api/v10/webhooks/{application_id}/{interaction_token}/messages/@original",
  "POST /api/v10/webhooks/{application_id}/{interaction_token}",
  "PUT /api/v10/applications/{application_id}/commands",
  "GET /api/v10/users/@me",
];

const time = (iso) => iso ? new Date(iso).toLocaleTimeString() : "";

// failed says whether a journal entry is one of the failures.
function failed(e) {
  return (e.type === "rest.request" && e.status >= 400) || e.type === "interaction.failed"
    || e.type === "rate_limit.hit" || e.type === "journal.dropped";
}

function errorMessage(err) {
  if (!err) return "";
  if (typeof err === "object" && err.message) return err.code ? `${err.code} ${err.message}` : err.message;
  return typeof err === "string" ? err : JSON.stringify(err);
}

// summary says an entry in one line; who names its app (a gateway
// entry names its session only).
function summary(e, who) {
  const app = who(e);
  const by = app ? `${app}: ` : "";
  switch (e.type) {
    case "rest.request":
      return `${by}${e.route || `${e.method} ${e.path}`} → ${e.status} in ${(e.latency_ms ?? 0).toFixed(1)} ms`
        + (e.status >= 400 && e.error ? ` · ${errorMessage(e.error)}` : "");
    case "rate_limit.hit":
      return `${by}429 on ${e.route} (${e.global ? "global" : e.scope}), retry after ${e.retry_after} s`;
    case "fault.fired":
      return `${e.kind} fired` + (app ? ` for ${app}` : "") + (e.detail ? `: ${e.detail}` : "")
        + (e.remaining !== undefined && e.remaining !== null ? ` (${e.remaining} left)` : "");
    case "interaction.delivered": {
      const d = e.payload?.data || {};
      const what = d.name ? "/" + d.name : d.custom_id ? "component " + d.custom_id : "interaction";
      return `${what} delivered to ${app || "its app"} (${e.route})`;
    }
    case "interaction.answered":
      return `answered by ${app || "its app"}: ${e.outcome}, type ${e.response_type}, in ${(e.latency_ms ?? 0).toFixed(1)} ms`;
    case "interaction.failed":
      return `failed (${e.outcome})` + (e.reason ? `: ${e.reason}` : "");
    case "message.created":
    case "message.edited":
      return `${e.type.slice(8)} ${e.message_id}` + (app ? ` by ${app}` : "")
        + (e.message?.content ? `: "${e.message.content}"` : "");
    case "message.deleted":
      return `deleted ${e.message_id}`;
    case "gateway.identify":
      return `${by}session ${e.session_id} identified` + (e.shard ? ` (shard ${e.shard.join("/")})` : "");
    case "gateway.resume":
      return `${by}session ${e.session_id} resumed from seq ${e.seq}`;
    case "gateway.close":
      return `${by}${e.session_id ? `session ${e.session_id}` : "a connection"} closed by the ${e.by} with ${e.code}`;
    case "gateway.dispatch":
      return `${e.event} #${e.seq} to session ${e.session_id}`;
    case "journal.dropped":
      return `${e.count} entries lost (the journal's queue was full)`;
    default:
      return "";
  }
}

function typeKind(e) {
  if (failed(e)) return "bad";
  if (e.type === "fault.fired") return "warn";
  if (e.type === "interaction.answered" || e.type === "gateway.identify" || e.type === "gateway.resume") return "ok";
  return "";
}

// entry is one journal entry: its line, which opens to its JSON.
function entry(e, who) {
  return el("details", { class: "jentry" + (failed(e) ? " failure" : ""), "data-type": e.type, "data-cursor": e.cursor },
    el("summary", {}, el("span", { class: "muted" }, time(e.at)), " ", pill(e.type, typeKind(e)), " ", summary(e, who)),
    el("pre", {}, JSON.stringify(e, null, 2)));
}

export async function testWorldView(root) {
  const worlds = await admin("GET", "/worlds");
  if (!worlds.length) {
    root.append(el("section", { class: "pane" }, el("h2", {}, "Test worlds"),
      el("p", { class: "sub", id: "tw-none" }, "No test world yet. Create one with POST /admin/v1/worlds (docs/worlds.md), "
        + "or start serve with --world FILE; it appears here with its journal, bot sessions and faults.")));
    return () => {};
  }
  const wanted = location.hash.split("/")[1];
  const picker = el("select", { id: "tw-world" }, worlds.map((w) => el("option", { value: w.id }, w.name)));
  picker.value = worlds.some((w) => w.id === wanted || w.name === wanted)
    ? (worlds.find((w) => w.id === wanted) || worlds.find((w) => w.name === wanted)).id : worlds[0].id;
  const body = el("div", { class: "tw-body" });
  const status = el("span", { class: "muted", id: "tw-status", role: "status" });
  const reset = el("button", { type: "button", id: "tw-reset" }, "Reset to its spec");
  root.append(el("div", { class: "tw" },
    el("div", { class: "bar" },
      el("div", {}, el("label", { for: "tw-world" }, "Test world"), picker),
      reset, status),
    body));

  let stopWorld = () => {};
  const open = () => {
    stopWorld();
    history.replaceState(null, "", "#testworld/" + picker.value);
    clear(status);
    const world = worlds.find((w) => w.id === picker.value);
    stopWorld = showWorld(body, world);
  };
  picker.addEventListener("change", open);
  reset.addEventListener("click", async () => {
    reset.disabled = true;
    try {
      const r = await admin("POST", `/worlds/${picker.value}/reset`);
      clear(status, `Reset to its spec at ${new Date(r.updated_at).toLocaleTimeString()}: same ids and credentials.`);
    } catch (e) {
      clear(status, errorBox(e));
    } finally {
      reset.disabled = false;
    }
  });
  open();
  return () => stopWorld();
}

// showWorld fills body with world's sessions, faults and journal; the
// function it returns stops the journal's long-poll and the refreshes.
function showWorld(body, world) {
  const ac = new AbortController();
  const apps = Object.entries(world.apps || {}).map(([handle, a]) => ({ handle, id: a.id }));
  const appName = (id) => apps.find((a) => a.id === id)?.handle || id;
  // Gateway entries name their session: its app is the session's.
  const sessionApp = new Map();
  const who = (e) => e.application_id && e.application_id !== "0" ? appName(e.application_id)
    : sessionApp.get(e.session_id) || "";

  const sessions = el("div", { id: "tw-sessions" }, el("p", { class: "muted" }, "Loading…"));
  const faults = el("div", { id: "tw-faults" }, el("p", { class: "muted" }, "Loading…"));
  const journal = el("div", { id: "tw-journal" });
  const journalState = el("span", { class: "muted", id: "tw-journal-state" });
  const filter = el("select", { id: "tw-filter" }, filters.map(([v, label]) => el("option", { value: v }, label)));
  let sessionList = [];

  const loadSessions = async () => {
    try {
      sessionList = await adminGet(`/worlds/${world.id}/sessions`, ac.signal);
      for (const x of sessionList) sessionApp.set(x.session_id, x.app);
      clear(sessions, sessionList.length
        ? table(["Session", "App", "Shard", "Identified", "State"], sessionList.map((s) => [
          el("code", {}, s.session_id), s.app, s.shard.join("/"), time(s.identified_at),
          s.state === "connected" ? pill("connected", "ok")
            : [pill("resumable", "warn"), el("span", { class: "muted" }, ` since ${time(s.disconnected_at)}`)]]),
        { id: "tw-sessions-table" })
        : el("p", { class: "muted" }, "No bot of this world is on the gateway."));
      sessionField.refresh();
    } catch (e) {
      if (!ac.signal.aborted) clear(sessions, errorBox(e));
    }
  };

  const loadFaults = async () => {
    try {
      const list = await adminGet(`/worlds/${world.id}/faults`, ac.signal);
      clear(faults, list.length ? table(["Kind", "Target", "Left", "Fired", ""], list.map((f) => [
        el("span", {}, f.kind, f.params && Object.keys(f.params).length
          ? el("div", { class: "muted" }, Object.entries(f.params).map(([k, v]) => `${k} ${typeof v === "object" ? JSON.stringify(v) : v}`).join(", ")) : null),
        [f.app_id ? appName(f.app_id) : "any app", f.route ? el("div", {}, el("code", {}, f.route)) : null,
          f.session ? el("div", {}, "session ", el("code", {}, f.session)) : null],
        f.probability ? `p ${f.probability}, seed ${f.seed ?? 0}` + (f.remaining !== undefined ? `, ${f.remaining} left` : "")
          : f.remaining === 0 ? pill("spent") : `${f.remaining} of ${f.count}`,
        String(f.fired),
        el("button", { type: "button", class: "secondary small", "data-fault": f.id, onclick: async (ev) => {
          ev.target.disabled = true;
          try {
            await admin("DELETE", `/worlds/${world.id}/faults/${f.id}`);
          } catch (e) {
            faults.prepend(errorBox(e));
          }
          loadFaults();
        } }, "Delete"),
      ]), { id: "tw-faults-table" }) : el("p", { class: "muted" }, "No fault: slashd behaves."));
    } catch (e) {
      if (!ac.signal.aborted) clear(faults, errorBox(e));
    }
  };

  const sessionField = sessionSelect(() => sessionList);
  const form = faultForm(world, apps, sessionField, loadFaults);

  // The journal: read from the oldest entry kept, then long-polled;
  // a new filter starts again.
  let gen = 0;
  let polling = null; // the current follow's AbortController
  const follow = async () => {
    const mine = ++gen;
    polling?.abort();
    const poll = new AbortController();
    polling = poll;
    ac.signal.addEventListener("abort", () => poll.abort());
    clear(journal, el("p", { class: "muted", id: "tw-journal-empty" }, "Nothing yet."));
    let after = "";
    let shown = 0;
    while (mine === gen && !poll.signal.aborted) {
      const q = new URLSearchParams({ limit: "500" });
      if (after) q.set("after", after);
      if (filter.value) q.set("type", filter.value);
      let caughtUp = false;
      if (after) {
        q.set("wait", "25s");
        caughtUp = true;
      }
      clear(journalState, caughtUp ? "live" : "reading…");
      journalState.dataset.state = caughtUp ? "live" : "reading";
      let page;
      try {
        page = await adminGet(`/worlds/${world.id}/events?${q}`, poll.signal);
      } catch (e) {
        if (poll.signal.aborted || mine !== gen) return;
        clear(journalState, errorBox(e));
        await new Promise((res) => setTimeout(res, 2000));
        continue;
      }
      if (mine !== gen) return;
      after = page.cursor || after;
      if (!page.events.length) {
        if (!after) after = "0";
        continue;
      }
      if (!shown) clear(journal);
      let sessionsChanged = false;
      let faultsChanged = false;
      for (const e of page.events) {
        journal.prepend(entry(e, who));
        shown++;
        sessionsChanged ||= e.type.startsWith("gateway.") && e.type !== "gateway.dispatch";
        faultsChanged ||= e.type === "fault.fired";
      }
      while (journal.childElementCount > keep) journal.lastElementChild.remove();
      if (sessionsChanged) loadSessions();
      if (faultsChanged) loadFaults();
    }
  };
  filter.addEventListener("change", follow);

  clear(body, el("div", { class: "tw-layout" },
    el("div", { class: "tw-side" },
      el("h3", {}, "Bot sessions"), sessions,
      el("h3", {}, "Faults"), faults, form),
    el("div", { class: "tw-main" },
      el("div", { class: "row" },
        el("div", {}, el("h3", {}, "Journal ", journalState)),
        el("div", {}, el("label", { for: "tw-filter" }, "Show"), filter)),
      el("p", { class: "muted" }, `The newest first; the last ${keep} entries are kept here. Open one for its JSON.`),
      journal)));

  loadSessions();
  loadFaults();
  follow();
  // A session's resume window ends without a journal entry: look again now and then.
  const tick = setInterval(loadSessions, 10000);
  return () => {
    gen++;
    ac.abort();
    clearInterval(tick);
  };
}

// sessionSelect is the fault form's session choice: any, or one of the
// sessions listed.
function sessionSelect(list) {
  const s = el("select", { id: "tw-fault-session", name: "session" });
  s.refresh = () => {
    const cur = s.value;
    clear(s, el("option", { value: "" }, "any session"),
      list().map((x) => el("option", { value: x.session_id }, `${x.session_id} (${x.app})`)));
    s.value = [...s.options].some((o) => o.value === cur) ? cur : "";
  };
  s.refresh();
  return s;
}

// faultForm adds a fault: its kind, target, how often and its kind's
// parameters (the fields of other kinds are hidden and not sent: the API
// refuses them).
function faultForm(world, apps, sessionField, added) {
  const field = (name, label, input) => el("div", { class: "ff", "data-field": name },
    el("label", { for: "tw-fault-" + name }, label), input);
  const input = (name, attrs = {}) => el("input", { id: "tw-fault-" + name, name, ...attrs });
  const kind = el("select", { id: "tw-fault-kind", name: "kind" }, Object.keys(faultKinds).map((k) => el("option", { value: k }, k)));
  const app = el("select", { id: "tw-fault-app", name: "app" }, el("option", { value: "" }, "any app of the world"),
    apps.map((a) => el("option", { value: a.handle }, a.handle)));
  const routes = el("datalist", { id: "tw-fault-routes" }, commonRoutes.map((r) => el("option", { value: r })));
  const fields = {
    app: field("app", "App", app),
    route: field("route", "Route (any when empty)", [input("route", { placeholder: "POST /api/v10/channels/{channel_id}/messages" }), routes]),
    session: field("session", "Session", sessionField),
    count: field("count", "Count", input("count", { type: "number", min: "1", value: "1" })),
    probability: field("probability", "Or probability (0–1]", input("probability", { placeholder: "e.g. 0.5" })),
    seed: field("seed", "Seed", input("seed", { type: "number", value: "0" })),
    retry_after: field("retry_after", "Retry after (s)", input("retry_after", { value: "1" })),
    scope: field("scope", "Scope", el("select", { id: "tw-fault-scope", name: "scope" },
      ["route", "global", "shared"].map((v) => el("option", { value: v }, v)))),
    delay_ms: field("delay_ms", "Delay (ms)", input("delay_ms", { type: "number", value: "1000" })),
    code: field("code", "Close code", input("code", { type: "number", value: "4000" })),
    resumable: field("resumable", "Resumable", el("select", { id: "tw-fault-resumable", name: "resumable" },
      el("option", { value: "false" }, "no"), el("option", { value: "true" }, "yes"))),
    event: field("event", "Dispatch type", input("event", { placeholder: "INTERACTION_CREATE" })),
  };
  fields.route.querySelector("input").setAttribute("list", "tw-fault-routes");
  const shown = () => {
    const k = kind.value;
    const edge = k.split(".")[0];
    const on = new Set(["app", "count", "probability", "seed", ...faultKinds[k]]);
    if (edge === "rest") on.add("route");
    if (edge === "gateway") on.add("session");
    for (const [name, f] of Object.entries(fields)) f.hidden = !on.has(name);
    return on;
  };
  kind.addEventListener("change", shown);
  shown();
  const status = el("div", { id: "tw-fault-status" });
  const submit = el("button", { type: "submit", class: "primary", id: "tw-fault-add" }, "Add the fault");
  const form = el("form", { class: "optform", id: "tw-fault-form", onsubmit: async (ev) => {
    ev.preventDefault();
    const on = shown();
    const value = (name) => fields[name].querySelector("input, select").value.trim();
    const body = { kind: kind.value };
    for (const name of on) {
      const v = value(name);
      if (v === "") continue;
      if (name === "count" && value("probability") !== "") continue;
      if (name === "seed" && value("probability") === "") continue;
      if (["count", "seed", "delay_ms", "code"].includes(name)) body[name] = Number(v);
      else if (["probability", "retry_after"].includes(name)) body[name] = Number(v);
      else if (name === "resumable") body[name] = v === "true";
      else body[name] = v;
    }
    submit.disabled = true;
    clear(status);
    try {
      const f = await admin("POST", `/worlds/${world.id}/faults`, body);
      clear(status, el("div", { class: "status ok" }, `Added ${f.kind} (${f.id}).`));
      added();
    } catch (e) {
      const fieldErrors = e.body?.errors ? Object.entries(e.body.errors).map(([k, v]) =>
        `${k}: ${(v._errors || []).map((x) => x.message).join(" ")}`) : [];
      clear(status, errorBox(fieldErrors.length ? `${e.message}: ${fieldErrors.join("; ")}` : e));
    } finally {
      submit.disabled = false;
    }
  } },
  el("h3", {}, "Add a fault"),
  el("div", { class: "ff" }, el("label", { for: "tw-fault-kind" }, "Kind"), kind),
  el("div", { class: "fgrid" }, Object.values(fields)),
  el("div", { class: "actions" }, submit),
  status);
  return form;
}
