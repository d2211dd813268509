// The guide's bot (its index.js), run by ../discordjs_test.go against
// slashd: "Creating the main file" (Client, intents, ClientReady, login),
// "Command handling" (commands loaded from commands/, executed from
// interactionCreate with the guide's error reply), "Autocomplete"
// (responding to autocomplete interactions) and "Context Menus". Every
// option is discord.js's default except `rest: { api }`, which aims the
// client at slashd; @discordjs/ws then finds the gateway through
// GET /gateway/bot on that REST base.
//
// The intents are the guide's (GatewayIntentBits.Guilds) plus
// GuildMembers, which "Gateway Intents" and "Common errors: Members didn't
// arrive in time" ask for to fetch a guild's members (the test enables the
// app's privileged intent, as a developer does in the portal).
//
// What is not in the guide is driven from stdin, one JSON object a line
// ({"do": …}), with the discord.js managers a bot calls for it (see
// actions); closing stdin (or SIGTERM) calls client.destroy() and exits.
//
// Besides what the commands report, the bot reports every gateway
// dispatch, what discord.js says of its connection (heartbeat ACKs, cut
// connections, resumes), every REST response it gets, and every error
// from anywhere ({"event": "error"}): see report.js.
import process from 'node:process';
import readline from 'node:readline';
import {
  Client,
  Collection,
  DiscordAPIError,
  Events,
  GatewayIntentBits,
  MessageFlags,
} from 'discord.js';
import { loadCommands } from './commands.js';
import { api, guildId, token } from './config.js';
import { describeError, report, reportError, watchREST } from './report.js';

const started = Date.now();

// Create a new client instance
const client = new Client({
  intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMembers],
  rest: { api },
});

client.commands = new Collection();
for (const command of await loadCommands()) {
  // Set a new item in the Collection with the key as the command name and the value as the exported module
  client.commands.set(command.data.name, command);
}

// When the client is ready, run this code (only once).
client.once(Events.ClientReady, (readyClient) => {
  console.error(`Ready! Logged in as ${readyClient.user.tag}`);
  report('ready', {
    ms: Date.now() - started,
    user: { id: readyClient.user.id, username: readyClient.user.username, bot: readyClient.user.bot, tag: readyClient.user.tag },
    application: readyClient.application?.id ?? null,
    guilds: readyClient.guilds.cache.map((g) => ({
      id: g.id,
      name: g.name,
      available: g.available,
      memberCount: g.memberCount,
      channels: g.channels.cache.map((ch) => ({ id: ch.id, name: ch.name, type: ch.type })),
      me: g.members.me?.id ?? null,
    })),
  });
});

client.on(Events.InteractionCreate, async (interaction) => {
  report('interactionCreate', {
    id: interaction.id,
    type: interaction.type,
    commandName: interaction.commandName ?? null,
    customId: interaction.customId ?? null,
  });
  if (interaction.isChatInputCommand() || interaction.isContextMenuCommand()) {
    const command = interaction.client.commands.get(interaction.commandName);

    if (!command) {
      reportError('interactionCreate', new Error(`No command matching ${interaction.commandName} was found.`));
      return;
    }

    try {
      await command.execute(interaction);
    } catch (error) {
      reportError(`executing ${interaction.commandName}`, error);
      try {
        if (interaction.replied || interaction.deferred) {
          await interaction.followUp({ content: 'There was an error while executing this command!', flags: MessageFlags.Ephemeral });
        } else {
          await interaction.reply({ content: 'There was an error while executing this command!', flags: MessageFlags.Ephemeral });
        }
      } catch (replyError) {
        reportError(`answering the error of ${interaction.commandName}`, replyError);
      }
    }
  } else if (interaction.isAutocomplete()) {
    const command = interaction.client.commands.get(interaction.commandName);

    if (!command) {
      reportError('interactionCreate', new Error(`No command matching ${interaction.commandName} was found.`));
      return;
    }

    try {
      await command.autocomplete(interaction);
    } catch (error) {
      reportError(`autocompleting ${interaction.commandName}`, error);
    }
  }
  // Buttons and modal submissions are answered by the collectors of the
  // commands that sent them (commands/buttons/ban.js, commands/modals/modal.js).
});

