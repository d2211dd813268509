// The guide's "Deleting commands", in its own file:
//   node delete-commands.js guild <commandId>   deleting specific commands (guild-based)
//   node delete-commands.js global <commandId>  deleting specific commands (global)
//   node delete-commands.js guild all           deleting all commands (guild-based)
//   node delete-commands.js global all          deleting all commands (global)
// It reports {"event": "deleted", …} or an error, and exits.
import process from 'node:process';
import { REST, Routes } from 'discord.js';
import { api, clientId, guildId, token } from './config.js';
import { report, reportError, watchREST } from './report.js';

const rest = new REST({ api }).setToken(token);
watchREST(rest);

const [scope, which] = process.argv.slice(2);
let request;
if (which === 'all') {
  request = scope === 'global'
    // for global commands
    ? rest.put(Routes.applicationCommands(clientId), { body: [] })
    // for guild-based commands
    : rest.put(Routes.applicationGuildCommands(clientId, guildId), { body: [] });
} else {
  request = scope === 'global'
    // for global commands
    ? rest.delete(Routes.applicationCommand(clientId, which))
    // for guild-based commands
    : rest.delete(Routes.applicationGuildCommand(clientId, guildId, which));
}
await request
  // A delete answers 204, which @discordjs/rest reads as an empty
  // ArrayBuffer; the put answers the (empty) list.
  .then((result) => report('deleted', {
    scope,
    which,
    result: result instanceof ArrayBuffer ? { bytes: result.byteLength } : result,
  }))
  .catch((error) => {
    reportError('delete', error);
    process.exitCode = 1;
  });
