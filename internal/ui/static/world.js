// world.js: the world browser: applications, guilds and users, as the
// admin API shows them, with each command's permissions and the access
// explainer.
import { admin } from "./api.js";
import { el, clear, dl, table, pill, errorBox } from "./dom.js";
import { actionForm, editCommandPermissions } from "./author.js";

// appFlags names the application flags the playground shows.
const appFlags = { 12: "GATEWAY_PRESENCE", 13: "GATEWAY_PRESENCE_LIMITED", 14: "GATEWAY_GUILD_MEMBERS",
  15: "GATEWAY_GUILD_MEMBERS_LIMITED", 17: "EMBEDDED", 18: "GATEWAY_MESSAGE_CONTENT",
  19: "GATEWAY_MESSAGE_CONTENT_LIMITED", 23: "APPLICATION_COMMAND_BADGE" };
const channelTypes = { 0: "text", 1: "DM", 2: "voice", 3: "group DM", 4: "category", 5: "announcement",
  10: "announcement thread", 11: "public thread", 12: "private thread", 13: "stage", 15: "forum", 16: "media" };
const commandTypes = { 1: "slash", 2: "user", 3: "message", 4: "entry point" };
const contexts = { 0: "guild", 1: "bot DM", 2: "private channel" };
const integrationTypes = { 0: "guild install", 1: "user install" };

export function flagNames(flags) {
  const out = [];
  for (let bit = 0; bit < 53; bit++) {
    if (Math.floor(flags / 2 ** bit) % 2 === 1) out.push(appFlags[bit] || `1<<${bit}`);
  }
  return out;
}

export function channelLabel(c) {
  if (c.type === 0 || c.type === 5 || c.type === 15) return "#" + c.name;
  return `${c.name || c.id} (${channelTypes[c.type] || "type " + c.type})`;
}

export function userLabel(u) {
  return u ? (u.global_name || u.username || u.id) : "?";
}

// routeNotes say where an app's interactions go (a is the admin API's
// app): to its interactions endpoint, and then not to its gateway bots,
// with how to switch (an empty endpoint) and a warning when a bot of the
// app is connected to the gateway all the same; or to the gateway, with
// whether a bot is there to get them. switchControl, when given, is shown
// with the way to switch (the World view's button).
export function routeNotes(a, id, switchControl) {
  const n = a.gateway_sessions?.connected || 0;
  const sessions = n === 1 ? "1 session" : `${n} sessions`;
  const url = a.interactions_endpoint_url;
  if (!url) {
    return el("div", { class: "route", id }, "Interactions of ", el("strong", {}, a.name), " go to the gateway: ",
      n ? `its bot is connected (${sessions}) and gets them as INTERACTION_CREATE.`
        : "no bot of this app is connected now, so a command gets \"The application did not respond\" until one identifies.");
  }
  return [
    n ? el("div", { class: "status warn", role: "alert", id: id + "-warning" },
      el("strong", {}, `A bot of ${a.name} is connected to the gateway (${sessions}), but it gets none of this app's interactions`),
      `: they go to ${url}. Clear the endpoint to send them to the bot.`) : null,
    el("div", { class: "route endpoint", id },
      el("div", {}, "Interactions of ", el("strong", {}, a.name), " go to its interactions endpoint ", el("code", {}, url),
        ", not to gateway bots: while an endpoint is set, a bot connected to the gateway (discord.js, discord.py, …) "
        + "gets no INTERACTION_CREATE for this app's commands."),
      el("div", { class: "switch" }, "To receive them on the gateway, set the app's interactions endpoint to \"\" (empty)",
        switchControl ? [": ", switchControl, "."]
          : `: in the World tab, open ${a.name} and press "Send interactions to the gateway".`)),
  ];
}

export async function loadWorld() {
  const [apps, guilds, users, worlds] = await Promise.all([admin("GET", "/applications"), admin("GET", "/guilds"),
    admin("GET", "/users"), admin("GET", "/worlds")]);
  const userByID = new Map(users.map((u) => [u.id, u]));
  const appByID = new Map(apps.map((a) => [a.id, a]));
  return { apps, guilds, users, worlds, userByID, appByID };
}

