// api.js: the two APIs the playground is a client of. Admin calls go to
// /ui/admin/v1/…, which the server forwards to /admin/v1/… with the
// session's admin token (the page never sees it); /api/v10 calls carry a
// user's client token, as a chat client's do.

let csrf = "";

export class APIError extends Error {
  constructor(status, body) {
    const msg = body && typeof body === "object" && body.message ? body.message : `HTTP ${status}`;
    super(msg);
    this.status = status;
    this.body = body;
  }
}

// session loads the CSRF token that state-changing admin calls send.
export async function session() {
  const r = await fetch("/ui/session", { credentials: "same-origin" });
  if (r.status === 401) {
    location.assign("/");
    throw new APIError(401, null);
  }
  csrf = (await r.json()).csrf_token;
}

export function csrfToken() { return csrf; }

async function call(url, method, headers, body, retries = 2, signal = undefined) {
  const h = { ...headers };
  if (body !== undefined) h["Content-Type"] = "application/json";
  const r = await fetch(url, {
    method, headers: h, credentials: "same-origin", signal,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await r.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch { data = text; }
  if (r.status === 429 && retries > 0 && data && data.retry_after !== undefined) {
    await new Promise((res) => setTimeout(res, Math.min(5, data.retry_after) * 1000 + 50));
    return call(url, method, headers, body, retries - 1, signal);
  }
  if (!r.ok) {
    if (r.status === 401 && url.startsWith("/ui/")) location.assign("/");
    throw new APIError(r.status, data);
  }
  return data;
}

// admin calls the admin API: path is relative to /admin/v1.
export function admin(method, path, body) {
  const headers = method === "GET" ? {} : { "X-CSRF-Token": csrf };
  return call("/ui/admin/v1" + path, method, headers, body);
}

// adminGet is a GET of the admin API that signal (an AbortSignal) can
// abandon: a long-poll of a view that is going away.
export function adminGet(path, signal) {
  return call("/ui/admin/v1" + path, "GET", {}, undefined, 2, signal);
}

// discord calls /api/v10 with a client token.
export function discord(method, path, token, body) {
  return call("/api/v10" + path, method, { Authorization: token }, body);
}

// liveTicket asks for a chat stream of channel as user (whose client
// token proves they may read it); the stream is
// /ui/live/chat?ticket=… (see chat.js).
export function liveTicket(token, channel, user) {
  return call("/ui/live/chat", "POST", { "X-CSRF-Token": csrf, Authorization: token },
    { channel_id: channel, user_id: user }).then((r) => r.ticket);
}

const tokens = new Map();

// clientToken mints (once per page) a client token for a user through
// the admin API.
export async function clientToken(userID) {
  if (!tokens.has(userID)) {
    tokens.set(userID, admin("POST", `/users/${userID}/tokens`, { type: "client" }).then((t) => t.token));
  }
  try {
    return await tokens.get(userID);
  } catch (e) {
    tokens.delete(userID);
    throw e;
  }
}

export async function logout() {
  await fetch("/ui/logout", { method: "POST", headers: { "X-CSRF-Token": csrf }, credentials: "same-origin" });
  location.assign("/");
}
