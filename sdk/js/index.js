// @slashd/testkit: a bot's tests against slashd, from Node.
//
// Everything here is a thin client of slashd's admin API (docs/worlds.md,
// docs/journal.md, docs/faults.md, docs/testing.md): a Server made by
// connect() or start(), a World made from a spec, members who act in it
// (POST /admin/v1/worlds/{world}/act), its journal, faults and clock. No
// runtime dependency: Node 20's fetch, child_process and fs.
import { spawn, execFile } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

/** An answer of slashd's that is not a success: its HTTP status and JSON error envelope. */
export class SlashdError extends Error {
  constructor(status, body, what) {
    const env = body && typeof body === 'object' ? body : {};
    const message = env.message ?? (typeof body === 'string' && body ? body : `HTTP ${status}`);
    super(`${what}: ${status} ${message}${env.code !== undefined ? ` (code ${env.code})` : ''}${describeErrors(env.errors)}`);
    this.name = 'SlashdError';
    /** The HTTP status. */
    this.status = status;
    /** slashd's (Discord's) JSON error code, e.g. 50035; undefined when the answer had none. */
    this.code = env.code;
    /** The envelope's message, as slashd wrote it. */
    this.apiMessage = message;
    /** The envelope's field errors ({field: {_errors: [{code, message}]}}), or undefined. */
    this.errors = env.errors;
    /** The whole answer body (parsed JSON, or text). */
    this.body = body;
  }
}

// describeErrors flattens the field errors into "; path: CODE message"
// so that a failing test says which field was refused without a dump.
function describeErrors(errors, path = '') {
  if (!errors || typeof errors !== 'object') return '';
  let out = '';
  for (const [key, value] of Object.entries(errors)) {
    if (key === '_errors' && Array.isArray(value)) {
      for (const e of value) out += `; ${path || '(body)'}: ${e.code} ${e.message}`;
    } else {
      out += describeErrors(value, path ? `${path}.${key}` : key);
    }
  }
  return out;
}

/**
 * A slashd server: its base URL and admin token, and the admin API under them.
 * Made by connect() (a server already running) or start() (one this process runs).
 */
export class Server {
  constructor({ url, adminToken, worlds = {}, stop } = {}) {
    if (!url || !adminToken) throw new TypeError('a slashd server needs a url and an adminToken');
    /** The base URL, e.g. http://127.0.0.1:PORT (the API is under /api/v10). */
    this.url = url.replace(/\/+$/, '');
    /** The admin token (sent as `Authorization: Admin <token>`). */
    this.adminToken = adminToken;
    /** The worlds slashd test announced (SLASHD_WORLDS), by name, as GET /admin/v1/worlds/{world} answers. */
    this.worlds = worlds;
    this._stop = stop;
  }

  /** The REST base a bot library takes: discord.js's `rest: { api: server.api }`. */
  get api() {
    return `${this.url}/api`;
  }

  /**
   * A request to slashd, answering the parsed JSON (undefined for 204).
   * path is under the base URL (`/admin/v1/worlds`); auth defaults to the admin token.
   */
  async request(method, path, { body, auth, query, signal } = {}) {
    let target = this.url + path;
    if (query) {
      const q = new URLSearchParams();
      for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null) q.set(k, String(v));
      const s = q.toString();
      if (s) target += (target.includes('?') ? '&' : '?') + s;
    }
    const headers = { Authorization: auth ?? `Admin ${this.adminToken}` };
    let payload;
    if (body !== undefined) {
      headers['Content-Type'] = 'application/json';
      payload = JSON.stringify(body);
    }
    const res = await fetch(target, { method, headers, body: payload, signal });
    const text = await res.text();
    let parsed = text;
    if (text && (res.headers.get('content-type') ?? '').includes('json')) {
      try {
        parsed = JSON.parse(text);
      } catch {
        // Not JSON after all: keep the text for the error.
      }
    }
    if (!res.ok) throw new SlashdError(res.status, parsed, `${method} ${path}`);
    return res.status === 204 || text === '' ? undefined : parsed;
  }

  /**
   * A world: a spec object makes a new one (POST /admin/v1/worlds); a string
   * is the name (or id) of a world the server has, e.g. one `slashd test --world` made.
   */
  async world(spec) {
    if (typeof spec === 'string') {
      return new World(this, await this.request('GET', `/admin/v1/worlds/${encodeURIComponent(spec)}`));
    }
    if (!spec || typeof spec !== 'object') throw new TypeError('world(spec): a spec object or a world name');
    return new World(this, await this.request('POST', '/admin/v1/worlds', { body: spec }));
  }

  /** Every world of the server (GET /admin/v1/worlds). */
  async listWorlds() {
    return this.request('GET', '/admin/v1/worlds');
  }

  /** Stops a server start() started and removes its data directory; nothing for connect()'s. */
  async close() {
    if (this._stop) {
      const stop = this._stop;
      this._stop = undefined;
      await stop();
    }
  }

  async [Symbol.asyncDispose]() {
    await this.close();
  }
}