export async function worldView(root, select) {
  const world = await loadWorld();
  // reload shows the world again after a write, id's pane open.
  world.reload = (id) => {
    clear(root);
    worldView(root, id).catch((e) => clear(root, errorBox(e)));
  };
  const pane = el("section", { class: "pane", id: "world-pane" });
  const side = el("aside", { class: "side", id: "world-side" });
  const items = [];
  const item = (label, id, open) => {
    const b = el("button", { type: "button", class: "item", "data-id": id, title: label, onclick: async () => {
      for (const i of items) i.classList.toggle("active", i === b);
      clear(pane, el("p", { class: "muted" }, "Loading…"));
      try {
        await open(pane, world);
      } catch (e) {
        clear(pane, errorBox(e));
      }
    } }, label);
    items.push(b);
    return b;
  };
  clear(side,
    world.worlds.length ? el("h3", {}, "Test worlds") : null,
    world.worlds.map((tw) => item(tw.name, "world-" + tw.id, (p, w) => showTestWorld(p, w, tw.id))),
    el("h3", {}, "Applications"), world.apps.map((a) => item(a.name, a.id, (p, w) => showApp(p, w, a.id))),
    el("h3", {}, "Guilds"), world.guilds.map((g) => item(g.name, g.id, (p, w) => showGuild(p, w, g.id))),
    el("h3", {}, "Users"), world.users.map((u) => item(userLabel(u) + (u.bot ? " · bot" : ""), u.id,
      (p, w) => showUser(p, w, u.id))),
    el("h3", {}, "Create"), item("+ New user or guild", "new", (p, w) => showCreate(p, w)));
  clear(pane, el("h2", {}, "The world"), el("p", { class: "sub" },
    `${world.apps.length} applications, ${world.guilds.length} guilds, ${world.users.length} users. `
    + "Pick one on the left; the Chat tab uses commands as a member would."));
  root.append(el("div", { class: "layout" }, side, pane));
  const first = items.find((i) => i.dataset.id === select) || items[0];
  if (first) first.click();
}

// handleRows lists a test world's objects by handle.
function handleRows(tw) {
  const rows = [];
  for (const [h, u] of Object.entries(tw.users || {})) rows.push([h, "user", u.id]);
  for (const [h, a] of Object.entries(tw.apps || {})) rows.push([h, "app", a.id]);
  for (const [h, g] of Object.entries(tw.guilds || {})) {
    rows.push([h, "guild", g.id]);
    for (const [r, id] of Object.entries(g.roles || {})) rows.push([`${h} › ${r}`, "role", id]);
    for (const [c, id] of Object.entries(g.channels || {})) rows.push([`${h} › #${c}`, "channel", id]);
  }
  return rows;
}

// showTestWorld shows a test world (docs/worlds.md): its objects by
// handle and its clock, with the buttons that reset it to its spec, move
// its clock and delete it.
async function showTestWorld(pane, world, id) {
  const tw = await admin("GET", `/worlds/${id}`);
  const status = el("div", { class: "status", id: "test-world-status", role: "status" });
  const button = (label, bid, cls, work) => {
    const b = el("button", { type: "button", class: cls, id: bid, onclick: async () => {
      b.disabled = true;
      try {
        await work();
      } catch (e) {
        b.disabled = false;
        clear(status, errorBox(e));
      }
    } }, label);
    return b;
  };
  const offset = tw.clock?.offset_ms || 0;
  clear(pane,
    el("h2", {}, tw.name),
    el("p", { class: "sub" }, "A test world: its objects see no other world's. Reset puts it back to its spec, "
      + "keeping every id and credential, so a connected bot stays connected."),
    dl([
      ["World ID", tw.id],
      ["Made", new Date(tw.created_at).toLocaleString()],
      ["Last reset", el("span", { id: "test-world-reset-at" }, tw.updated_at && tw.updated_at !== tw.created_at
        ? new Date(tw.updated_at).toLocaleString() : "never")],
      ["Clock", offset ? `${Math.round(offset / 60000)} min ahead: ${new Date(tw.clock.now).toLocaleString()}`
        : el("span", { class: "muted" }, "real time")],
    ]),
    el("div", { class: "actions" },
      button("Reset to its spec", "test-world-reset", "", async () => {
        const r = await admin("POST", `/worlds/${id}/reset`);
        world.reload("world-" + r.id);
      }),
      button("Clock +15 min", "test-world-clock", "secondary", async () => {
        await admin("POST", `/worlds/${id}/clock`, { advance: "15m" });
        world.reload("world-" + id);
      }),
      button("Delete", "test-world-delete", "secondary", async () => {
        await admin("DELETE", `/worlds/${id}`);
        world.reload();
      }),
      el("button", { type: "button", class: "primary", id: "test-world-open", onclick: () => {
        location.hash = "testworld/" + id;
      } }, "Journal, sessions and faults")),
    status,
    el("h3", {}, "Objects by handle"),
    table(["Handle", "Kind", "ID"], handleRows(tw), { id: "test-world-objects" }));
}

