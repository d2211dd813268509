// The example app's utils.js: DiscordRequest sends a request to the API
// with the bot's token. The only change from the app aimed at Discord is
// the root URL (SLASHD_URL instead of https://discord.com).
const API = `${process.env.SLASHD_URL}/api/v10/`;

export async function DiscordRequest(endpoint, options) {
    const url = API + endpoint;
    if (options.body) {
        options.body = JSON.stringify(options.body);
    }
    const res = await fetch(url, {
        headers: {
            Authorization: `Bot ${process.env.DISCORD_TOKEN}`,
            "Content-Type": "application/json; charset=UTF-8",
            "User-Agent": "DiscordBot (https://github.com/discord/discord-example-app, 1.0.0)"
        },
        ...options
    });
    // API errors are thrown, with the API's JSON body.
    if (!res.ok) {
        const data = await res.json();
        throw new Error(`${res.status} ${JSON.stringify(data)}`);
    }
    return res;
}

// As the example's commands.js: overwrite the app's global commands.
export async function InstallGlobalCommands(appId, commands) {
    return DiscordRequest(`applications/${appId}/commands`, { method: "PUT", body: commands });
}

export const report = (event, fields = {}) => console.log(JSON.stringify({ event, ...fields }));
