// A relying party built on openid-client v6 as its README shows, which
// internal/clienttest/openidclient's tests drive through slashd's OpenID
// Connect flows, the consent page in Chromium.
//
// Its configuration comes from client.discovery with one option beyond the
// defaults: allowInsecureRequests, the README's way to use an http:// issuer
// (slashd runs on httptest's plain HTTP). Everything else, the checks of the
// id_token (iss, aud, exp, iat, nonce, at_hash, auth_time against maxAge),
// PKCE, state, and the parsing of errors, is the library's.
//
// Environment: SLASHD_URL (the issuer), CLIENT_ID, CLIENT_SECRET, RP_PORT
// (the callback server listens on 127.0.0.1:RP_PORT; its /callback is the
// registered redirect URI).
//
// It reports JSON lines on stdout ({"event": ...}) and takes orders on stdin
// ({"do": ACTION, ...}, answered by {"event": "did", "do": ACTION, ...}):
//   authorize {flow, scope, params, maxAge, post, redeem}: a new authorization
//     request; did carries the URL for the browser (for post, the RP's page
//     that submits the request as a form).
//   userinfo {access_token, sub}: fetchUserInfo (sub "" skips the check).
//   refresh {refresh_token}: refreshTokenGrant.
//   revoke {token}: tokenRevocation.
//   resource {access_token, method}: fetchProtectedResource on the userinfo
//     endpoint.
// When the browser reaches /callback, the request is redeemed (redeem times
// at once, as a double-loaded callback page does) and a "callback" event
// tells each outcome. A library error is an outcome, not an "error" event:
// "error" is kept for the RP itself failing.
import * as client from "openid-client";
import http from "node:http";
import readline from "node:readline";

const report = (event, fields = {}) => console.log(JSON.stringify({ event, ...fields }));

const issuer = process.env.SLASHD_URL;
const port = Number(process.env.RP_PORT);
const redirectUri = `http://127.0.0.1:${port}/callback`;

// describe turns what openid-client threw into plain fields: its class
// (AuthorizationResponseError, ResponseBodyError,
// WWWAuthenticateChallengeError, ClientError, TypeError), code, the OAuth
// error and its description, the HTTP status, and the WWW-Authenticate
// challenges (a WWWAuthenticateChallengeError's cause).
function describe(err) {
    const out = { name: err?.name, code: err?.code, message: String(err?.message ?? err) };
    for (const k of ["error", "error_description", "status"]) {
        if (err?.[k] !== undefined) out[k] = err[k];
    }
    if (err?.name === "WWWAuthenticateChallengeError") {
        out.challenges = err.cause;
    } else if (err?.name === "ResponseBodyError") {
        out.body = err.cause;
    } else if (err?.cause instanceof Error) {
        out.cause = { name: err.cause.name, code: err.cause.code, message: err.cause.message };
    }
    return out;
}

function tokensOf(tokens) {
    return {
        ok: true,
        claims: tokens.claims() ?? null,
        access_token: tokens.access_token,
        refresh_token: tokens.refresh_token ?? null,
        scope: tokens.scope ?? null,
        token_type: tokens.token_type,
        expires_in: tokens.expiresIn() ?? null,
    };
}

