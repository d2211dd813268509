// A discord.js v14 bot aimed at slashd, run by ../discordjs_test.go.
//
// It logs in the way a bot developer points discord.js at slashd: the
// REST base goes in `rest.api`, and @discordjs/ws finds the gateway by
// asking GET /gateway/bot through that REST client. It answers every
// chat-input command with interaction.reply and reports what it sees as
// one JSON object per line on stdout ({"event": …}); diagnostics go to
// stderr. It stops (client.destroy()) when stdin closes or on SIGTERM.
//
// Environment:
//   SLASHD_API        REST base, e.g. http://127.0.0.1:8080/api
//   SLASHD_BOT_TOKEN  the app's bot token (without "Bot ")
//   SLASHD_DEBUG      set to log discord.js's debug events to stderr

import process from 'node:process';
import { Client, Events, GatewayIntentBits } from 'discord.js';

const api = process.env.SLASHD_API;
const token = process.env.SLASHD_BOT_TOKEN;
if (!api || !token) {
  console.error('SLASHD_API and SLASHD_BOT_TOKEN are required');
  process.exit(2);
}

function emit(event, fields = {}) {
  process.stdout.write(JSON.stringify({ event, ...fields }) + '\n');
}

function describeError(err) {
  return {
    name: err?.name,
    message: String(err?.message ?? err),
    code: err?.code,
    status: err?.status,
    method: err?.method,
    url: err?.url,
    rawError: err?.rawError,
  };
}

const started = Date.now();
const client = new Client({
  // Guilds: discord.js then waits for a GUILD_CREATE of every guild READY
  // lists before it emits ready. The timeout is longer than the Go test
  // waits, so a missing GUILD_CREATE fails the test instead of passing late.
  intents: [GatewayIntentBits.Guilds],
  waitGuildTimeout: 60_000,
  rest: { api, timeout: 10_000, retries: 0 },
});

client.on(Events.Error, (err) => console.error('client error:', err));
client.on(Events.Warn, (msg) => console.error('client warn:', msg));
client.on(Events.ShardError, (err, shard) => console.error(`shard ${shard} error:`, err));
// Connection trouble is reported on stdout too, so the test can insist
// there was none.
client.on(Events.ShardDisconnect, (ev, shard) => emit('shardDisconnect', { shard, code: ev?.code }));
client.on(Events.ShardReconnecting, (shard) => emit('shardReconnecting', { shard }));
client.on(Events.ShardResume, (shard, replayed) => emit('shardResume', { shard, replayed }));
client.on(Events.Invalidated, () => emit('invalidated'));
client.on(Events.ShardReady, (shard) => emit('shardReady', { shard }));
client.on(Events.Debug, (msg) => {
  // discord.js reports an op 11 Heartbeat ACK only as a debug message.
  const ack = /Heartbeat acknowledged, latency of (-?\d+)ms/.exec(msg);
  if (ack) emit('heartbeatAck', { latency: Number(ack[1]) });
  // So are a websocket that ended without one of the gateway's close
  // codes (a cut connection is 1006), and what @discordjs/ws decided:
  // resume, or start over with identify.
  const closed = /The gateway closed with an unexpected code (\d+), attempting to (\w+)/.exec(msg);
  if (closed) emit('gatewayClosed', { code: Number(closed[1]), then: closed[2] });
  const resuming = /Resuming session\s+resume url: (\S+)\s+sequence: (\d+)/.exec(msg);
  if (resuming) emit('resuming', { url: resuming[1], sequence: Number(resuming[2]) });
  if (/Failed to connect to the gateway URL specified due to a network error/.test(msg)) emit('networkError');
  if (process.env.SLASHD_DEBUG) console.error('debug:', msg);
});
// Every dispatch as it arrived (op 0): its type and sequence number, and
// READY's session.
client.on(Events.Raw, (packet) => {
  if (packet?.op !== 0) return;
  emit('dispatch', {
    t: packet.t,
    s: packet.s,
    sessionId: packet.t === 'READY' ? packet.d?.session_id ?? null : undefined,
    resumeURL: packet.t === 'READY' ? packet.d?.resume_gateway_url ?? null : undefined,
  });
});

// on, not once: discord.js emits it once per login, so a second one would
// be a bug worth seeing.
client.on(Events.ClientReady, (c) => {
  emit('ready', {
    ms: Date.now() - started,
    user: { id: c.user.id, username: c.user.username, bot: c.user.bot },
    application: c.application?.id ?? null,
    guilds: c.guilds.cache.map((g) => ({
      id: g.id,
      name: g.name,
      available: g.available,
      channels: g.channels.cache.map((ch) => ({ id: ch.id, name: ch.name, type: ch.type })),
      me: g.members.me?.id ?? null,
    })),
  });
});

client.on(Events.InteractionCreate, async (interaction) => {
  if (!interaction.isChatInputCommand()) {
    emit('interactionCreate', { id: interaction.id, type: interaction.type, handled: false });
    return;
  }
  const text = interaction.options.getString('text') ?? '';
  emit('interactionCreate', {
    id: interaction.id,
    type: interaction.type,
    commandId: interaction.commandId,
    commandName: interaction.commandName,
    commandType: interaction.commandType,
    applicationId: interaction.applicationId,
    guildId: interaction.guildId,
    channelId: interaction.channelId,
    channelName: interaction.channel?.name ?? null,
    guildName: interaction.guild?.name ?? null,
    userId: interaction.user.id,
    username: interaction.user.username,
    memberId: interaction.member?.user?.id ?? null,
    inGuild: interaction.inGuild(),
    locale: interaction.locale,
    appPermissions: interaction.appPermissions?.bitfield?.toString() ?? null,
    memberPermissions: interaction.memberPermissions?.bitfield?.toString() ?? null,
    options: interaction.options.data.map((o) => ({ name: o.name, type: o.type, value: o.value })),
    text,
  });
  try {
    const res = await interaction.reply({ content: `discord.js says ${text}`, withResponse: true });
    const msg = res.resource?.message ?? null;
    emit('replied', {
      id: interaction.id,
      replied: interaction.replied,
      interactionId: res.interaction?.id ?? null,
      responseMessageId: res.interaction?.responseMessageId ?? null,
      resourceType: res.resource?.type ?? null,
      messageId: msg?.id ?? null,
      content: msg?.content ?? null,
      authorId: msg?.author?.id ?? null,
    });
    const original = await interaction.fetchReply();
    emit('fetchedReply', { id: interaction.id, messageId: original.id, content: original.content });
  } catch (err) {
    console.error('reply failed:', err);
    emit('replyError', { id: interaction.id, error: describeError(err) });
  }
});

client.on(Events.ApplicationCommandPermissionsUpdate, (data) => {
  emit('applicationCommandPermissionsUpdate', {
    id: data.id,
    guildId: data.guildId,
    applicationId: data.applicationId,
    permissions: data.permissions,
  });
});

let stopping = false;
async function stop(why) {
  if (stopping) return;
  stopping = true;
  try {
    await client.destroy();
    emit('destroyed', { why });
    process.exit(0);
  } catch (err) {
    console.error('destroy failed:', err);
    process.exit(1);
  }
}
process.on('SIGTERM', () => stop('SIGTERM'));
process.on('SIGINT', () => stop('SIGINT'));
process.stdin.on('end', () => stop('stdin closed'));
process.stdin.on('error', () => stop('stdin error'));
process.stdin.resume();

try {
  await client.login(token);
} catch (err) {
  console.error('login failed:', err);
  emit('loginError', { error: describeError(err) });
  process.exit(1);
}
