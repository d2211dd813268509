// Types of @slashd/testkit (index.js). Hand-written: the package has no build step.

/** A JSON object as slashd answers it. */
export type Json = { [key: string]: any };

/** An answer of slashd's that is not a success. */
export class SlashdError extends Error {
  /** The HTTP status (0 when no server was reached, as connect() without one). */
  status: number;
  /** slashd's JSON error code (10063 Unknown Command, 50035 Invalid Form Body, …). */
  code: number | undefined;
  /** The envelope's message. */
  apiMessage: string;
  /** Field errors: {field: {_errors: [{code, message}]}}. */
  errors: Json | undefined;
  /** The whole answer body. */
  body: unknown;
}

export interface ConnectOptions {
  url?: string;
  adminToken?: string;
  /** Where to read SLASHD_URL, SLASHD_ADMIN_TOKEN, SLASHD_WORLDS (default process.env). */
  env?: Record<string, string | undefined>;
}

export interface StartOptions {
  /** The slashd binary; else $SLASHD_BIN, `slashd` on PATH, or a go build of a slashd checkout. */
  bin?: string;
  /** World spec files applied at start (`serve --world`). */
  worlds?: string[];
  /** How long to wait for /healthz, in ms (default 60000). */
  readyTimeout?: number;
  env?: Record<string, string | undefined>;
}

export interface RequestOptions {
  body?: unknown;
  /** The Authorization header (default `Admin <adminToken>`). */
  auth?: string;
  query?: Record<string, string | number | boolean | undefined | null>;
  signal?: AbortSignal;
}

export class Server {
  constructor(opts: { url: string; adminToken: string; worlds?: Record<string, Json> });
  /** The base URL, http://127.0.0.1:PORT. */
  readonly url: string;
  readonly adminToken: string;
  /** The worlds `slashd test` announced (SLASHD_WORLDS), by name. */
  readonly worlds: Record<string, Json>;
  /** The REST base for a bot library: `${url}/api` (discord.js's `rest: { api }`). */
  readonly api: string;
  request<T = any>(method: string, path: string, opts?: RequestOptions): Promise<T>;
  /** A new world from a spec, or the world of this name (or id). */
  world(spec: Json | string): Promise<World>;
  listWorlds(): Promise<Json[]>;
  /** Stops a started server and removes its data directory; nothing for a connected one. */
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

export function connect(opts?: ConnectOptions): Server;
export function start(opts?: StartOptions): Promise<Server>;
/** Whether SLASHD_URL and SLASHD_ADMIN_TOKEN are set (running under `slashd test`). */
export function underSlashdTest(env?: Record<string, string | undefined>): boolean;
export function findBinary(bin?: string, env?: Record<string, string | undefined>): Promise<{ path: string; cleanup(): Promise<void> }>;

export interface AppCredentials extends Json {
  id: string;
  bot_user_id: string;
  bot_token: string;
  public_key: string;
  client_secret: string;
  commands: Record<string, string>;
  guild_commands: Record<string, Record<string, string>>;
  botToken: string;
  publicKey: string;
  clientSecret: string;
}

export interface Fault extends Json {
  id: string;
  kind: string;
  remaining?: number;
  matched: number;
  fired: number;
}

export interface FaultSpec extends Json {
  kind: 'rest.429' | 'rest.500' | 'rest.502' | 'rest.delay' | 'delivery.late' | 'delivery.drop' | 'delivery.answered'
    | 'gateway.reconnect' | 'gateway.invalid_session' | 'gateway.close' | 'gateway.withhold_ack' | 'gateway.delay_dispatch';
  app?: string;
  route?: string;
  session?: string;
  count?: number;
  probability?: number;
  seed?: number;
}

export class World {
  readonly server: Server;
  /** The world object as slashd answered it. */
  readonly data: Json;
  readonly id: string;
  readonly name: string;
  readonly events: Events;
  readonly clock: { advance(by: string): Promise<{ offset_ms: number; now: string }> };
  user(handle: string): { id: string; client_token: string };
  app(handle: string): AppCredentials;
  guild(handle: string): { id: string; roles: Record<string, string>; channels: Record<string, string> };
  /** A channel id by handle ('general' or 'club/general'). */
  channel(handle: string): string;
  as(user: string): Member;
  act(action: Json): Promise<Reply>;
  fault(spec: FaultSpec): Promise<Fault>;
  faults(): Promise<Fault[]>;
  clearFaults(id?: string): Promise<void>;
  sessions(): Promise<Json[]>;
  export(opts?: { messages?: boolean }): Promise<Json>;
  reset(): Promise<World>;
  delete(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

export class Member {
  in(place: string): Place;
}

export interface ActOptions {
  /** The app's handle or id, where several apps have the command. */
  app?: string;
  /** How long slashd waits for a deferred answer ('10s' by default, at most '30s'). */
  wait?: string;
}

export class Place {
  run(line: string, opts?: ActOptions): Promise<Reply>;
  autocomplete(line: string, opts?: ActOptions): Promise<Reply>;
  userCommand(name: string, target: string, opts?: ActOptions): Promise<Reply>;
  messageCommand(name: string, target: string, opts?: ActOptions): Promise<Reply>;
  say(content: string): Promise<Reply>;
  click(button: string, opts?: ActOptions & { message?: string }): Promise<Reply>;
  select(menu: string, values: string[], opts?: ActOptions & { message?: string }): Promise<Reply>;
  submit(values: Record<string, string>, opts?: ActOptions & { modal?: string }): Promise<Reply>;
}

export type Outcome = 'answered' | 'deferred-then-filled' | 'deferred-and-not-filled-within-wait' | 'failed';

export class Reply {
  readonly raw: Json;
  readonly message: Json | null;
  readonly interaction: { id: string; type: number; outcome: Outcome; error?: Json } | null;
  readonly outcome: Outcome | null;
  readonly error: Json | null;
  readonly choices: { name: string; value: string | number }[];
  readonly modal: Modal | null;
  readonly content: string;
  readonly embeds: Json[];
  readonly components: Json[];
  readonly attachments: Json[];
  readonly ephemeral: boolean;
  /** Every button and select of the message. */
  readonly interactive: Json[];
  click(button: string, opts?: ActOptions): Promise<Reply>;
  select(menu: string, values: string[], opts?: ActOptions): Promise<Reply>;
}

export class Modal {
  readonly raw: Json;
  readonly customId: string;
  readonly title: string;
  readonly components: Json[];
  submit(values: Record<string, string>, opts?: ActOptions): Promise<Reply>;
}

export interface JournalEvent extends Json {
  cursor: string;
  id: string;
  type: string;
  at: string;
}

export interface EventsQuery {
  after?: string;
  type?: string | string[];
}

export class Events {
  list(opts?: EventsQuery & { limit?: number; wait?: string | number }): Promise<{ events: JournalEvent[]; cursor: string }>;
  all(opts?: EventsQuery): Promise<JournalEvent[]>;
  cursor(): Promise<string | undefined>;
  failures(opts?: { after?: string }): Promise<JournalEvent[]>;
  waitFor(pred: (e: JournalEvent) => boolean | Promise<boolean>, opts?: EventsQuery & { timeout?: number }): Promise<JournalEvent>;
}
