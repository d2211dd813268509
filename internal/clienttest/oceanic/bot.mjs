// Oceanic.js's README bot, with the slash commands of its
// examples/applicationCommand.js and examples/interactions.js, run by
// internal/clienttest/oceanic's tests against slashd.
//
// The only change from a bot aimed at Discord is rest.baseURL (the gateway's
// URL then comes from GET /gateway/bot). The gateway's compress option is
// the documented "zlib-stream" (Oceanic inflates with node:zlib when neither
// zlib-sync nor pako is installed). Everything else is the defaults.
//
// It reports what it saw as JSON lines on stdout ({"event": ...}); stdin's
// end disconnects it.
import {
    ApplicationCommandOptionTypes,
    ApplicationCommandTypes,
    Client,
    InteractionTypes,
    MessageFlags
} from "oceanic.js";

const report = (event, fields = {}) => console.log(JSON.stringify({ event, ...fields }));

const client = new Client({
    auth: `Bot ${process.env.SLASHD_BOT_TOKEN}`,
    rest: { baseURL: `${process.env.SLASHD_URL}/api/v10` },
    gateway: { compress: "zlib-stream" }
});

const commands = [
    {
        type: ApplicationCommandTypes.CHAT_INPUT,
        name: "ping",
        description: "Replies with Pong."
    },
    {
        type: ApplicationCommandTypes.CHAT_INPUT,
        name: "settings",
        description: "Your settings.",
        options: [
            {
                type: ApplicationCommandOptionTypes.SUB_COMMAND,
                name: "show",
                description: "Show your settings."
            },
            {
                type: ApplicationCommandOptionTypes.SUB_COMMAND,
                name: "set",
                description: "Set your colour.",
                options: [{
                    type: ApplicationCommandOptionTypes.STRING,
                    name: "colour",
                    description: "The colour.",
                    required: true
                }]
            },
            {
                type: ApplicationCommandOptionTypes.SUB_COMMAND_GROUP,
                name: "danger",
                description: "Dangerous settings.",
                options: [{
                    type: ApplicationCommandOptionTypes.SUB_COMMAND,
                    name: "reset",
                    description: "Reset everything."
                }]
            }
        ]
    }
];

client.once("ready", async () => {
    try {
        const registered = await client.application.bulkEditGuildCommands(process.env.SLASHD_GUILD_ID, commands);
        report("ready", { user: client.user.id, commands: registered.map(c => c.name).sort() });
    } catch (err) {
        report("error", { where: "bulkEditGuildCommands", message: String(err) });
    }
});

// If there is no listener for the error event, errors are thrown, and the
// process may be killed as a result (the README).
client.on("error", err => report("error", { where: "client", message: String(err) }));

client.on("interactionCreate", async interaction => {
    if (interaction.type !== InteractionTypes.APPLICATION_COMMAND) {
        return;
    }
    try {
        switch (interaction.data.name) {
            case "ping": {
                await interaction.createMessage({ content: "Pong!" });
                report("ping", { id: interaction.id });
                break;
            }
            case "settings": {
                const sub = interaction.data.options.getSubCommand(true);
                let content;
                switch (sub.join(" ")) {
                    case "show": content = "No colour set."; break;
                    case "set": content = `Colour set to ${interaction.data.options.getString("colour", true)}.`; break;
                    case "danger reset": content = "Everything reset."; break;
                    default: content = `Unknown subcommand ${sub.join(" ")}.`;
                }
                await interaction.createMessage({ content, flags: MessageFlags.EPHEMERAL });
                report("settings", { id: interaction.id, sub });
                break;
            }
        }
    } catch (err) {
        report("error", { where: interaction.data.name, id: interaction.id, message: String(err) });
    }
});

process.stdin.on("end", () => {
    client.disconnect(false);
    process.exit(0);
});
process.stdin.resume();

client.connect().catch(err => report("error", { where: "connect", message: String(err) }));
