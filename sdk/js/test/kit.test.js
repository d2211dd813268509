// The kit against a real slashd: start() runs the binary (SLASHD_BIN, PATH,
// or a go build of this checkout), and a small bot answers over HTTP as an
// Interactions Endpoint (Ed25519-verified, as slashd requires), so that
// every action of the kit meets a real answer.
import assert from 'node:assert/strict';
import { createPublicKey, verify } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { after, before, describe, test } from 'node:test';
import * as kit from '../index.js';
import { SlashdError, connect, start } from '../index.js';

// endpointBot answers interactions: PING, /ping, /echo, /secret, /form
// (a modal), /pick's autocomplete, the buttons and select of /panel.
function endpointBot() {
  let publicKey;
  const answer = (i) => {
    const name = i.data?.name;
    const opt = (n) => i.data?.options?.find((o) => o.name === n)?.value;
    if (i.type === 1) return { type: 1 };
    if (i.type === 4) {
      const typed = String(opt('fruit') ?? '');
      return { type: 8, data: { choices: ['mango', 'apple'].filter((f) => f.startsWith(typed)).map((f) => ({ name: f, value: f })) } };
    }
    if (i.type === 2 && name === 'ping') return { type: 4, data: { content: 'pong' } };
    if (i.type === 2 && name === 'echo') return { type: 4, data: { content: `echo: ${opt('text')}` } };
    if (i.type === 2 && name === 'secret') return { type: 4, data: { content: 'only you', flags: 64 } };
    if (i.type === 2 && name === 'form') {
      return { type: 9, data: { custom_id: 'why', title: 'Why?', components: [{ type: 1, components: [{ type: 4, custom_id: 'reason', label: 'Reason', style: 1 }] }] } };
    }
    if (i.type === 2 && name === 'panel') {
      return {
        type: 4,
        data: {
          content: 'panel',
          components: [
            { type: 1, components: [{ type: 2, style: 1, label: 'Accept', custom_id: 'accept' }] },
            { type: 1, components: [{ type: 3, custom_id: 'menu', options: [{ label: 'A', value: 'a' }, { label: 'B', value: 'b' }] }] },
          ],
        },
      };
    }
    if (i.type === 3) {
      const what = i.data.component_type === 2 ? `clicked ${i.data.custom_id}` : `chose ${i.data.values.join(',')}`;
      return { type: 7, data: { content: what, components: [] } };
    }
    if (i.type === 5) return { type: 4, data: { content: `because ${i.data.components[0].components[0].value}` } };
    return { type: 4, data: { content: 'unknown' } };
  };
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const sig = Buffer.from(req.headers['x-signature-ed25519'] ?? '', 'hex');
      const ts = req.headers['x-signature-timestamp'] ?? '';
      const ok = publicKey && sig.length === 64 && verify(null, Buffer.concat([Buffer.from(ts), body]), publicKey, sig);
      if (!ok) {
        res.writeHead(401).end('bad signature');
        return;
      }
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(answer(JSON.parse(body))));
    });
  });
  return {
    listen: () => new Promise((r) => server.listen(0, '127.0.0.1', () => r(`http://127.0.0.1:${server.address().port}/`))),
    setKey: (hex) => {
      const der = Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), Buffer.from(hex, 'hex')]);
      publicKey = createPublicKey({ key: der, format: 'der', type: 'spki' });
    },
    close: () => new Promise((r) => server.close(r)),
  };
}

const str = (name, description, extra = {}) => ({ type: 3, name, description, ...extra });
const spec = (endpoint) => ({
  name: 'kit',
  users: { alice: {}, bob: {} },
  apps: {
    kitbot: {
      interactions_endpoint_url: endpoint,
      commands: [
        { name: 'ping', description: 'Pong' },
        { name: 'echo', description: 'Echo', options: [str('text', 'What', { required: true })] },
        { name: 'secret', description: 'Ephemeral' },
        { name: 'form', description: 'A modal' },
        { name: 'panel', description: 'Buttons' },
        { name: 'pick', description: 'Autocomplete', options: [str('fruit', 'Which', { autocomplete: true })] },
      ],
    },
  },
  guilds: {
    club: {
      owner: 'alice',
      channels: { general: {} },
      members: { bob: {} },
      install: { kitbot: { scopes: ['bot', 'applications.commands'] } },
    },
  },
});