const escapeHTML = s => String(s).replace(/[&<>"']/g, c => `&#${c.charCodeAt(0)};`);

const config = await client.discovery(new URL(issuer), process.env.CLIENT_ID, process.env.CLIENT_SECRET, undefined, {
    execute: [client.allowInsecureRequests],
});

const flows = new Map(); // flow name → its request's checks and URL
const byState = new Map(); // state → flow name

async function authorize({ flow, scope, params = {}, maxAge, post = false, redeem = 1 }) {
    const pkceCodeVerifier = client.randomPKCECodeVerifier();
    const code_challenge = await client.calculatePKCECodeChallenge(pkceCodeVerifier);
    const state = client.randomState();
    const openid = scope.split(" ").includes("openid");
    const nonce = openid ? client.randomNonce() : undefined;
    const parameters = {
        redirect_uri: redirectUri,
        scope,
        code_challenge,
        code_challenge_method: "S256",
        state,
        ...(nonce ? { nonce } : {}),
        ...params,
    };
    const url = client.buildAuthorizationUrl(config, parameters);
    flows.set(flow, { pkceCodeVerifier, state, nonce, maxAge, redeem, url });
    byState.set(state, flow);
    return { url: post ? `http://127.0.0.1:${port}/start-post?flow=${encodeURIComponent(flow)}` : url.href, request: url.href };
}

// postPage is the request of flow as a form the browser submits on load:
// the parameters openid-client built, POSTed to the authorization endpoint
// (OpenID Connect Core §3.1.2.1). openid-client 6.9.0 exports no helper
// that renders such a page (no buildAuthorizationUrlWithForm): the RP
// writes the form from what buildAuthorizationUrl built, so the request's
// parameters are still all openid-client's.
function postPage(flow) {
    const { url } = flows.get(flow);
    const inputs = [...url.searchParams]
        .map(([k, v]) => `<input type="hidden" name="${escapeHTML(k)}" value="${escapeHTML(v)}">`)
        .join("");
    return `<!DOCTYPE html><html><head><title>Requesting authorization</title></head>` +
        `<body onload="document.forms[0].submit()"><form method="post" action="${escapeHTML(url.origin + url.pathname)}">` +
        `${inputs}<noscript><button type="submit">Continue</button></noscript></form></body></html>`;
}

// redeem runs authorizationCodeGrant on the callback URL, times at once.
async function redeem(flow, currentUrl) {
    const f = flows.get(flow);
    const checks = { pkceCodeVerifier: f.pkceCodeVerifier, expectedState: f.state };
    if (f.nonce) checks.expectedNonce = f.nonce;
    if (f.maxAge !== undefined && f.maxAge !== null) checks.maxAge = f.maxAge;
    const settled = await Promise.allSettled(
        Array.from({ length: f.redeem }, () => client.authorizationCodeGrant(config, currentUrl, checks)));
    return settled.map(s => (s.status === "fulfilled" ? tokensOf(s.value) : { ok: false, ...describe(s.reason) }));
}

async function callback(req, res) {
    const currentUrl = new URL(req.url, `http://127.0.0.1:${port}`);
    const flow = byState.get(currentUrl.searchParams.get("state"));
    if (flow === undefined) {
        report("error", { where: "callback", message: `no flow has the state of ${currentUrl.href}` });
        res.writeHead(400, { "content-type": "text/plain" }).end("unknown state");
        return;
    }
    const outcomes = await redeem(flow, currentUrl);
    report("callback", { flow, query: Object.fromEntries(currentUrl.searchParams), outcomes });
    const summary = outcomes.map(o => (o.ok ? "signed in" : `${o.name}: ${o.error ?? o.message}`)).join("; ");
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" })
        .end(`<!DOCTYPE html><html><head><title>Done</title></head><body><p id="done">${escapeHTML(flow)}: ${escapeHTML(summary)}</p></body></html>`);
}

const server = http.createServer((req, res) => {
    const url = new URL(req.url, `http://127.0.0.1:${port}`);
    if (req.method === "GET" && url.pathname === "/callback") {
        callback(req, res).catch(err => {
            report("error", { where: "callback", message: String(err?.stack ?? err) });
            res.writeHead(500).end();
        });
        return;
    }
    if (req.method === "GET" && url.pathname === "/start-post" && flows.has(url.searchParams.get("flow"))) {
        res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(postPage(url.searchParams.get("flow")));
        return;
    }
    res.writeHead(404, { "content-type": "text/plain" }).end("not found");
});

// outcome runs an openid-client call and gives its result or its error.
async function outcome(fn) {
    try {
        return { ok: true, ...(await fn()) };
    } catch (err) {
        return { ok: false, ...describe(err) };
    }
}

const orders = {
    authorize,
    userinfo: ({ access_token, sub }) => outcome(async () => ({
        userinfo: await client.fetchUserInfo(config, access_token, sub ? sub : client.skipSubjectCheck),
    })),
    refresh: ({ refresh_token }) => outcome(async () => tokensOf(await client.refreshTokenGrant(config, refresh_token))),
    revoke: ({ token }) => outcome(async () => {
        await client.tokenRevocation(config, token);
        return {};
    }),
    resource: ({ access_token, method }) => outcome(async () => {
        const res = await client.fetchProtectedResource(config, access_token,
            new URL(config.serverMetadata().userinfo_endpoint), method);
        return { status: res.status, body: await res.json() };
    }),
};

server.listen(port, "127.0.0.1", () => {
    report("ready", { issuer: config.serverMetadata().issuer, redirect_uri: redirectUri });
});

const rl = readline.createInterface({ input: process.stdin });
rl.on("line", async line => {
    let order;
    try {
        order = JSON.parse(line);
        const run = orders[order.do];
        if (!run) throw new Error(`unknown order ${order.do}`);
        report("did", { do: order.do, ...(await run(order)) });
    } catch (err) {
        report("error", { where: order?.do ?? "order", message: String(err?.stack ?? err) });
    }
});
rl.on("close", () => {
    server.close();
    server.closeAllConnections();
});