function showCreate(pane, world) {
  const people = world.users.filter((u) => !u.bot).map((u) => [u.id, userLabel(u)]);
  clear(pane, el("h2", {}, "Create"),
    actionForm("new-user", "Create a user", [{ name: "username", label: "Username", placeholder: "carol" }],
      async (v) => {
        const u = await admin("POST", "/users", { username: v.username });
        world.created = u.id;
      }, () => world.reload(world.created)),
    actionForm("new-guild", "Create a guild", [{ name: "name", label: "Name", placeholder: "test guild" },
      { name: "owner_id", label: "Owner", options: people }],
    async (v) => {
      const g = await admin("POST", "/guilds", v);
      world.created = g.id;
    }, () => world.reload(world.created)));
}

function commandRows(cmds, perms, guildID, world) {
  const byCmd = new Map((perms || []).map((p) => [p.id, p]));
  return cmds.map((c) => {
    const p = byCmd.get(c.id);
    const who = (x) => x.id === guildID ? "@everyone" : x.type === 2 && world?.userByID.get(x.id)
      ? userLabel(world.userByID.get(x.id)) : x.id === String(BigInt(guildID) - 1n) ? "all channels" : x.id;
    const permText = p ? p.permissions.map((x) => `${["", "role", "user", "channel"][x.type]} ${who(x)}: `
      + (x.permission ? "allow" : "deny")).join("; ") : "defaults";
    return [
      el("span", {}, (c.type === 1 ? "/" : "") + c.name),
      commandTypes[c.type] || String(c.type),
      el("span", { class: "muted" }, c.version),
      c.default_member_permissions === null || c.default_member_permissions === undefined ? "everyone"
        : c.default_member_permissions === "0" ? "admins only" : "perms " + c.default_member_permissions,
      (c.contexts || []).map((x) => contexts[x] || x).join(", "),
      permText,
    ];
  });
}

