// chat.js: a guild channel, DM or group DM seen as a chosen user, and
// the composer with the command picker. Everything goes through the
// public API with the user's client token (minted through the admin
// API), as a chat client would: the messages, the command index,
// POST /interactions for commands, autocomplete, components and modals.
// Messages arrive live, over server-sent events (see docs/design.md).
import { admin, discord, clientToken, liveTicket, APIError } from "./api.js";
import { el, clear, pill, errorBox } from "./dom.js";
import { loadWorld, channelLabel, userLabel, routeNotes } from "./world.js";
import { refusalCard } from "./refusal.js";

const EPHEMERAL = 64;
const LOADING = 128;
const optionTypes = { 3: "text", 4: "integer", 5: "true/false", 6: "user", 7: "channel", 8: "role", 9: "user or role",
  10: "number", 11: "attachment" };
const buttonStyles = { 1: "primary", 2: "secondary", 3: "success", 4: "danger", 6: "primary" };

// snowflake order.
const cmpID = (a, b) => (BigInt(a) < BigInt(b) ? -1 : BigInt(a) > BigInt(b) ? 1 : 0);

export async function chatView(root) {
  const world = await loadWorld();
  const st = {
    place: "", channel: "", user: "", token: "", guild: null, dms: [], index: null, indexKey: "",
    hidden: [], messages: [], refusals: new Map(), openBodies: new Set(), ephemeral: new Map(), es: null, timer: 0, delay: 1000, stopped: false, command: null,
  };
  const placeSel = el("select", { id: "chat-place" });
  const chanSel = el("select", { id: "chat-channel" });
  const userSel = el("select", { id: "chat-user" });
  const list = el("div", { class: "messages", id: "messages" });
  const status = el("div", { id: "composer-status" });
  const route = el("div", { id: "chat-route" }); // where the last invocation's app gets its interactions
  const form = el("div", { id: "optform" });
  const picker = el("div", { class: "picker", id: "picker", hidden: true });
  const input = el("input", { class: "line", id: "composer-input", autocomplete: "off",
    placeholder: "Type / to use a command" });
  const modalRoot = el("div", { id: "modal-root" });
  root.append(el("div", { class: "chat" },
    el("div", { class: "bar" },
      el("div", {}, el("label", { for: "chat-place" }, "Where"), placeSel),
      el("div", {}, el("label", { for: "chat-channel" }, "Channel"), chanSel),
      el("div", {}, el("label", { for: "chat-user" }, "As"), userSel),
      el("span", { class: "muted", id: "chat-live" }, "")),
    list,
    el("div", { class: "composer" }, picker, route, status, form, input)), modalRoot);

  const say = (what, kind = "") => clear(status, what ? el("div", { class: "status " + kind, role: kind === "error" ? "alert" : "status" }, what) : null);
  const fail = (e) => {
    const lines = e instanceof APIError ? apiErrorLines(e, st.command) : [String(e)];
    clear(status, el("div", { class: "status error", role: "alert", id: "composer-error" }, lines.map((l) => el("div", {}, l))));
  };

  // Places: every guild, then the users' DMs.
  for (const g of world.guilds) placeSel.append(el("option", { value: g.id }, g.name));
  placeSel.append(el("option", { value: "@me" }, "Direct messages"));

  // Every choice of place or user starts a new selection; an answer that
  // arrives for an older one (the requests may finish out of order) is
  // dropped, so the newest choice always wins.
  let selection = 0;

  async function loadPlace() {
    const mine = ++selection;
    st.place = placeSel.value;
    if (st.place === "@me") {
      st.guild = null;
      fillUsers(world.users.filter((u) => !u.bot).map((u) => [u.id, userLabel(u)]));
      if (!(await loadDMs(mine))) return;
    } else {
      const g = await admin("GET", `/guilds/${st.place}`);
      if (mine !== selection) return;
      st.guild = g;
      const owner = st.guild.owner_id;
      fillUsers(st.guild.members.filter((m) => !world.userByID.get(m.user_id)?.bot)
        .sort((a, b) => (a.user_id === owner ? -1 : b.user_id === owner ? 1 : 0))
        .map((m) => [m.user_id, (m.nick ? m.nick + " · " : "") + userLabel(world.userByID.get(m.user_id))]));
      clear(chanSel, st.guild.channels.filter((c) => [0, 5, 10, 11, 12].includes(c.type))
        .map((c) => el("option", { value: c.id }, channelLabel(c))));
    }
    await pick(mine);
  }

  function fillUsers(opts) {
    const keep = userSel.value;
    clear(userSel, opts.map(([v, t]) => el("option", { value: v }, t)));
    if (opts.some(([v]) => v === keep)) userSel.value = keep;
  }

  // loadDMs lists the chosen user's DMs; false when a newer selection
  // replaced this one while the list was on its way.
  async function loadDMs(mine) {
    const chans = await admin("GET", `/users/${userSel.value}/channels`);
    if (mine !== selection) return false;
    st.dms = chans;
    clear(chanSel, chans.map((c) => el("option", { value: c.id }, (c.type === 3 ? "group: " : "DM: ")
      + ((c.recipients || []).map((r) => userLabel(world.userByID.get(r.id) || r)).join(", ") || c.id))));
    if (!chans.length) chanSel.append(el("option", { value: "" }, "(no DM: open one in the admin API)"));
    return true;
  }

  // pick shows the chosen channel as the chosen user (mine: the selection
  // it belongs to; a channel change is a selection of its own).
  async function pick(mine = ++selection) {
    st.channel = chanSel.value;
    st.user = userSel.value;
    st.index = null;
    closeLive();
    st.messages = [];
    st.refusals = new Map();
    clear(list);
    clear(form);
    clear(route);
    st.command = null;
    say("");
    if (!st.channel || !st.user) return;
    let token;
    try {
      token = await clientToken(st.user);
    } catch (e) {
      if (mine === selection) fail(e);
      return;
    }
    if (mine !== selection) return;
    st.token = token;
    await connectLive(mine);
  }

  placeSel.addEventListener("change", () => loadPlace().catch(fail));
  chanSel.addEventListener("change", () => pick().catch(fail));
  userSel.addEventListener("change", async () => {
    const mine = ++selection;
    try {
      if (st.place === "@me" && !(await loadDMs(mine))) return;
      await pick(mine);
    } catch (e) {
      fail(e);
    }
  });

  // Live updates: a server-sent event stream of the channel as the
  // member sees it (internal/ui/live.go). On each "ready" (the first and
  // every reconnection) and "resync" (the stream fell behind) the
  // messages are read once, so nothing is missed; in between, events
  // carry each change.
  function live(text, state) {
    const e = document.getElementById("chat-live");
    e.textContent = text;
    e.dataset.state = state;
  }
  function closeLive() {
    clearTimeout(st.timer);
    if (st.es) st.es.close();
    st.es = null;
  }
  async function connectLive(mine) {
    closeLive();
    const channel = st.channel;
    let ticket;
    try {
      ticket = await liveTicket(st.token, channel, st.user);
    } catch (e) {
      if (mine !== selection || st.stopped) return;
      if (e instanceof APIError && e.status !== 429 && e.status < 500) {
        fail(e);
        live("", "closed");
        return;
      }
      retryLive(mine);
      return;
    }
    if (mine !== selection || st.stopped) return;
    const es = new EventSource("/ui/live/chat?ticket=" + encodeURIComponent(ticket));
    st.es = es;
    const mineNow = () => st.es === es;
    es.addEventListener("ready", () => {
      if (!mineNow()) return;
      st.delay = 1000;
      live("live", "open");
      refresh(channel);
    });
    es.addEventListener("resync", () => mineNow() && refresh(channel));
    for (const kind of ["message_create", "message_update"]) {
      es.addEventListener(kind, (ev) => mineNow() && upsert(JSON.parse(ev.data)));
    }
    // The app's refused requests (its answer, follow-ups, edits): the
    // server sends those it keeps after each ready and resync.
    es.addEventListener("refusal", (ev) => {
      if (!mineNow()) return;
      const r = JSON.parse(ev.data);
      if (r.channel_id !== st.channel) return;
      st.refusals.set(r.id, r);
      if (st.refusals.size > 200) st.refusals.delete(st.refusals.keys().next().value);
      render();
    });
    es.addEventListener("message_delete", (ev) => {
      if (!mineNow()) return;
      const { id } = JSON.parse(ev.data);
      st.messages = st.messages.filter((m) => m.id !== id);
      st.ephemeral.get(ephemeralKey())?.delete(id);
      render();
    });
    es.onerror = () => {
      if (!mineNow()) return;
      live("reconnecting…", "connecting");
      // The browser reconnects by itself, unless the server refused the
      // stream (the ticket's check failed): then ask for a new ticket.
      if (es.readyState === EventSource.CLOSED) retryLive(mine);
    };
  }
  function retryLive(mine) {
    live("reconnecting…", "connecting");
    clearTimeout(st.timer);
    st.timer = setTimeout(() => connectLive(mine), st.delay);
    st.delay = Math.min(st.delay * 2, 8000);
  }
  async function refresh(channel) {
    try {
      const msgs = await discord("GET", `/channels/${channel}/messages?limit=50`, st.token);
      if (channel !== st.channel) return;
      st.messages = msgs;
      render();
    } catch (e) {
      fail(e);
    }
  }
  function upsert(m) {
    if (m.channel_id && m.channel_id !== st.channel) return;
    const i = st.messages.findIndex((x) => x.id === m.id);
    if (i >= 0) st.messages[i] = m;
    else st.messages.unshift(m);
    if (st.messages.length > 500) st.messages = st.messages.sort((a, b) => cmpID(b.id, a.id)).slice(0, 500);
    const eph = st.ephemeral.get(ephemeralKey());
    if (eph?.has(m.id)) eph.set(m.id, m);
    render();
  }
  // kick: after an action, the stream brings its results; reconnect if
  // it is down.
  function kick() {
    if (!st.es && st.channel && st.token && !st.stopped) connectLive(selection);
  }

  function ephemeralKey() { return st.channel + "/" + st.user; }
  function addEphemeral(m) {
    const k = ephemeralKey();
    if (!st.ephemeral.has(k)) st.ephemeral.set(k, new Map());
    st.ephemeral.get(k).set(m.id, m);
    render();
  }

  function render() {
    const eph = [...(st.ephemeral.get(ephemeralKey())?.values() || [])];
    const refused = [...st.refusals.values()].map((r) => ({ id: r.id, refusal: r }));
    const all = [...st.messages.filter((m) => !eph.some((x) => x.id === m.id)), ...eph, ...refused].sort((a, b) => cmpID(a.id, b.id));
    const atBottom = list.scrollHeight - list.scrollTop - list.clientHeight < 40;
    clear(list, all.length ? all.map((m) => (m.refusal ? renderRefusal(m.refusal) : renderMessage(m)))
      : el("p", { class: "muted" }, "No message yet. Type / to use a command."));
    if (atBottom || true) list.scrollTop = list.scrollHeight;
  }

  // renderRefusal is a refusal's card; its error body stays unfolded
  // across renders once the developer unfolded it.
  function renderRefusal(r) {
    const card = refusalCard(r, appName(r.application_id), userLabel(world.userByID.get(r.user_id)));
    const body = card.querySelector("details.refusal-body");
    body.open = st.openBodies.has(r.id);
    body.addEventListener("toggle", () => (body.open ? st.openBodies.add(r.id) : st.openBodies.delete(r.id)));
    return card;
  }

  function appOf(m) {
    return m.application_id || m.webhook_id || m.author?.id;
  }

  function renderMessage(m) {
    const eph = (m.flags & EPHEMERAL) !== 0;
    const meta = m.interaction_metadata;
    const ctxCmds = (st.index?.application_commands || []).filter((c) => c.type === 2 || c.type === 3);
    const ctxSel = ctxCmds.length ? el("select", { class: "ctx", "aria-label": "Apps", onchange: (ev) => {
      const c = ctxCmds.find((x) => x.id === ev.target.value);
      ev.target.value = "";
      if (c) invoke(c, [], c.type === 3 ? m.id : m.author?.id);
    } }, el("option", { value: "" }, "Apps…"), ctxCmds.map((c) => el("option", { value: c.id },
      (c.type === 3 ? "Message: " : "User (" + userLabel(m.author) + "): ") + c.name))) : null;
    return el("div", { class: "msg" + (eph ? " ephemeral" : ""), "data-id": m.id },
      meta ? el("div", { class: "via" }, `↳ ${userLabel(meta.user)} ${meta.type === 2 ? "used " + (meta.target_message_id || meta.target_user ? "" : "/") + (meta.name || "a command") : meta.type === 3 ? "used a button or menu" : "submitted a form"}`) : null,
      el("div", { class: "head" }, el("span", { class: "author" }, userLabel(m.author)),
        m.author?.bot ? pill("APP", "accent") : null, " ",
        el("span", { class: "meta" }, new Date(m.timestamp).toLocaleTimeString(), m.edited_timestamp ? " (edited)" : ""),
        " ", ctxSel),
      (m.flags & LOADING) ? el("div", { class: "content muted" }, `${userLabel(m.author)} is thinking…`) : null,
      m.content ? el("div", { class: "content" }, m.content) : null,
      (m.embeds || []).map(renderEmbed),
      m.attachments?.length ? el("div", { class: "attachments" }, m.attachments.map(renderAttachment)) : null,
      m.components?.length ? el("div", { class: "components" }, m.components.map((c) => renderComponent(m, c))) : null,
      eph ? el("div", { class: "eph" }, "Only you can see this · ", el("button", { type: "button", class: "link",
        onclick: () => { st.ephemeral.get(ephemeralKey())?.delete(m.id); render(); } }, "Dismiss message")) : null);
  }

  function renderEmbed(e) {
    const color = e.color !== undefined ? "#" + e.color.toString(16).padStart(6, "0") : undefined;
    const box = el("div", { class: "embed" },
      e.author?.name ? el("div", { class: "muted" }, e.author.name) : null,
      e.title ? el("div", { class: "title" }, e.title) : null,
      e.description ? el("div", { class: "content" }, e.description) : null,
      (e.fields || []).map((f) => el("div", { class: "field" }, el("strong", {}, f.name), el("div", {}, f.value))),
      e.thumbnail?.url ? embedImage(e.thumbnail, "thumbnail") : null,
      e.image?.url ? embedImage(e.image, "image") : null,
      e.footer?.text ? el("div", { class: "muted" }, e.footer.text) : null);
    if (color) box.style.borderLeftColor = color;
    return box;
  }

  function renderComponent(m, c) {
    switch (c.type) {
      case 1:
        return el("div", { class: "arow" }, (c.components || []).map((x) => renderComponent(m, x)));
      case 2:
        if (c.style === 5) return el("a", { href: c.url, target: "_blank", rel: "noopener noreferrer", class: "pill" }, c.label || c.url, " ↗");
        return el("button", { type: "button", class: buttonStyles[c.style] || "secondary", disabled: !!c.disabled,
          "data-custom-id": c.custom_id, onclick: () => component(m, { component_type: 2, custom_id: c.custom_id }) },
        c.emoji?.name ? c.emoji.name + " " : "", c.label || "");
      case 3:
        return el("select", { disabled: !!c.disabled, "data-custom-id": c.custom_id, onchange: (ev) =>
          component(m, { component_type: 3, custom_id: c.custom_id, values: [ev.target.value] }) },
        el("option", { value: "" }, c.placeholder || "Make a selection"),
        (c.options || []).map((o) => el("option", { value: o.value }, o.label)));
      case 5: case 6: case 7: case 8:
        return autoSelect(m, c);
      case 9:
        return el("div", { class: "arow" }, el("div", {}, (c.components || []).map((x) => renderComponent(m, x))),
          c.accessory ? renderComponent(m, c.accessory) : null);
      case 10:
        return el("div", { class: "content" }, c.content);
      case 14:
        return el("hr", {});
      case 17:
        return el("div", { class: "embed" }, (c.components || []).map((x) => renderComponent(m, x)));
      default:
        return el("span", { class: "muted" }, `[component type ${c.type}]`);
    }
  }

  // The choices of the place: its members, roles and channels (a DM's
  // or group DM's: its recipients and itself), as [id, label] pairs.
  function placeUsers() {
    if (st.guild) {
      return st.guild.members.map((m) => [m.user_id, (m.nick ? m.nick + " · " : "") + userLabel(world.userByID.get(m.user_id))]);
    }
    const dm = st.dms.find((c) => c.id === st.channel);
    const ids = [st.user, ...(dm?.recipients || []).map((r) => r.id)];
    return [...new Set(ids)].map((id) => [id, userLabel(world.userByID.get(id))]);
  }
  function placeRoles() {
    return st.guild ? st.guild.roles.map((r) => [r.id, "@" + r.name.replace(/^@/, "")]) : [];
  }
  function placeChannels(types) {
    const ok = (c) => !types?.length || types.includes(c.type);
    if (st.guild) return st.guild.channels.filter(ok).map((c) => [c.id, channelLabel(c)]);
    const dm = st.dms.find((c) => c.id === st.channel);
    return dm && ok(dm) ? [[dm.id, dm.type === 3 ? "this group DM" : "this DM"]] : [];
  }
  function choiceGroups(kind, channelTypes) {
    switch (kind) {
      case "user": return [["Members", placeUsers()]];
      case "role": return [["Roles", placeRoles()]];
      case "mentionable": return [["Members", placeUsers()], ["Roles", placeRoles()]];
      default: return [["Channels", placeChannels(channelTypes)]];
    }
  }
  function groupedOptions(groups, selected = new Set()) {
    const nonEmpty = groups.filter(([, opts]) => opts.length);
    const opt = ([v, t]) => el("option", { value: v, selected: selected.has(v) }, t);
    return nonEmpty.length === 1 ? nonEmpty[0][1].map(opt)
      : nonEmpty.map(([label, opts]) => el("optgroup", { label }, opts.map(opt)));
  }

  // autoSelect is a user (5), role (6), mentionable (7) or channel (8)
  // select menu with the place's choices; it sends the ids chosen, as the
  // real client does (slashd resolves them for the app).
  function autoSelect(m, c) {
    const kind = { 5: "user", 6: "role", 7: "mentionable", 8: "channel" }[c.type];
    const max = c.max_values ?? 1;
    const min = c.min_values ?? 1;
    const defaults = new Set((c.default_values || []).map((d) => d.id));
    const groups = choiceGroups(kind, c.channel_types);
    const empty = !groups.some(([, o]) => o.length);
    const sendValues = (values) => component(m, { component_type: c.type, custom_id: c.custom_id, values });
    if (max <= 1) {
      return el("select", { disabled: !!c.disabled || empty, "data-custom-id": c.custom_id, "data-type": c.type,
        onchange: (ev) => ev.target.value && sendValues([ev.target.value]) },
      el("option", { value: "" }, empty ? `(no ${kind} here)` : c.placeholder || `Select a ${kind}`),
      groupedOptions(groups, defaults));
    }
    const sel = el("select", { multiple: true, size: Math.min(6, 1 + groups.reduce((n, [, o]) => n + o.length, 0)),
      disabled: !!c.disabled || empty, "data-custom-id": c.custom_id, "data-type": c.type }, groupedOptions(groups, defaults));
    return el("div", { class: "multi" }, el("div", { class: "muted" }, c.placeholder || `Select ${min}–${max}`), sel,
      el("button", { type: "button", class: "secondary", disabled: !!c.disabled || empty, "data-send": c.custom_id,
        onclick: () => sendValues([...sel.selectedOptions].map((o) => o.value)) }, "Send selection"));
  }

  async function send(body) {
    say("Sending…");
    // Read beside the invocation: where the app's interactions go, said
    // once it is answered (or failed: then it matters most).
    const app = admin("GET", `/applications/${body.application_id}`).catch(() => null);
    try {
      const ans = await discord("POST", "/interactions", st.token, body);
      say("");
      answered(ans, body);
      return ans;
    } catch (e) {
      fail(e);
      return null;
    } finally {
      kick();
      showRoute(await app);
    }
  }

  // showRoute says where the app just invoked gets its interactions.
  function showRoute(a) {
    clear(route, a ? routeNotes(a, "chat-route-note") : null);
  }

  function answered(ans, body) {
    const r = ans?.resource || {};
    if (r.message && (r.message.flags & EPHEMERAL)) addEphemeral(r.message);
    if (r.type === 9 && r.modal) showModal(ans.interaction?.id, r.modal, body.application_id);
    if (r.type === 12) say("The app launched its Activity.", "ok");
  }

  function component(m, data) {
    return send({ type: 3, application_id: appOf(m), channel_id: st.channel, message_id: m.id, data });
  }

  // The modal: text inputs and select menus (string, user, role,
  // mentionable, channel), in action rows or labels; submitted as a
  // MODAL_SUBMIT interaction in the layout each came in.
  function showModal(interactionID, modal, appID) {
    const inputs = [];
    const selectKinds = { 3: "string", 5: "user", 6: "role", 7: "mentionable", 8: "channel" };
    const field = (def, label, inLabel) => {
      const id = "modal-" + def.custom_id;
      let f;
      if (def.type === 4) {
        const attrs = { id, required: def.required !== false, value: def.value || "", placeholder: def.placeholder || "",
          minLength: def.min_length ?? undefined, maxLength: def.max_length ?? undefined };
        f = def.style === 2 ? el("textarea", { ...attrs, rows: 4 }) : el("input", attrs);
      } else {
        const kind = selectKinds[def.type];
        const groups = kind === "string" ? [["Options", (def.options || []).map((o) => [o.value, o.label])]]
          : choiceGroups(kind, def.channel_types);
        const defaults = new Set([...(def.default_values || []).map((d) => d.id),
          ...(def.options || []).filter((o) => o.default).map((o) => o.value)]);
        const multi = (def.max_values ?? 1) > 1;
        f = el("select", { id, multiple: multi, "data-type": def.type, size: multi ? 5 : undefined },
          multi ? null : el("option", { value: "" }, def.placeholder || `Select a ${kind === "string" ? "value" : kind}`),
          groupedOptions(groups, defaults));
      }
      inputs.push({ def, f, inLabel });
      return el("div", {}, el("label", { for: id }, label || def.label || def.custom_id), f);
    };
    const body = (modal.components || []).map((row) => {
      if (row.type === 1) {
        return (row.components || []).filter((x) => x.type === 4 || selectKinds[x.type]).map((x) => field(x, null, false));
      }
      if (row.type === 18 && (row.component?.type === 4 || selectKinds[row.component?.type])) {
        return [field(row.component, row.label, true), row.description ? el("div", { class: "muted" }, row.description) : null];
      }
      if (row.type === 10) return el("p", {}, row.content);
      return el("p", { class: "muted" }, `[component type ${row.type}]`);
    });
    const close = () => clear(modalRoot);
    const submit = async (ev) => {
      ev.preventDefault();
      const comps = [];
      for (const { def, f, inLabel } of inputs) {
        let c;
        if (def.type === 4) c = { type: 4, custom_id: def.custom_id, value: f.value };
        else {
          const values = [...f.selectedOptions].map((o) => o.value).filter(Boolean);
          if (!values.length) continue; // not chosen: left out (the API says when it was required)
          c = { type: def.type, custom_id: def.custom_id, values };
        }
        comps.push(inLabel ? { type: 18, component: c } : { type: 1, components: [c] });
      }
      close();
      await send({ type: 5, application_id: appID, channel_id: st.channel,
        data: { id: interactionID, custom_id: modal.custom_id, components: comps } });
    };
    clear(modalRoot, el("div", { class: "modal-back" }, el("form", { class: "modal", id: "modal", onsubmit: submit },
      el("h2", {}, modal.title || ""), body,
      el("div", { class: "buttons" },
        el("button", { type: "button", class: "secondary", onclick: close }, "Cancel"),
        el("button", { type: "submit", class: "primary", id: "modal-submit" }, "Submit")))));
  }

  // The picker.
  async function loadIndex() {
    const key = st.channel + "/" + st.user;
    if (st.index && st.indexKey === key && Date.now() - st.indexAt < 10000) return;
    const idx = await discord("GET", `/channels/${st.channel}/application-command-index`, st.token);
    st.index = idx;
    st.indexKey = key;
    st.indexAt = Date.now();
    st.hidden = await hiddenCommands(idx);
    render();
  }

  // hiddenCommands are the reachable apps' commands the member does not
  // see here, each with the access explainer's reason (a playground aid
  // the real client does not show). In a guild: the apps installed
  // there; in a DM or group DM: the apps the user installed, and the
  // app whose bot is in the DM.
  async function hiddenCommands(idx) {
    const seen = new Set(idx.application_commands.map((c) => c.id));
    const out = [];
    const explain = async (c, path) => {
      if (seen.has(c.id) || (c.type !== 1 && c.type !== 4)) return;
      try {
        const d = await admin("GET", path(c));
        out.push({ c, reason: d.reason || d.rule });
      } catch (e) {
        out.push({ c, reason: e.message });
      }
    };
    const q = new URLSearchParams({ user_id: st.user, channel_id: st.channel });
    if (st.guild) {
      for (const inst of st.guild.installations) {
        const [gl, gu] = await Promise.all([admin("GET", `/applications/${inst.application_id}/commands`),
          admin("GET", `/applications/${inst.application_id}/commands?guild_id=${st.guild.id}`)]);
        for (const c of [...gu.commands, ...gl.commands]) await explain(c, (x) => `/guilds/${st.guild.id}/commands/${x.id}/access?${q}`);
      }
      return out;
    }
    const dm = st.dms.find((c) => c.id === st.channel);
    const installs = await admin("GET", `/users/${st.user}/installations`).catch(() => []);
    const apps = new Set(installs.map((i) => i.application_id));
    for (const r of dm?.recipients || []) if (world.appByID.has(r.id)) apps.add(r.id);
    const who = new URLSearchParams({ user_id: st.user });
    for (const app of apps) {
      const gl = await admin("GET", `/applications/${app}/commands`);
      for (const c of gl.commands) await explain(c, (x) => `/private-channels/${st.channel}/commands/${x.id}/access?${who}`);
    }
    return out;
  }

  // entries flattens subcommands: "/group sub".
  function entries() {
    const out = [];
    for (const c of st.index?.application_commands || []) {
      if (c.type !== 1 && c.type !== 4) continue;
      const subs = (c.options || []).filter((o) => o.type === 1 || o.type === 2);
      if (!subs.length) {
        out.push({ c, path: [], opts: c.options || [], label: c.name, desc: c.description });
        continue;
      }
      for (const s of subs) {
        if (s.type === 1) out.push({ c, path: [s.name], opts: s.options || [], label: `${c.name} ${s.name}`, desc: s.description });
        else for (const s2 of s.options || []) out.push({ c, path: [s.name, s2.name], opts: s2.options || [],
          label: `${c.name} ${s.name} ${s2.name}`, desc: s2.description });
      }
    }
    return out;
  }

  const appName = (id) => st.index?.applications?.find((a) => a.id === id)?.name || world.appByID.get(id)?.name || id;

  // Only the latest keystroke's list is shown, and a list equal to the
  // one shown is left alone: replacing it under the pointer would lose a
  // click.
  let pickerSeq = 0;
  let pickerShown = "";
  let pickerFor = null; // the text the shown list is for
  async function showPicker() {
    const mine = ++pickerSeq;
    const v = input.value;
    if (!v.startsWith("/")) {
      picker.hidden = true;
      pickerShown = "";
      pickerFor = null;
      return;
    }
    try {
      await loadIndex();
    } catch (e) {
      fail(e);
      return;
    }
    if (mine !== pickerSeq || input.value !== v) return;
    const q = v.slice(1).toLowerCase();
    const es = entries().filter((e) => e.label.toLowerCase().startsWith(q) || (q && e.label.toLowerCase().includes(q)));
    const hidden = st.hidden.filter((h) => h.c.name.toLowerCase().startsWith(q.split(" ")[0]));
    const key = JSON.stringify([es.map((e) => [e.c.id, e.label]), hidden.map((h) => [h.c.id, h.reason])]);
    pickerFor = v;
    if (!picker.hidden && key === pickerShown) return;
    pickerShown = key;
    // An app's guild and global command of one name are both listed (as
    // the real client lists them); a pill tells them apart here.
    const twins = (e) => es.some((x) => x !== e && x.label === e.label && x.c.application_id === e.c.application_id);
    const scope = (e) => (e.c.guild_id ? "guild" : "global");
    clear(picker, es.map((e) => el("button", { type: "button", class: "entry", "data-name": e.label, "data-scope": scope(e),
      onclick: () => choose(e) },
    el("strong", {}, "/" + e.label), el("span", { class: "desc" }, e.desc || ""), " ", pill(appName(e.c.application_id)),
    twins(e) ? [" ", pill(scope(e))] : null)),
    hidden.map((h) => el("div", { class: "entry hidden", "data-name": h.c.name, title: h.reason },
      el("strong", {}, "/" + h.c.name), el("span", { class: "desc" }, h.c.description || ""),
      el("span", { class: "why" }, "Hidden: " + h.reason))),
    !es.length && !hidden.length ? el("p", { class: "muted" }, "No command matches.") : null);
    picker.hidden = false;
  }
  input.addEventListener("input", showPicker);
  input.addEventListener("keydown", async (ev) => {
    if (ev.key === "Escape") picker.hidden = true;
    if (ev.key !== "Enter") return;
    ev.preventDefault();
    const typed = input.value;
    // An empty box sends nothing. The picker keeps the buttons of the
    // last list it showed after a command is chosen: only a list shown
    // for what is typed now may be used, or Enter would run the last
    // command again.
    if (!typed.trim()) return;
    if (!typed.startsWith("/")) {
      say("The playground sends commands: type / to pick one.");
      return;
    }
    if (picker.hidden || pickerFor !== typed) await showPicker();
    if (picker.hidden || pickerFor !== typed || input.value !== typed) return;
    picker.querySelector("button.entry")?.click();
  });

  // choose opens the option form of a command (or sends one without
  // options at once).
  function choose(e) {
    picker.hidden = true;
    pickerShown = "";
    pickerFor = null;
    input.value = "/" + e.label + " ";
    st.command = e;
    if (!e.opts.length) {
      clear(form);
      invoke(e.c, e.path, undefined, []);
      input.value = "";
      return;
    }
    const fields = e.opts.map((o) => optionField(e, o));
    clear(form, el("form", { class: "optform", id: "command-form", onsubmit: async (ev) => {
      ev.preventDefault();
      const values = collect(e);
      if (!values) return;
      const ok = await invoke(e.c, e.path, undefined, values, attachmentsOf(e).map(({ option, ...a }) => a));
      if (ok) {
        clear(form);
        input.value = "";
        st.command = null;
      }
    } },
    el("strong", {}, "/" + e.label), " ", el("span", { class: "muted" }, e.desc || ""),
    fields,
    el("div", { class: "buttons" },
      el("button", { type: "button", class: "secondary", onclick: () => { clear(form); input.value = ""; st.command = null; } }, "Cancel"),
      el("button", { type: "submit", class: "primary", id: "send" }, "Send"))));
    form.querySelector("input, select")?.focus();
  }

  function optionField(e, o) {
    const id = "opt-" + o.name;
    const hint = [optionTypes[o.type] || "type " + o.type, o.required ? "required" : "optional",
      o.min_value !== undefined ? "min " + o.min_value : "", o.max_value !== undefined ? "max " + o.max_value : "",
      o.min_length !== undefined ? "≥ " + o.min_length + " chars" : "", o.max_length !== undefined ? "≤ " + o.max_length + " chars" : "",
      o.autocomplete ? "autocomplete" : ""].filter(Boolean).join(" · ");
    let f;
    const sel = (opts) => el("select", { id, "data-type": o.type }, o.required ? null : el("option", { value: "" }, "—"),
      opts.map(([v, t]) => el("option", { value: v }, t)));
    // user, role, mentionable and channel options: the place's choices.
    const picker = (kind) => {
      const groups = choiceGroups(kind, o.channel_types);
      const none = !groups.some(([, x]) => x.length);
      return el("select", { id, "data-type": o.type, disabled: none, required: !!o.required },
        el("option", { value: "" }, none ? `(no ${kind} here)` : o.required ? `Pick a ${kind}` : "—"), groupedOptions(groups));
    };
    if (o.choices?.length) f = sel(o.choices.map((c) => [JSON.stringify(c.value), c.name]));
    else if (o.type === 5) f = sel([["true", "True"], ["false", "False"]]);
    else if (o.type === 6) f = picker("user");
    else if (o.type === 8) f = picker("role");
    else if (o.type === 9) f = picker("mentionable");
    else if (o.type === 7) f = picker("channel");
    else if (o.type === 11) f = el("input", { id, type: "file", "data-type": o.type, required: !!o.required });
    else {
      const numeric = o.type === 4 || o.type === 10;
      f = el("input", { id, "data-type": o.type, autocomplete: "off", required: !!o.required,
        type: numeric && !o.autocomplete ? "number" : "text", inputMode: numeric ? "decimal" : undefined,
        step: o.type === 4 ? "1" : numeric ? "any" : undefined, min: o.min_value, max: o.max_value,
        minLength: o.min_length, maxLength: o.max_length });
    }
    const sugg = el("div", { class: "suggest", id: "suggest-" + o.name });
    if (o.autocomplete) {
      let t = 0;
      f.addEventListener("input", () => {
        clearTimeout(t);
        t = setTimeout(() => autocomplete(e, o, f, sugg), 200);
      });
      f.addEventListener("focus", () => autocomplete(e, o, f, sugg));
    }
    return el("div", { class: "opt" }, el("label", { for: id }, o.name, el("small", {}, hint)),
      o.description ? el("div", { class: "muted" }, o.description) : null, f, sugg);
  }

  // value reads one option's field as the API types it; "" is unset.
  function value(o, raw, typing) {
    if (raw === "") return undefined;
    if (o.choices?.length) return JSON.parse(raw);
    if (typing) return raw; // a focused option is sent as typed
    switch (o.type) {
      case 4: return Number.isInteger(Number(raw)) ? Number(raw) : raw;
      case 10: return Number.isNaN(Number(raw)) ? raw : Number(raw);
      case 5: return raw === "true";
      default: return raw;
    }
  }

  function collect(e, focused) {
    const out = [];
    for (const o of e.opts) {
      const f = document.getElementById("opt-" + o.name);
      if (!f) continue;
      if (o.type === 11) {
        // An attachment names its upload by its index in data.attachments.
        const i = attachmentsOf(e).findIndex((a) => a.option === o.name);
        if (i >= 0) out.push({ type: 11, name: o.name, value: String(i) });
        continue;
      }
      const v = value(o, f.value, o === focused);
      if (v === undefined && o !== focused) continue;
      const opt = { type: o.type, name: o.name, value: v ?? "" };
      if (o === focused) opt.focused = true;
      out.push(opt);
    }
    return out;
  }

  // attachmentsOf lists the files of the form's attachment options, as
  // data.attachments describes uploads ({id, filename, size,
  // content_type}; the id is the upload's index, as the real client
  // numbers them). slashd keeps no file contents: only this reaches the
  // app (docs/compat.md).
  function attachmentsOf(e) {
    const out = [];
    for (const o of e.opts) {
      const file = o.type === 11 ? document.getElementById("opt-" + o.name)?.files?.[0] : null;
      if (file) out.push({ option: o.name, id: String(out.length), filename: file.name, size: file.size,
        content_type: file.type || "application/octet-stream" });
    }
    return out;
  }

  function wrap(path, opts) {
    if (path.length === 1) return [{ type: 1, name: path[0], options: opts }];
    if (path.length === 2) return [{ type: 2, name: path[0], options: [{ type: 1, name: path[1], options: opts }] }];
    return opts;
  }

  const acSeq = new Map(); // per option: only its latest answer is shown
  async function autocomplete(e, o, f, sugg) {
    const seq = (acSeq.get(o.name) || 0) + 1;
    acSeq.set(o.name, seq);
    const data = { id: e.c.id, name: e.c.name, type: e.c.type, version: e.c.version,
      options: wrap(e.path, collect(e, o)) };
    try {
      const ans = await discord("POST", "/interactions", st.token,
        { type: 4, application_id: e.c.application_id, channel_id: st.channel, data });
      if (seq !== acSeq.get(o.name)) return;
      const choices = ans?.resource?.choices || [];
      clear(sugg, choices.map((c) => el("button", { type: "button", class: "secondary", onclick: () => {
        f.value = String(c.value);
        clear(sugg);
      } }, c.name)), choices.length ? null : el("span", { class: "muted" }, "no suggestion"));
    } catch (err) {
      if (seq === acSeq.get(o.name)) clear(sugg, el("span", { class: "muted" }, "autocomplete: " + err.message));
    }
  }

  // invoke sends an APPLICATION_COMMAND interaction; target is a user or
  // message command's target.
  async function invoke(c, path, target, values = [], attachments = []) {
    const data = { id: c.id, name: c.name, type: c.type, version: c.version };
    if (c.type === 1) data.options = wrap(path || [], values);
    if (attachments.length) data.attachments = attachments;
    if (target) data.target_id = target;
    const ans = await send({ type: 2, application_id: c.application_id, channel_id: st.channel, data });
    return ans !== null;
  }

  await loadPlace();
  return () => {
    st.stopped = true;
    closeLive();
  };
}

