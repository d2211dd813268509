// The example app's commands.js (`npm run register`): the rock-paper-scissors
// challenge command, installed as a global command.
import { InstallGlobalCommands, report } from "./utils.js";
import { choices } from "./game.js";

const CHALLENGE_COMMAND = {
    name: "challenge",
    description: "Challenge to a match of rock paper scissors",
    options: [{
        type: 3,
        name: "object",
        description: "Pick your object",
        required: true,
        choices: choices.map(c => ({ name: c, value: c }))
    }],
    type: 1,
    integration_types: [0, 1],
    contexts: [0, 1, 2]
};

try {
    const res = await InstallGlobalCommands(process.env.APP_ID, [CHALLENGE_COMMAND]);
    report("registered", { commands: (await res.json()).map(c => c.name) });
} catch (err) {
    report("error", { where: "register", message: String(err) });
}