async function showApp(pane, world, id) {
  const [a, oauth, global] = await Promise.all([admin("GET", `/applications/${id}`),
    admin("GET", `/applications/${id}/oauth`), admin("GET", `/applications/${id}/commands`)]);
  const guildCmds = await Promise.all(world.guilds.map(async (g) => {
    const r = await admin("GET", `/applications/${id}/commands?guild_id=${g.id}`);
    return { g, r };
  }));
  const ep = a.interactions_endpoint_url
    ? el("span", {}, a.interactions_endpoint_url, " ", pill("verified", "ok"))
    : el("span", { class: "muted" }, "none (interactions go to the gateway)");
  const flags = flagNames(a.flags || 0);
  const headers = ["Command", "Type", "Version", "Default permission", "Contexts", "Overwrites"];
  const gw = a.gateway_sessions || { connected: 0, resumable: 0 };
  const toGateway = el("button", { type: "button", class: "secondary", id: "app-route-clear", onclick: async () => {
    toGateway.disabled = true;
    try {
      await admin("PUT", `/applications/${id}/interactions-endpoint`, { interactions_endpoint_url: "" });
      world.reload(id);
    } catch (e) {
      toGateway.disabled = false;
      toGateway.after(errorBox(e));
    }
  } }, "Send interactions to the gateway");
  clear(pane,
    el("h2", {}, a.name),
    routeNotes(a, "app-route", a.interactions_endpoint_url ? toGateway : null),
    dl([
      ["Application ID", a.id],
      ["Owner", userLabel(world.userByID.get(a.owner_id)) + ` (${a.owner_id})`],
      ["Interactions endpoint", ep],
      ["Gateway", gw.connected || gw.resumable
        ? `${gw.connected} bot session${gw.connected === 1 ? "" : "s"} connected` + (gw.resumable ? `, ${gw.resumable} resumable` : "")
        : el("span", { class: "muted" }, "no bot connected")],
      ["Public key", el("code", {}, a.public_key)],
      ["Flags", flags.length ? flags.map((f) => pill(f)) : el("span", { class: "muted" }, "none")],
      ["Installs", (a.integration_types || []).map((t) => pill(integrationTypes[t] || t))],
      ["Redirect URIs", (oauth.redirect_uris || []).length ? oauth.redirect_uris.map((u) => el("div", {}, u))
        : el("span", { class: "muted" }, "none")],
      ["OAuth2 client", oauth.public_client ? "public (PKCE)" : "confidential"],
      ["Discoverable", a.discoverable ? "yes" : "no"],
    ]),
    actionForm("app-endpoint", "Set the interactions endpoint", [{ name: "url", label: "URL (empty \"\": the gateway)",
      value: a.interactions_endpoint_url || "", placeholder: "http://127.0.0.1:8090/interactions" }],
    (v) => admin("PUT", `/applications/${id}/interactions-endpoint`, { interactions_endpoint_url: v.url }),
    () => world.reload(id)),
    permissionsForm(world, id, guildCmds),
    el("h3", {}, "Global commands"),
    global.commands.length ? table(headers, commandRows(global.commands, [], ""), { id: "global-commands" })
      : el("p", { class: "muted" }, "No global commands."),
    guildCmds.filter((x) => x.r.commands.length).map(({ g, r }) => [
      el("h3", {}, `Commands in ${g.name}`),
      table(headers, commandRows(r.commands, r.permissions, g.id, world), { class: "guild-commands" }),
    ]),
  );
}

// permissionsForm edits one overwrite of a guild command through the
// real permissions endpoint, as the guild's owner.
function permissionsForm(world, appID, guildCmds) {
  const choices = [];
  for (const { g, r } of guildCmds) {
    for (const c of r.commands) choices.push([`${g.id}/${c.id}`, `${c.type === 1 ? "/" : ""}${c.name} in ${g.name}`]);
  }
  if (!choices.length) return null;
  const targets = [["1:@everyone", "role @everyone"]];
  for (const u of world.users.filter((x) => !x.bot)) targets.push([`2:${u.id}`, "user " + userLabel(u)]);
  return actionForm("app-perms", "Edit a command's permissions", [
    { name: "command", label: "Command", options: choices },
    { name: "target", label: "For", options: targets },
    { name: "permission", label: "Permission", options: [["deny", "deny"], ["allow", "allow"], ["remove", "remove the overwrite"]] },
  ], async (v) => {
    const [guildID, cmdID] = v.command.split("/");
    const { g, r } = guildCmds.find((x) => x.g.id === guildID);
    const guild = await admin("GET", `/guilds/${guildID}`);
    const [type, target] = v.target.split(":");
    const current = r.permissions.find((p) => p.id === cmdID)?.permissions;
    await editCommandPermissions(guild, appID, cmdID, current, { id: target === "@everyone" ? g.id : target,
      type: Number(type), permission: v.permission });
  }, () => world.reload(appID));
}

