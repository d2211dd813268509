// The bot's tests: `slashd test --world world.json -- node --test` (or
// plain `node --test`, which starts slashd itself). The bot runs in this
// process, logged in to slashd's gateway; alice and bob use it through the
// kit and the tests check what they see.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { connect, start, underSlashdTest } from '@slashd/testkit';
import { Events } from 'discord.js';
import { createClient } from '../bot.js';
import { deployCommands } from '../deploy-commands.js';

let server;
let world;
let client;
let general; // alice in #general
let fault429; // the window of the 429 test: its failures are the ones it made on purpose

before(async () => {
  server = underSlashdTest() ? connect() : await start({ worlds: ['world.json'] });
  world = await server.world('djsbot');
  const app = world.app('djsbot');
  await deployCommands({ token: app.botToken, clientId: app.id, guildId: world.guild('club').id, api: server.api });
  client = createClient({ api: server.api });
  const ready = new Promise((resolve) => client.once(Events.ClientReady, resolve));
  await client.login(app.botToken);
  await ready;
  general = world.as('alice').in('general');
});

after(async () => {
  await client?.destroy();
  await server?.close();
});

test('a command with options', async () => {
  const reply = await general.run('/greet name:Bob times:2');
  assert.equal(reply.content, 'Hello, Bob! Hello, Bob!');
  assert.equal(reply.ephemeral, false);
});

test('an ephemeral reply', async () => {
  const reply = await world.as('bob').in('general').run('/secret');
  assert.equal(reply.content, 'The cake is a lie.');
  assert.equal(reply.ephemeral, true);
});

test('defer, then edit and follow up', async () => {
  const reply = await general.run('/report');
  assert.equal(reply.outcome, 'deferred-then-filled');
  assert.equal(reply.content, 'Report for club: all good.');
  const followUp = await world.events.waitFor(
    (e) => e.type === 'message.created' && e.interaction_id === reply.interaction.id && e.message_id !== reply.message.id,
  );
  assert.equal(followUp.message.content, 'Report sent to the archive.');
});

test('a button click edits the message', async () => {
  const vote = await general.run('/vote');
  assert.deepEqual(vote.interactive.map((b) => b.label), ['Accept', 'Reject']);
  const clicked = await vote.click('Accept');
  assert.equal(clicked.message.id, vote.message.id);
  assert.equal(clicked.content, 'Proposal accepted by alice.');
  assert.deepEqual(clicked.components, []);
});

test('a modal', async () => {
  const opened = await general.run('/feedback');
  assert.equal(opened.modal.title, 'Feedback');
  const thanks = await opened.modal.submit({ reason: 'more cake' });
  assert.equal(thanks.content, 'Thanks for your feedback: more cake');
  assert.equal(thanks.ephemeral, true);
});

test('/ban is hidden from a member who may not ban', async () => {
  const banned = await general.run('/ban target:@bob');
  assert.equal(banned.content, 'Banned bob (not really).');
  await assert.rejects(world.as('bob').in('general').run('/ban target:@alice'), (err) => {
    assert.equal(err.status, 403);
    assert.equal(err.code, 50013); // Missing Permissions
    return true;
  });
});

test('the bot survives a 429 on its answer', async () => {
  const from = await world.events.cursor();
  await world.fault({
    kind: 'rest.429',
    app: 'djsbot',
    route: 'POST /api/v10/interactions/{interaction_id}/{interaction_token}/callback',
    retry_after: 0.5,
  });
  const reply = await general.run('/greet name:again');
  assert.equal(reply.content, 'Hello, again!'); // discord.js waited retry_after out and answered again
  const hit = await world.events.waitFor((e) => e.type === 'fault.fired', { after: from });
  assert.equal(hit.kind, 'rest.429');
  fault429 = { from, to: await world.events.cursor() };
});

test('the bot survives a RECONNECT', async () => {
  const from = await world.events.cursor();
  await world.fault({ kind: 'gateway.reconnect', app: 'djsbot' });
  await world.events.waitFor((e) => e.type === 'gateway.resume', { after: from, timeout: 20_000 });
  const reply = await general.run('/greet name:back');
  assert.equal(reply.content, 'Hello, back!');
});

test('the bot made no mistake', async () => {
  // Every failure in the journal is one of the 429s the 429 test asked for.
  const failures = await world.events.failures();
  const unexpected = failures.filter(
    (e) => !(fault429 && BigInt(e.cursor) > BigInt(fault429.from ?? 0) && BigInt(e.cursor) <= BigInt(fault429.to) &&
      (e.type === 'rate_limit.hit' || e.status === 429)),
  );
  assert.deepEqual(unexpected, []);
});
