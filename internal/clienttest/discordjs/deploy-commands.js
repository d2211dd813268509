// The guide's deployment script ("Registering slash commands": guild
// commands, and global commands with the route adjusted):
//   node deploy-commands.js          PUT the commands in the guild
//   node deploy-commands.js global   PUT them as global commands
// It reports {"event": "deployed", "commands": [the API's answer]} or an
// error, and exits.
import process from 'node:process';
import { REST, Routes } from 'discord.js';
import { loadCommands } from './commands.js';
import { api, clientId, guildId, token } from './config.js';
import { report, reportError, watchREST } from './report.js';

// Grab the SlashCommandBuilder#toJSON() output of each command's data for deployment
const commands = (await loadCommands()).map((command) => command.data.toJSON());

// Construct and prepare an instance of the REST module
const rest = new REST({ api }).setToken(token);
watchREST(rest);

const global = process.argv[2] === 'global';
try {
  console.error(`Started refreshing ${commands.length} application (/) commands.`);

  // The put method is used to fully refresh all commands in the guild with the current set
  const data = await rest.put(
    global ? Routes.applicationCommands(clientId) : Routes.applicationGuildCommands(clientId, guildId),
    { body: commands },
  );

  console.error(`Successfully reloaded ${data.length} application (/) commands.`);
  report('deployed', { global, sent: commands, commands: data });
} catch (error) {
  // And of course, make sure you catch and log any errors!
  reportError('deploy', error);
  process.exitCode = 1;
}
