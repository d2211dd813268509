// "Registering slash commands": puts the bot's commands in one guild.
// `node deploy-commands.js` with DISCORD_TOKEN, DISCORD_CLIENT_ID,
// DISCORD_GUILD_ID (and DISCORD_API for slashd); the tests call
// deployCommands.
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { REST, Routes } from 'discord.js';
import { commands } from './commands.js';

export async function deployCommands({ token, clientId, guildId, api }) {
  const rest = new REST(api ? { api } : {}).setToken(token);
  const body = commands.map((c) => c.data.toJSON());
  return rest.put(Routes.applicationGuildCommands(clientId, guildId), { body });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const config = await import('./config.js');
  const data = await deployCommands(config);
  console.log(`Successfully reloaded ${data.length} application (/) commands.`);
}
