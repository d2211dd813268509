// The guide's config.json, from the environment:
//   DISCORD_TOKEN      the bot's token
//   DISCORD_CLIENT_ID  the application's id
//   DISCORD_GUILD_ID   the guild to register the commands in
//   DISCORD_API        only when the bot talks to slashd: its REST base,
//                      e.g. http://127.0.0.1:8080/api (unset: Discord's)
import process from 'node:process';

export const token = process.env.DISCORD_TOKEN;
export const clientId = process.env.DISCORD_CLIENT_ID;
export const guildId = process.env.DISCORD_GUILD_ID;
export const api = process.env.DISCORD_API;