/**
 * A server already running: `{url, adminToken}`, or else slashd test's
 * environment (SLASHD_URL, SLASHD_ADMIN_TOKEN, SLASHD_WORLDS).
 */
export function connect(opts = {}) {
  const env = opts.env ?? process.env;
  const url = opts.url ?? env.SLASHD_URL;
  const adminToken = opts.adminToken ?? env.SLASHD_ADMIN_TOKEN;
  if (!url || !adminToken) {
    throw new SlashdError(0, { message: 'no slashd to connect to: pass {url, adminToken}, or run under `slashd test` (SLASHD_URL, SLASHD_ADMIN_TOKEN)' }, 'connect');
  }
  let worlds = {};
  if (!opts.url && env.SLASHD_WORLDS) worlds = JSON.parse(readFileSync(env.SLASHD_WORLDS, 'utf8'));
  return new Server({ url, adminToken, worlds });
}

/** Whether slashd test's environment is there: connect() would find a server. */
export function underSlashdTest(env = process.env) {
  return Boolean(env.SLASHD_URL && env.SLASHD_ADMIN_TOKEN);
}

/**
 * Starts `slashd serve` on a free loopback port with a new temporary data
 * directory, waits until /healthz says ready, and answers the Server; its
 * close() stops the process and removes the directory. The binary: opts.bin,
 * else $SLASHD_BIN, else `slashd` on PATH, else built with `go build` from the
 * slashd checkout that holds the working directory or this package.
 */
