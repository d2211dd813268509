// What the scripts tell ../discordjs_test.go: one JSON object per line on
// stdout ({"event": …, …}); diagnostics go to stderr. Every error caught
// anywhere is reported as {"event": "error"}, which fails the test.
import process from 'node:process';

export function report(event, fields = {}) {
  process.stdout.write(JSON.stringify({ event, ...fields }) + '\n');
}

export function describeError(err) {
  return {
    name: err?.name,
    message: String(err?.message ?? err),
    code: err?.code,
    status: err?.status,
    method: err?.method,
    url: err?.url,
    rawError: err?.rawError,
    stack: err?.stack,
  };
}

export function reportError(where, err) {
  console.error(`${where}:`, err);
  report('error', { where, error: describeError(err) });
}

// watchREST reports every response a REST manager gets, so that the test
// can insist on how discord.js called slashd (a retried 5xx would
// otherwise pass unseen).
export function watchREST(rest) {
  rest.on('response', (request, response) => {
    report('rest', {
      method: request.method.toUpperCase(),
      path: request.path,
      status: response.status,
      retries: request.retries,
    });
  });
}

// message is what the test needs of a discord.js Message.
export function message(m) {
  return {
    id: m.id,
    channelId: m.channelId,
    content: m.content,
    authorId: m.author?.id ?? null,
    flags: m.flags?.bitfield ?? null,
    editedTimestamp: m.editedTimestamp ?? null,
    components: m.components?.length ?? 0,
    type: m.type,
    webhookId: m.webhookId ?? null,
    applicationId: m.applicationId ?? null,
    interactionMetadata: m.interactionMetadata
      ? { id: m.interactionMetadata.id, type: m.interactionMetadata.type, userId: m.interactionMetadata.user?.id ?? null }
      : null,
  };
}

// interaction is what the test needs of a discord.js interaction.
export function interaction(i) {
  return {
    id: i.id,
    type: i.type,
    commandName: i.commandName ?? null,
    commandId: i.commandId ?? null,
    commandType: i.commandType ?? null,
    customId: i.customId ?? null,
    guildId: i.guildId,
    channelId: i.channelId,
    channelName: i.channel?.name ?? null,
    userId: i.user.id,
    username: i.user.username,
    memberId: i.member?.user?.id ?? null,
    locale: i.locale,
  };
}
