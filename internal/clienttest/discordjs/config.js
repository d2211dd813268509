// The guide's config.json ("Creating your bot": configuration files),
// filled from the environment by ../discordjs_test.go:
//   SLASHD_API        slashd's REST base, e.g. http://127.0.0.1:8080/api
//   SLASHD_BOT_TOKEN  the app's bot token (without "Bot ")
//   SLASHD_CLIENT_ID  the application id
//   SLASHD_GUILD_ID   the development guild's id
// `api` is the one thing a bot aimed at slashd adds to the guide's code:
// `rest: { api }` for a Client, `new REST({ api })` for a script.
import process from 'node:process';

export const api = process.env.SLASHD_API;
export const token = process.env.SLASHD_BOT_TOKEN;
export const clientId = process.env.SLASHD_CLIENT_ID;
export const guildId = process.env.SLASHD_GUILD_ID;

if (!api || !token) {
  console.error('SLASHD_API and SLASHD_BOT_TOKEN are required');
  process.exit(2);
}