// apiErrorLines words an API error as the client shows it: the message,
// then each option's field error.
function apiErrorLines(e, command) {
  const lines = [e.message];
  const walk = (node, path) => {
    if (!node || typeof node !== "object") return;
    if (Array.isArray(node._errors)) {
      for (const fe of node._errors) lines.push(`${describe(path, command)}: ${fe.message}`);
    }
    for (const [k, v] of Object.entries(node)) if (k !== "_errors") walk(v, [...path, k]);
  };
  walk(e.body?.errors, []);
  return lines;
}

function describe(path, command) {
  // data.options.N[.options.M…]: name the option when the form knows it.
  const i = path.lastIndexOf("options");
  if (command && i >= 0 && path[0] === "data") {
    const idx = Number(path[i + 1]);
    const o = command.opts[idx];
    if (o) return o.name;
  }
  return path.join(".");
}

// mediaURL is a URL the page may load or link to: http(s) only (no
// javascript: or data: from an app), absolute.
function mediaURL(raw) {
  try {
    const u = new URL(raw, location.href);
    return u.protocol === "https:" || u.protocol === "http:" ? u : null;
  } catch {
    return null;
  }
}

export function humanSize(n) {
  if (typeof n !== "number" || n < 0) return "";
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

// renderAttachment shows an image attachment inline (its size as the
// message gives it, constrained by the CSS), any other as a link to
// download it with its name and size.
function renderAttachment(a) {
  const u = mediaURL(a.url);
  const name = a.filename || "file";
  if ((a.content_type || "").startsWith("image/") && u) {
    return el("a", { class: "attachment image", href: u.href, target: "_blank", rel: "noopener noreferrer",
      title: `${name}${a.size !== undefined ? " · " + humanSize(a.size) : ""}` },
    el("img", { src: u.href, alt: a.description || name, width: a.width || undefined, height: a.height || undefined,
      "data-attachment-id": a.id }));
  }
  const ext = /\.([a-z0-9]{1,5})$/i.exec(name)?.[1] || "file";
  const label = [el("span", { class: "file-icon", "aria-hidden": "true" }, ext.toUpperCase()), " ",
    el("span", { class: "file-name" }, name), " ",
    el("span", { class: "muted" }, [humanSize(a.size), a.content_type].filter(Boolean).join(" · "))];
  if (!u) return el("div", { class: "attachment file", "data-attachment-id": a.id }, label);
  return el("a", { class: "attachment file", href: u.href, download: name, target: "_blank", rel: "noopener noreferrer",
    "data-attachment-id": a.id }, label);
}

// embedImage shows an embed's image or thumbnail inline when it is this
// server's (an uploaded file it serves: the playground's Content
// Security Policy loads images from its own origin only, and an app's
// other URLs are not fetched from the viewer's browser); a link
// otherwise.
function embedImage(img, kind) {
  const u = mediaURL(img.url);
  if (!u) return el("div", { class: "muted" }, `${kind}: ${img.url}`);
  if (u.origin === location.origin) {
    return el("a", { class: "embed-" + kind, href: u.href, target: "_blank", rel: "noopener noreferrer" },
      el("img", { src: u.href, alt: kind, width: img.width || undefined, height: img.height || undefined }));
  }
  return el("div", { class: "embed-" + kind + " muted" }, kind === "image" ? "Image: " : "Thumbnail: ",
    el("a", { href: u.href, target: "_blank", rel: "noopener noreferrer" }, u.href, " ↗"));
}