client.on(Events.ApplicationCommandPermissionsUpdate, (data) => {
  report('applicationCommandPermissionsUpdate', {
    id: data.id,
    guildId: data.guildId,
    applicationId: data.applicationId,
    permissions: data.permissions,
  });
});

// actions: what a bot does with discord.js's managers outside the guide's
// pages, each named after the discord.js documentation of the method.
const actions = {
  // ClientApplication#fetch: GET /applications/@me.
  async fetchApplication() {
    const app = await client.application.fetch();
    return {
      id: app.id,
      name: app.name,
      description: app.description,
      botPublic: app.botPublic,
      botRequireCodeGrant: app.botRequireCodeGrant,
      ownerId: app.owner?.id ?? null,
      flags: app.flags?.bitfield?.toString() ?? null,
      verifyKey: app.verifyKey ?? null,
      interactionsEndpointURL: app.interactionsEndpointURL ?? null,
      bot: app.bot?.id ?? null,
    };
  },
  // GuildApplicationCommandManager#set: the guild's commands replaced by
  // two of the bot's own.
  async setGuildCommands({ names }) {
    const guild = client.guilds.cache.get(guildId);
    const set = await guild.commands.set(names.map((name) => client.commands.get(name).data));
    return { commands: set.map((c) => ({ id: c.id, name: c.name, type: c.type, guildId: c.guildId, version: c.version })) };
  },
  // GuildApplicationCommandManager#fetch.
  async fetchGuildCommands() {
    const guild = client.guilds.cache.get(guildId);
    const fetched = await guild.commands.fetch();
    return { commands: fetched.map((c) => ({ id: c.id, name: c.name, type: c.type, guildId: c.guildId, version: c.version })) };
  },
  // GuildApplicationCommandManager#delete.
  async deleteGuildCommand({ id }) {
    const guild = client.guilds.cache.get(guildId);
    const deleted = await guild.commands.delete(id);
    return { deleted: deleted?.id ?? null, cached: guild.commands.cache.map((c) => c.id) };
  },
  // ApplicationCommandPermissionsManager#fetch for a guild: every
  // command's overwrites there.
  async fetchPermissions() {
    const perms = await client.application.commands.permissions.fetch({ guild: guildId });
    return { permissions: Object.fromEntries(perms.map((p, id) => [id, p])) };
  },
  // What discord.js's caches hold of a guild (client.guilds.cache and
  // the guild's channels, roles and members caches), read without a
  // request: what the gateway's events made of them.
  async guildState({ id }) {
    const guild = client.guilds.cache.get(id);
    if (!guild) return { cached: false };
    return {
      cached: true,
      name: guild.name,
      memberCount: guild.memberCount,
      channels: guild.channels.cache.map((c) => ({ id: c.id, name: c.name, type: c.type })),
      roles: guild.roles.cache.map((r) => ({ id: r.id, name: r.name })),
      members: guild.members.cache.map((m) => ({ id: m.id, nick: m.nickname, roles: m.roles.cache.map((r) => r.id) })),
    };
  },
  // TextChannel#send with components written by hand (discord.js sends
  // plain objects as they are): the message's id, or the DiscordAPIError
  // slashd's refusal became.
  async sendComponents({ channelId, components, flags }) {
    const channel = await client.channels.fetch(channelId);
    try {
      const message = await channel.send({ components, flags });
      return { id: message.id };
    } catch (error) {
      if (!(error instanceof DiscordAPIError)) throw error;
      return {
        apiError: { name: error.name, code: error.code, status: error.status, message: error.message, rawError: error.rawError },
      };
    }
  },
  // GuildMemberManager#fetch with no arguments: every member, through the
  // gateway (Request Guild Members).
  async fetchMembers() {
    const guild = client.guilds.cache.get(guildId);
    const members = await guild.members.fetch();
    return {
      members: members.map((m) => ({
        id: m.id,
        username: m.user.username,
        bot: m.user.bot,
        joinedAt: m.joinedAt?.toISOString() ?? null,
        roles: m.roles.cache.map((r) => r.id),
      })),
    };
  },
};