async function showGuild(pane, world, id) {
  const g = await admin("GET", `/guilds/${id}`);
  const roleByID = new Map(g.roles.map((r) => [r.id, r]));
  const cmds = [];
  for (const inst of g.installations) {
    const [gl, gu] = await Promise.all([admin("GET", `/applications/${inst.application_id}/commands`),
      admin("GET", `/applications/${inst.application_id}/commands?guild_id=${id}`)]);
    for (const c of [...gu.commands, ...gl.commands]) cmds.push(c);
  }
  const memberLabel = (m) => (m.nick ? m.nick + " · " : "") + userLabel(world.userByID.get(m.user_id));
  const explain = el("div", { id: "explain-result" });
  const sel = (id, options) => el("select", { id }, options.map(([v, t]) => el("option", { value: v }, t)));
  const cmdSel = sel("explain-command", cmds.map((c) => [c.id,
    `${c.type === 1 ? "/" : ""}${c.name} · ${world.appByID.get(c.application_id)?.name || c.application_id}${c.guild_id ? "" : " (global)"}`]));
  const memberSel = sel("explain-member", g.members.map((m) => [m.user_id, memberLabel(m)]));
  const chanSel = sel("explain-channel", g.channels.filter((c) => c.type !== 4).map((c) => [c.id, channelLabel(c)]));
  const run = async () => {
    clear(explain);
    try {
      const q = new URLSearchParams({ user_id: memberSel.value, channel_id: chanSel.value });
      const d = await admin("GET", `/guilds/${id}/commands/${cmdSel.value}/access?${q}`);
      clear(explain, el("div", { class: "explain" }, pill(d.allowed ? "can use" : "cannot use", d.allowed ? "ok" : "bad"),
        " ", d.reason, " ", el("span", { class: "muted" }, `(${d.rule})`)));
    } catch (e) {
      clear(explain, errorBox(e));
    }
  };
  clear(pane,
    el("h2", {}, g.name),
    dl([["Guild ID", g.id], ["Owner", userLabel(world.userByID.get(g.owner_id)) + ` (${g.owner_id})`]]),
    el("h3", {}, "Access explainer: why can (or can't) a member use a command here?"),
    cmds.length ? el("div", {},
      el("div", { class: "row" },
        el("div", {}, el("label", { for: "explain-command" }, "Command"), cmdSel),
        el("div", {}, el("label", { for: "explain-member" }, "Member"), memberSel),
        el("div", {}, el("label", { for: "explain-channel" }, "Channel"), chanSel),
        el("button", { type: "button", class: "primary", id: "explain-run", onclick: run }, "Explain")),
      explain) : el("p", { class: "muted" }, "No app with commands is installed here."),
    el("h3", {}, "Change"),
    actionForm("guild-channel", "Add a channel", [{ name: "name", label: "Name", placeholder: "lounge" },
      { name: "type", label: "Type", options: [["0", "text"], ["4", "category"], ["5", "announcement"], ["15", "forum"], ["2", "voice"]] },
      { name: "parent_id", label: "Category", options: [["", "none"], ...g.channels.filter((c) => c.type === 4).map((c) => [c.id, c.name])] }],
    (v) => admin("POST", `/guilds/${id}/channels`, { name: v.name, type: Number(v.type), ...(v.parent_id ? { parent_id: v.parent_id } : {}) }),
    () => world.reload(id)),
    actionForm("guild-role", "Add a role", [{ name: "name", label: "Name", placeholder: "moderators" },
      { name: "permissions", label: "Permissions (bits)", value: "0" }],
    (v) => admin("POST", `/guilds/${id}/roles`, v), () => world.reload(id)),
    actionForm("guild-member", "Add or change a member", [
      { name: "user", label: "User", options: world.users.filter((u) => !u.bot).map((u) => [u.id, userLabel(u)]) },
      { name: "role", label: "Role", options: [["", "no role"], ...g.roles.filter((r) => r.id !== id && !r.managed).map((r) => [r.id, r.name])] }],
    (v) => admin("PUT", `/guilds/${id}/members/${v.user}`, { roles: v.role ? [v.role] : [] }), () => world.reload(id)),
    actionForm("guild-install", "Install an app", [
      { name: "app", label: "App", options: world.apps.map((a) => [a.id, a.name]) },
      { name: "scopes", label: "Scopes", options: [["applications.commands bot", "commands and bot"], ["applications.commands", "commands only"]] }],
    (v) => admin("PUT", `/guilds/${id}/installations/${v.app}`, { scopes: v.scopes.split(" ") }), () => world.reload(id)),
    el("h3", {}, "Roles"),
    table(["Role", "ID", "Permissions", "Position"], g.roles.map((r) => [r.name, el("span", { class: "muted" }, r.id),
      el("code", {}, r.permissions), r.position])),
    el("h3", {}, "Channels"),
    table(["Channel", "Type", "ID", "Parent"], g.channels.map((c) => [channelLabel(c), channelTypes[c.type] || c.type,
      el("span", { class: "muted" }, c.id), c.parent_id ? channelLabel(g.channels.find((p) => p.id === c.parent_id) || { id: c.parent_id, type: -1 }) : ""]),
    { id: "guild-channels" }),
    el("h3", {}, "Members"),
    table(["Member", "ID", "Roles", "Joined"], g.members.map((m) => [memberLabel(m), el("span", { class: "muted" }, m.user_id),
      m.roles.map((r) => pill(roleByID.get(r)?.name || r)), new Date(m.joined_at).toLocaleString()]), { id: "guild-members" }),
    el("h3", {}, "Installations"),
    g.installations.length ? table(["App", "Scopes", "Permissions"], g.installations.map((i) => [
      world.appByID.get(i.application_id)?.name || i.application_id, (i.scopes || []).map((s) => pill(s)),
      i.permissions === null || i.permissions === undefined ? "" : el("code", {}, i.permissions)]))
      : el("p", { class: "muted" }, "No app installed."),
  );
}

