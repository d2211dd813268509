// The guide's command loading ("Command handling": loading command files),
// shared by bot.js and deploy-commands.js: every commands/<folder>/<file>.js
// exports `data` (a builder) and `execute` (and `autocomplete` when an
// option autocompletes).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const foldersPath = path.join(path.dirname(fileURLToPath(import.meta.url)), 'commands');

export async function loadCommands() {
  const commands = [];
  for (const folder of fs.readdirSync(foldersPath)) {
    const commandsPath = path.join(foldersPath, folder);
    const commandFiles = fs.readdirSync(commandsPath).filter((file) => file.endsWith('.js'));
    for (const file of commandFiles) {
      const filePath = path.join(commandsPath, file);
      const command = await import(pathToFileURL(filePath));
      if ('data' in command && 'execute' in command) {
        commands.push(command);
      } else {
        console.error(`[WARNING] The command at ${filePath} is missing a required "data" or "execute" property.`);
      }
    }
  }
  return commands;
}
