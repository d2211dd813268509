// Runs the bot: `node index.js` with DISCORD_TOKEN (and DISCORD_API for slashd).
import { createClient } from './bot.js';
import { api, token } from './config.js';

const client = createClient({ api });
await client.login(token);
