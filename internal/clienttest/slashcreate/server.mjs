// slash-create's webserver example ("Using Webservers": a SlashCreator
// with an ExpressServer or a FastifyServer, its commands registered and
// synced, the server started) with commands written as its "Creating
// commands" example teaches, run by internal/clienttest/slashcreate's tests
// against slashd: slashd delivers the interactions to this server (the
// app's interactions endpoint URL), and slash-create answers in the HTTP
// response.
//
// The only change from an app aimed at Discord is rest.baseURL. serverPort
// and serverHost say where the server listens, as on any machine.
//
// Usage: node server.mjs express|fastify. It reports what it saw as JSON
// lines on stdout ({"event": ...}); stdin's end stops it.
import { CommandOptionType, ExpressServer, FastifyServer, SlashCommand, SlashCreator } from "slash-create";

const report = (event, fields = {}) => console.log(JSON.stringify({ event, ...fields }));
const guildIDs = [process.env.SLASHD_GUILD_ID];

class HelloCommand extends SlashCommand {
    constructor(creator) {
        super(creator, {
            name: "hello",
            description: "Says hello to you.",
            guildIDs,
            options: [{ type: CommandOptionType.STRING, name: "food", description: "What food do you like?" }]
        });
    }

    async run(ctx) {
        report("hello", { id: ctx.interactionID });
        return ctx.options.food ? `You like ${ctx.options.food}? Nice!` : `Hello, ${ctx.user.username}!`;
    }
}

// A reply that mentions its caller and repeats what they typed (which
// may mention someone else: `<@id>` in the interaction's JSON).
class EchoCommand extends SlashCommand {
    constructor(creator) {
        super(creator, {
            name: "echo",
            description: "Repeats what you say.",
            guildIDs,
            options: [{ type: CommandOptionType.STRING, name: "text", description: "What to say.", required: true }]
        });
    }

    async run(ctx) {
        report("echo", { id: ctx.interactionID, text: ctx.options.text });
        return `${ctx.user.mention} said: ${ctx.options.text}`;
    }
}

// A reply with a file: slash-create answers with multipart/form-data
// (payload_json and files[0]) in the HTTP response.
class ReportCommand extends SlashCommand {
    constructor(creator) {
        super(creator, {
            name: "report",
            description: "Sends your report as a file.",
            guildIDs
        });
    }

    async run(ctx) {
        report("report", { id: ctx.interactionID });
        return ctx.send({
            content: "Here is your report.",
            files: [{ name: "report.txt", file: Buffer.from(`report for ${ctx.user.username}\n`) }]
        });
    }
}

const creator = new SlashCreator({
    applicationID: process.env.SLASHD_APP_ID,
    publicKey: process.env.SLASHD_PUBLIC_KEY,
    token: process.env.SLASHD_BOT_TOKEN,
    serverPort: Number(process.env.SLASHD_SERVER_PORT),
    serverHost: "127.0.0.1",
    rest: { baseURL: `${process.env.SLASHD_URL}/api/v10` }
});

creator.on("warn", message => report("error", { where: "warn", message: String(message) }));
creator.on("error", err => report("error", { where: "error", message: String(err) }));
creator.on("commandError", (command, err) => report("error", { where: command.commandName, message: String(err) }));

const server = process.argv[2] === "fastify" ? new FastifyServer() : new ExpressServer();
creator.withServer(server).registerCommands([HelloCommand, EchoCommand, ReportCommand]);
try {
    await creator.syncCommands();
    report("synced");
    await creator.startServer();
    report("started", { server: process.argv[2] });
} catch (err) {
    report("error", { where: "start", message: String(err) });
}

process.stdin.on("end", () => process.exit(0));
process.stdin.resume();
