// The pattern of Discord's getting-started example app
// (github.com/discord/discord-example-app, app.js): an express server whose
// /interactions route is guarded by discord-interactions' verifyKeyMiddleware.
// /challenge answers with an Accept button; the button's handler answers
// with an ephemeral select and deletes the message the button was on with
// the click's token (DELETE /webhooks/{app}/{token}/messages/{message.id});
// the select's handler answers with the result and edits the ephemeral
// message the select was on the same way (PATCH). Run by
// internal/clienttest/exampleapp's tests against slashd.
//
// It reports what it did as JSON lines on stdout ({"event": ...}); stdin's
// end stops it.
import express from "express";
import {
    ButtonStyleTypes,
    InteractionResponseFlags,
    InteractionResponseType,
    InteractionType,
    MessageComponentTypes,
    verifyKeyMiddleware
} from "discord-interactions";
import { DiscordRequest, report } from "./utils.js";
import { getOptions, getResult } from "./game.js";

const app = express();
const PORT = process.env.PORT || 3000;
// Games waiting for an opponent, by the challenge's interaction id.
const activeGames = {};

app.post("/interactions", verifyKeyMiddleware(process.env.PUBLIC_KEY), async (req, res) => {
    const { id, type, data } = req.body;

    if (type === InteractionType.PING) {
        return res.send({ type: InteractionResponseType.PONG });
    }

    if (type === InteractionType.APPLICATION_COMMAND && data.name === "challenge") {
        const userId = req.body.member?.user?.id ?? req.body.user.id;
        activeGames[id] = { id: userId, objectName: data.options[0].value };
        report("challenge", { id });
        return res.send({
            type: InteractionResponseType.CHANNEL_MESSAGE_WITH_SOURCE,
            data: {
                content: `Rock papers scissors challenge from <@${userId}>`,
                components: [{
                    type: MessageComponentTypes.ACTION_ROW,
                    components: [{
                        type: MessageComponentTypes.BUTTON,
                        custom_id: `accept_button_${id}`,
                        label: "Accept",
                        style: ButtonStyleTypes.PRIMARY
                    }]
                }]
            }
        });
    }

    if (type === InteractionType.MESSAGE_COMPONENT) {
        const componentId = data.custom_id;
        if (componentId.startsWith("accept_button_")) {
            const gameId = componentId.replace("accept_button_", "");
            // The message the button is on, reached with the click's token.
            const endpoint = `webhooks/${process.env.APP_ID}/${req.body.token}/messages/${req.body.message.id}`;
            try {
                await res.send({
                    type: InteractionResponseType.CHANNEL_MESSAGE_WITH_SOURCE,
                    data: {
                        content: "What is your object of choice?",
                        flags: InteractionResponseFlags.EPHEMERAL,
                        components: [{
                            type: MessageComponentTypes.ACTION_ROW,
                            components: [{
                                type: MessageComponentTypes.STRING_SELECT,
                                custom_id: `select_choice_${gameId}`,
                                options: getOptions()
                            }]
                        }]
                    }
                });
                await DiscordRequest(endpoint, { method: "DELETE" });
                report("deleted", { id, message: req.body.message.id });
            } catch (err) {
                report("error", { where: "accept", id, message: String(err) });
            }
            return;
        }
        if (componentId.startsWith("select_choice_")) {
            const gameId = componentId.replace("select_choice_", "");
            const game = activeGames[gameId];
            if (!game) {
                report("error", { where: "select", id, message: `no game ${gameId}` });
                return res.status(400).json({ error: "unknown game" });
            }
            const userId = req.body.member?.user?.id ?? req.body.user.id;
            const resultStr = getResult(game, { id: userId, objectName: data.values[0] });
            delete activeGames[gameId];
            // The ephemeral message the select is on, reached with the
            // select's token.
            const endpoint = `webhooks/${process.env.APP_ID}/${req.body.token}/messages/${req.body.message.id}`;
            try {
                await res.send({
                    type: InteractionResponseType.CHANNEL_MESSAGE_WITH_SOURCE,
                    data: { content: resultStr }
                });
                const edited = await DiscordRequest(endpoint, {
                    method: "PATCH",
                    body: { content: "Nice choice!", components: [] }
                });
                const message = await edited.json();
                report("edited", { id, message: message.id, content: message.content, components: message.components.length });
            } catch (err) {
                report("error", { where: "select", id, message: String(err) });
            }
            return;
        }
    }

    report("error", { where: "route", id, message: `unknown interaction type ${type}` });
    return res.status(400).json({ error: "unknown interaction type" });
});

app.listen(PORT, "127.0.0.1", () => report("listening", { port: PORT }));

process.stdin.on("end", () => process.exit(0));
process.stdin.resume();