async function act(line) {
  let request;
  try {
    request = JSON.parse(line);
  } catch (error) {
    reportError('stdin', error);
    return;
  }
  const action = actions[request.do];
  if (!action) {
    reportError('stdin', new Error(`unknown action ${request.do}`));
    return;
  }
  try {
    report('did', { do: request.do, ...(await action(request)) });
  } catch (error) {
    reportError(request.do, error);
  }
}

// What discord.js tells of its connection and requests, for the test.
client.on(Events.Error, (err) => reportError('client error', err));
client.on(Events.Warn, (msg) => report('warn', { message: msg }));
client.on(Events.ShardError, (err) => reportError('shard error', err));
client.on(Events.ShardDisconnect, (ev, shard) => report('shardDisconnect', { shard, code: ev?.code }));
client.on(Events.ShardReconnecting, (shard) => report('shardReconnecting', { shard }));
client.on(Events.ShardResume, (shard, replayed) => report('shardResume', { shard, replayed }));
client.on(Events.Invalidated, () => report('invalidated'));
client.on(Events.ShardReady, (shard) => report('shardReady', { shard }));
client.on(Events.Debug, (msg) => {
  // discord.js reports an op 11 Heartbeat ACK only as a debug message.
  const ack = /Heartbeat acknowledged, latency of (-?\d+)ms/.exec(msg);
  if (ack) report('heartbeatAck', { latency: Number(ack[1]) });
  // So are a websocket that ended without one of the gateway's close
  // codes (a cut connection is 1006), and what @discordjs/ws decided:
  // resume, or start over with identify.
  const closed = /The gateway closed with an unexpected code (\d+), attempting to (\w+)/.exec(msg);
  if (closed) report('gatewayClosed', { code: Number(closed[1]), then: closed[2] });
  const resuming = /Resuming session\s+resume url: (\S+)\s+sequence: (\d+)/.exec(msg);
  if (resuming) report('resuming', { url: resuming[1], sequence: Number(resuming[2]) });
  if (/Failed to connect to the gateway URL specified due to a network error/.test(msg)) report('networkError');
  if (process.env.SLASHD_DEBUG) console.error('debug:', msg);
});
// Every dispatch as it arrived (op 0): its type and sequence number, and
// READY's session.
client.on(Events.Raw, (packet) => {
  if (packet?.op !== 0) return;
  report('dispatch', {
    t: packet.t,
    s: packet.s,
    sessionId: packet.t === 'READY' ? packet.d?.session_id ?? null : undefined,
    resumeURL: packet.t === 'READY' ? packet.d?.resume_gateway_url ?? null : undefined,
  });
});
watchREST(client.rest);
process.on('unhandledRejection', (err) => reportError('unhandled rejection', err));
process.on('warning', (warning) => report('warning', { name: warning.name, message: warning.message }));
process.on('uncaughtException', (err) => reportError('uncaught exception', err));

let stopping = false;
async function stop(why) {
  if (stopping) return;
  stopping = true;
  try {
    await client.destroy();
    report('destroyed', { why });
    process.exit(0);
  } catch (err) {
    console.error('destroy failed:', err);
    process.exit(1);
  }
}
process.on('SIGTERM', () => stop('SIGTERM'));
process.on('SIGINT', () => stop('SIGINT'));
const stdin = readline.createInterface({ input: process.stdin });
stdin.on('line', (line) => {
  if (line.trim() !== '') act(line);
});
stdin.on('close', () => stop('stdin closed'));

// Log in to Discord with your client's token
try {
  await client.login(token);
} catch (err) {
  console.error('login failed:', err);
  report('loginError', { error: describeError(err) });
  process.exit(1);
}