describe('testkit against slashd', () => {
  let server;
  let world;
  let bot;

  before(async () => {
    server = await start();
    bot = endpointBot();
    world = await server.world(spec(await bot.listen()));
    bot.setKey(world.app('kitbot').publicKey);
  });

  after(async () => {
    await world?.delete().catch(() => {});
    await bot?.close();
    await server?.close();
  });

  test('world(spec) answers ids and credentials by handle; world(name) finds it again', async () => {
    assert.match(world.id, /^\d+$/);
    assert.match(world.user('alice').id, /^\d+$/);
    assert.ok(world.app('kitbot').botToken);
    assert.ok(world.app('kitbot').commands.ping);
    assert.equal(world.channel('general'), world.guild('club').channels.general);
    const again = await server.world('kit');
    assert.equal(again.id, world.id);
    assert.throws(() => world.user('carol'), /no user carol/);
  });

  test('run answers the reply: content, outcome, ephemeral', async () => {
    const alice = world.as('alice').in('general');
    const pong = await alice.run('/ping');
    assert.equal(pong.content, 'pong');
    assert.equal(pong.outcome, 'answered');
    assert.equal(pong.ephemeral, false);
    assert.equal((await alice.run('/echo text:"hi there"')).content, 'echo: hi there');
    const secret = await world.as('bob').in('general').run('/secret');
    assert.equal(secret.content, 'only you');
    assert.equal(secret.ephemeral, true);
  });

  test('click by label and by custom_id, select, edit the message', async () => {
    const alice = world.as('alice').in('general');
    const panel = await alice.run('/panel');
    assert.deepEqual(panel.interactive.map((c) => c.custom_id), ['accept', 'menu']);
    const clicked = await panel.click('Accept');
    assert.equal(clicked.content, 'clicked accept');
    assert.equal(clicked.message.id, panel.message.id);
    assert.equal((await (await alice.run('/panel')).click('accept')).content, 'clicked accept');
    const chose = await (await alice.run('/panel')).select('menu', ['b']);
    assert.equal(chose.content, 'chose b');
  });

  test('a modal opens and is submitted', async () => {
    const form = await world.as('bob').in('general').run('/form');
    assert.ok(form.modal);
    assert.equal(form.modal.title, 'Why?');
    const done = await form.modal.submit({ reason: 'x' });
    assert.equal(done.content, 'because x');
  });

  test('autocomplete answers the choices; say posts a message', async () => {
    const ac = await world.as('alice').in('general').autocomplete('/pick fruit:ma');
    assert.deepEqual(ac.choices.map((c) => c.value), ['mango']);
    const said = await world.as('alice').in('general').say('hello');
    assert.equal(said.content, 'hello');
    assert.equal(said.interaction, null);
  });

  test('events.waitFor long-polls the journal', async () => {
    const from = await world.events.cursor();
    const pong = await world.as('alice').in('general').run('/ping');
    const e = await world.events.waitFor((ev) => ev.interaction_id === pong.interaction.id, { type: 'interaction.answered', after: from });
    assert.equal(e.type, 'interaction.answered');
    await assert.rejects(world.events.waitFor(() => false, { timeout: 300, after: await world.events.cursor() }), /matched within 300 ms/);
  });

  test('faults, failures and the clock', async () => {
    assert.deepEqual(await world.events.failures(), []);
    const fault = await world.fault({ kind: 'rest.429', app: 'kitbot', route: 'GET /users/@me', retry_after: 0.1 });
    assert.equal(fault.kind, 'rest.429');
    const res = await fetch(`${server.url}/api/v10/users/@me`, { headers: { Authorization: `Bot ${world.app('kitbot').botToken}` } });
    await res.arrayBuffer();
    assert.equal(res.status, 429);
    const hit = await world.events.waitFor((e) => e.type === 'rate_limit.hit', { type: 'failures' });
    assert.equal(hit.route, 'GET /api/v10/users/@me');
    assert.ok((await world.events.failures()).length >= 1);
    assert.equal((await world.faults())[0].fired, 1);
    await world.clearFaults();
    assert.deepEqual(await world.faults(), []);
    const clock = await world.clock.advance('15m');
    assert.equal(clock.offset_ms, 900_000);
  });

  test('errors are typed with status, code and field errors', async () => {
    const unknown = await world.as('alice').in('general').run('/nope').catch((e) => e);
    assert.ok(unknown instanceof SlashdError, String(unknown));
    assert.equal(unknown.status, 404);
    assert.equal(unknown.code, 10063);
    const bad = await server.world({ name: 'bad', guilds: { g: { owner: 'nobody' } } }).catch((e) => e);
    assert.ok(bad instanceof SlashdError);
    assert.equal(bad.status, 400);
    assert.equal(bad.code, 50035);
    assert.ok(bad.errors.guilds.g.owner._errors[0].code);
    assert.match(bad.message, /guilds\.g\.owner: UNKNOWN_USER/);
  });

  test('reset keeps ids; delete removes the world', async () => {
    const other = await server.world({ name: 'gone', users: { carol: {} } });
    const id = other.user('carol').id;
    await other.reset();
    assert.equal(other.user('carol').id, id);
    await other.delete();
    const err = await server.world('gone').catch((e) => e);
    assert.equal(err.status, 404);
    assert.equal(err.code, 10000);
  });

  test('connect() takes {url, adminToken} or refuses without a server', async () => {
    const again = connect({ url: server.url, adminToken: server.adminToken });
    assert.ok((await again.listWorlds()).some((w) => w.name === 'kit'));
    assert.throws(() => connect({ env: {} }), SlashdError);
  });
});

test('start() says why slashd did not start', async () => {
  await assert.rejects(start({ bin: '/nonexistent/slashd' }), /slashd not found at \/nonexistent\/slashd \(the bin option\)/);
  // node is no slashd: it exits at once, complaining of a module "serve".
  await assert.rejects(start({ bin: process.execPath }), /slashd serve exited \(1\) before listening:\n.*serve/s);
});

test('index.d.ts declares every export of index.js, and no other', async () => {
  const types = await readFile(new URL('../index.d.ts', import.meta.url), 'utf8');
  const declared = [...types.matchAll(/^export (?:class|function) (\w+)/gm)].map((m) => m[1]).sort();
  assert.deepEqual(declared, Object.keys(kit).sort());
});