async function showUser(pane, world, id) {
  const [u, chans, installs] = await Promise.all([admin("GET", `/users/${id}`), admin("GET", `/users/${id}/channels`),
    admin("GET", `/users/${id}/installations`)]);
  const groups = await Promise.all(chans.filter((c) => c.type === 3).map((c) => admin("GET", `/group-dms/${c.id}`).catch(() => c)));
  const recipients = (c) => (c.recipients || []).map((r) => userLabel(world.userByID.get(r.id) || r)).join(", ");
  clear(pane,
    el("h2", {}, userLabel(u)),
    dl([["User ID", u.id], ["Username", u.username], ["Bot", u.bot ? "yes" : "no"]]),
    u.bot ? null : el("div", {},
      actionForm("user-token", "Mint a client token", [], async () => {
        const t = await admin("POST", `/users/${id}/tokens`, { type: "client" });
        return "Client token (send it bare as Authorization; shown once): " + t.token;
      }),
      actionForm("user-dm", "Open a DM", [{ name: "recipient", label: "With", options: world.users.filter((x) => x.id !== id)
        .map((x) => [x.id, userLabel(x)]) }],
      (v) => admin("POST", `/users/${id}/channels`, { recipient_id: v.recipient }), () => world.reload(id)),
      actionForm("user-install", "Install an app to this account", [{ name: "app", label: "App",
        options: world.apps.map((a) => [a.id, a.name]) }],
      (v) => admin("PUT", `/users/${id}/installations/${v.app}`, { scopes: ["applications.commands"] }), () => world.reload(id))),
    el("h3", {}, "DMs and group DMs"),
    chans.length ? table(["Channel", "Type", "With"], chans.map((c) => [el("span", { class: "muted" }, c.id),
      channelTypes[c.type] || c.type, recipients(groups.find((x) => x.id === c.id) || c)]))
      : el("p", { class: "muted" }, "No DM yet."),
    el("h3", {}, "Apps installed to this account"),
    installs.length ? table(["App", "Scopes"], installs.map((i) => [world.appByID.get(i.application_id)?.name
      || i.application_id, (i.scopes || []).map((s) => pill(s))]))
      : el("p", { class: "muted" }, "No user install."),
  );
}