export async function start(opts = {}) {
  const env = opts.env ?? process.env;
  const built = await findBinary(opts.bin, env);
  const data = await mkdtemp(join(tmpdir(), 'slashd-testkit-'));
  const args = ['serve', '--addr', '127.0.0.1:0', '--data', data];
  for (const w of opts.worlds ?? []) args.push('--world', resolve(w));
  // The server's SLASHD_* settings (a store, a listen address) are not the
  // throw-away server's, as with `slashd test`.
  const childEnv = {};
  for (const [k, v] of Object.entries(env)) if (!k.startsWith('SLASHD_')) childEnv[k] = v;
  const child = spawn(built.path, args, { env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  // A binary that cannot be started emits 'error' and never 'exit'.
  const exited = new Promise((res) => {
    child.once('exit', (code, signal) => res({ code, signal }));
    child.once('error', (error) => {
      if (child.pid === undefined) res({ error });
    });
  });
  const stop = async () => {
    if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(killer);
    await rm(data, { recursive: true, force: true });
    await built.cleanup();
  };
  try {
    const url = await new Promise((res, rej) => {
      const onData = (chunk) => {
        log += chunk;
        if (log.length > 1 << 20) log = log.slice(-(1 << 19)); // a bounded tail for the error
        const m = /msg="slashd listening" url=(\S+)/.exec(log);
        if (m) res(m[1]);
      };
      child.stdout.setEncoding('utf8').on('data', onData);
      child.stderr.setEncoding('utf8').on('data', onData);
      exited.then(({ code, signal, error }) =>
        rej(error ? new Error(`start ${built.path}: ${error.message}`) : new Error(`slashd serve exited (${code ?? signal}) before listening:\n${log}`)),
      );
    });
    const boot = JSON.parse(await readFile(join(data, 'bootstrap.json'), 'utf8'));
    await waitHealthy(url, opts.readyTimeout ?? 60_000, exited);
    // Keep draining the output so the pipe never blocks the server.
    child.stdout.on('data', () => {});
    child.stderr.on('data', () => {});
    return new Server({ url, adminToken: boot.admin_token, stop });
  } catch (err) {
    await stop();
    throw err;
  }
}

async function waitHealthy(url, timeout, exited) {
  const deadline = Date.now() + timeout;
  let gone = false;
  exited.then(() => {
    gone = true;
  });
  for (;;) {
    try {
      const res = await fetch(`${url}/healthz`);
      await res.arrayBuffer();
      if (res.ok) return;
    } catch {
      // not answering yet
    }
    if (gone) throw new Error('slashd serve exited before it was healthy');
    if (Date.now() > deadline) throw new Error(`slashd at ${url} not healthy within ${timeout} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Where start() finds slashd, in this order: the `bin` option, $SLASHD_BIN,
 * `slashd` on PATH, else a checkout of slashd (the working directory's or
 * this package's, or a parent of either, holding cmd/slashd) built with
 * `go build` into a temporary directory removed on close().
 */
export async function findBinary(bin, env = process.env) {
  const none = async () => {};
  const given = (path, from) => {
    if (!existsSync(path)) throw new Error(`slashd not found at ${path} (${from})`);
    return { path, cleanup: none };
  };
  if (bin) return given(bin, 'the bin option');
  if (env.SLASHD_BIN) return given(env.SLASHD_BIN, 'SLASHD_BIN');
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    for (const name of process.platform === 'win32' ? ['slashd.exe'] : ['slashd']) {
      const p = join(dir, name);
      try {
        if (statSync(p).isFile()) return { path: p, cleanup: none };
      } catch {
        // not here
      }
    }
  }
  const checkout = findCheckout(process.cwd()) ?? findCheckout(dirname(fileURLToPath(import.meta.url)));
  if (!checkout) {
    throw new Error('slashd not found: pass start({ bin }), set SLASHD_BIN, put slashd on PATH, or run inside a slashd checkout (with Go installed)');
  }
  const out = await mkdtemp(join(tmpdir(), 'slashd-testkit-bin-'));
  const path = join(out, 'slashd');
  await new Promise((res, rej) =>
    execFile('go', ['build', '-o', path, './cmd/slashd'], { cwd: checkout, env }, (err, _stdout, stderr) =>
      err ? rej(new Error(`go build ./cmd/slashd in ${checkout}: ${err.message}\n${stderr}`)) : res(),
    ),
  );
  return { path, cleanup: () => rm(out, { recursive: true, force: true }) };
}

function findCheckout(from) {
  for (let dir = resolve(from); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'cmd', 'slashd')) && existsSync(join(dir, 'go.mod'))) return dir;
    if (dirname(dir) === dir) return undefined;
  }
}

/** A test world: its ids and credentials by handle, and what can be done in it. */
export class World {
  constructor(server, data) {
    this.server = server;
    this._set(data);
    /** The world's journal. */
    this.events = new Events(this);
    /** The world's clock. */
    this.clock = {
      /** Moves the world's clock ahead by a Go duration ('90s', '15m', '24h'): {offset_ms, now}. */
      advance: (by) => this._call('POST', '/clock', { body: { advance: by } }),
    };
  }

  _set(data) {
    /** The world object as slashd answered it. */
    this.data = data;
    this.id = data.id;
    this.name = data.name;
  }

  _call(method, sub, opts) {
    return this.server.request(method, `/admin/v1/worlds/${encodeURIComponent(this.id)}${sub}`, opts);
  }

  /** A user by handle: {id, client_token}. */
  user(handle) {
    return pick(this.data.users, handle, 'user', this.name);
  }

  /**
   * An app by handle: {id, bot_user_id, bot_token, public_key, client_secret,
   * commands, guild_commands}, plus botToken and publicKey spelled the JS way.
   */
  app(handle) {
    const a = pick(this.data.apps, handle, 'app', this.name);
    return { ...a, botToken: a.bot_token, publicKey: a.public_key, clientSecret: a.client_secret };
  }

  /** A guild by handle: {id, roles, channels} (ids by handle). */
  guild(handle) {
    return pick(this.data.guilds, handle, 'guild', this.name);
  }

  /** A channel's id by handle, in any guild of the world ('general', or 'club/general'). */
  channel(handle) {
    const [g, c] = handle.includes('/') ? handle.split('/', 2) : [undefined, handle];
    for (const [gh, guild] of Object.entries(this.data.guilds ?? {})) {
      if (g && gh !== g) continue;
      if (guild.channels?.[c]) return guild.channels[c];
    }
    throw new Error(`world ${this.name} has no channel ${handle}`);
  }

  /** A member of the world who acts: world.as('alice').in('general').run('/ping'). */
  as(user) {
    return new Member(this, user);
  }

  /** POST …/act with a raw action ({as, in, run | click | …}), answering a Reply. */
  async act(action) {
    return new Reply(this, action, await this._call('POST', '/act', { body: action }));
  }

  /** Adds a fault (docs/faults.md: {kind, app?, route?, session?, count?, …}): the fault object. */
  fault(spec) {
    return this._call('POST', '/faults', { body: spec });
  }

  /** The world's faults, spent ones included, with remaining, matched and fired. */
  faults() {
    return this._call('GET', '/faults');
  }

  /** Deletes one fault by id, or every fault of the world without one. */
  async clearFaults(id) {
    await this._call('DELETE', id ? `/faults/${encodeURIComponent(id)}` : '/faults');
  }

  /** The gateway sessions of the world's apps (GET …/sessions). */
  sessions() {
    return this._call('GET', '/sessions');
  }

  /** The world as it is now, as a spec (GET …/export); {messages: true} keeps messages. */
  export({ messages = false } = {}) {
    return this._call('GET', '/export', { query: messages ? { messages: 'true' } : undefined });
  }

  /** Puts the world back to its spec: same ids and credentials. */
  async reset() {
    this._set(await this._call('POST', '/reset'));
    return this;
  }

  /** Deletes the world and everything it made; its bots are disconnected. */
  async delete() {
    await this._call('DELETE', '');
  }

  async [Symbol.asyncDispose]() {
    await this.delete();
  }
}

function pick(map, handle, what, world) {
  const v = map?.[handle];
  if (!v) throw new Error(`world ${world} has no ${what} ${handle}`);
  return v;
}

/** A user of the world, about to act somewhere. */
export class Member {
  constructor(world, user) {
    this.world = world;
    this.user = user;
  }

  /** Where the member acts: a channel's handle, 'guild/channel', a DM's handle, or an id. */
  in(place) {
    return new Place(this.world, this.user, place);
  }
}

/** A member in a place: what they can do there. Each answers a Reply. */
export class Place {
  constructor(world, user, place) {
    this.world = world;
    this.user = user;
    this.place = place;
  }

  _act(fields, opts = {}) {
    const action = { as: this.user, in: this.place, ...fields };
    if (opts.app !== undefined) action.app = opts.app;
    if (opts.wait !== undefined) action.wait = opts.wait;
    return this.world.act(action);
  }

  /** Runs a command line as typed: '/ban user:@bob reason:"spam"'. opts: {app, wait}. */
  run(line, opts) {
    return this._act({ run: line }, opts);
  }

  /** Types a command line whose last option is being typed; the Reply's choices are the app's. */
  autocomplete(line, opts) {
    return this._act({ autocomplete: line }, opts);
  }

  /** Runs the user command `name` on target (a user's handle or id). */
  userCommand(name, target, opts) {
    return this._act({ user_command: name, target }, opts);
  }

  /** Runs the message command `name` on target (a message id). */
  messageCommand(name, target, opts) {
    return this._act({ message_command: name, target }, opts);
  }

  /** Posts a plain message as the member. */
  say(content) {
    return this._act({ say: content });
  }

  /** Clicks the button with this custom_id or label on the newest message that has one. opts: {message, wait}. */
  click(button, opts = {}) {
    return this._act({ click: button, ...(opts.message ? { message: opts.message } : {}) }, opts);
  }

  /** Chooses values in the select menu with this custom_id or placeholder. opts: {message, wait}. */
  select(menu, values, opts = {}) {
    return this._act({ choose: menu, values, ...(opts.message ? { message: opts.message } : {}) }, opts);
  }

  /** Submits the last modal this member opened (or opts.modal, the id of the interaction that opened it). */
  submit(values, opts = {}) {
    return this._act({ submit: values, ...(opts.modal ? { modal: opts.modal } : {}) }, opts);
  }
}

/** What the member saw after acting: the answer of …/act. */
export class Reply {
  constructor(world, action, raw) {
    this.world = world;
    this.action = action;
    /** The answer as slashd wrote it: {message?, modal?, choices?, interaction?}. */
    this.raw = raw;
    /** The message the member sees (the answer, the deferred answer filled in, the clicked message edited), or null. */
    this.message = raw.message ?? null;
    /** {id, type, outcome} of the interaction (none for say). */
    this.interaction = raw.interaction ?? null;
    /** 'answered', 'deferred-then-filled', 'deferred-and-not-filled-within-wait' or 'failed'; null for say. */
    this.outcome = raw.interaction?.outcome ?? null;
    /** What the member was told when the interaction failed (the error envelope), or null. */
    this.error = raw.interaction?.error ?? raw.error ?? null;
    /** Autocomplete's choices ([{name, value}]), or []. */
    this.choices = raw.choices ?? [];
    /** The modal that opened, or null. */
    this.modal = raw.modal ? new Modal(this, raw.modal) : null;
  }

  get content() {
    return this.message?.content ?? '';
  }

  get embeds() {
    return this.message?.embeds ?? [];
  }

  get components() {
    return this.message?.components ?? [];
  }

  get attachments() {
    return this.message?.attachments ?? [];
  }

  /** Whether the message is ephemeral (flag 64): only the member sees it. */
  get ephemeral() {
    return ((this.message?.flags ?? 0) & 64) !== 0;
  }

  /** Every button and select of the message, however deeply nested (action rows, containers, sections). */
  get interactive() {
    const out = [];
    const walk = (cs) => {
      for (const c of cs ?? []) {
        if (c.type === 2 || (c.type >= 3 && c.type <= 8)) out.push(c);
        walk(c.components);
        if (c.accessory) walk([c.accessory]);
      }
    };
    walk(this.components);
    return out;
  }

  _place() {
    return new Place(this.world, this.action.as, this.action.in);
  }

  _messageId() {
    if (!this.message?.id) throw new Error('this reply has no message to act on');
    return this.message.id;
  }

  /** Clicks a button of this message, by label or custom_id. */
  click(button, opts = {}) {
    return this._place().click(button, { ...opts, message: this._messageId() });
  }

  /** Chooses values in a select menu of this message, by custom_id or placeholder. */
  select(menu, values, opts = {}) {
    return this._place().select(menu, values, { ...opts, message: this._messageId() });
  }
}

/** A modal the member has open. */
export class Modal {
  constructor(reply, raw) {
    this._reply = reply;
    this.raw = raw;
    this.customId = raw.custom_id;
    this.title = raw.title;
    this.components = raw.components ?? [];
  }

  /** Fills in and submits the modal: values by input custom_id ({ reason: 'x' }). */
  submit(values, opts = {}) {
    const modal = this._reply.interaction?.id;
    return this._reply._place().submit(values, { ...opts, ...(modal ? { modal } : {}) });
  }
}

/** The world's journal (docs/journal.md). */
export class Events {
  constructor(world) {
    this.world = world;
  }

  /** One page: {events, cursor}. opts: {after, type (string or list), limit, wait ('10s' or ms)}. */
  list({ after, type, limit, wait } = {}) {
    return this.world._call('GET', '/events', {
      query: {
        after,
        type: Array.isArray(type) ? type.join(',') : type,
        limit,
        wait: typeof wait === 'number' ? `${Math.max(0, Math.round(wait))}ms` : wait,
      },
    });
  }

  /** Every entry kept (after `after`, of `type`), paging to the end. */
  async all({ after, type } = {}) {
    const out = [];
    let cursor = after;
    for (;;) {
      const page = await this.list({ after: cursor, type, limit: 1000 });
      out.push(...page.events);
      cursor = page.cursor;
      if (page.events.length < 1000) return out;
    }
  }

  /** The cursor after the newest entry now: pass it as `after` to wait only for what comes next. */
  async cursor() {
    let cursor;
    for (;;) {
      const page = await this.list({ after: cursor, limit: 1000 });
      if (page.cursor) cursor = page.cursor;
      if (page.events.length < 1000) return cursor;
    }
  }

  /** What the bots got wrong: refused REST calls, failed interactions, 429s, dropped entries. */
  failures(opts = {}) {
    return this.all({ ...opts, type: 'failures' });
  }

  /**
   * The first entry (after opts.after, of opts.type) for which pred is true,
   * long-polling the journal; rejects after opts.timeout ms (default 10000).
   */
  async waitFor(pred, { timeout = 10_000, after, type } = {}) {
    const deadline = Date.now() + timeout;
    let cursor = after;
    for (;;) {
      const left = deadline - Date.now();
      const page = await this.list({ after: cursor, type, limit: 1000, wait: left > 0 ? Math.min(left, 50_000) : undefined });
      for (const e of page.events) if (await pred(e)) return e;
      if (page.cursor) cursor = page.cursor;
      if (Date.now() >= deadline && page.events.length < 1000) {
        throw new Error(`no event of world ${this.world.name} matched within ${timeout} ms`);
      }
    }
  }
}
