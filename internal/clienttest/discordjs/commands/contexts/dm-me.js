// "Frequently asked questions: How do I DM a specific user?"
// (popular-topics/faq): `await user.send(...)`, here to the user who ran
// the command; discord.js opens the DM first (POST /users/@me/channels,
// User#createDM) and posts in it. The command then answers with an
// ephemeral reply, as "Ephemeral responses" (slash-commands/response-methods)
// shows with MessageFlags.Ephemeral.
import { MessageFlags, SlashCommandBuilder } from 'discord.js';
import { interaction as describe, report } from '../../report.js';

export const data = new SlashCommandBuilder()
  .setName('dm-me')
  .setDescription('Sends you a direct message.');

export async function execute(interaction) {
  const message = await interaction.user.send('Hello from your DMs!');
  await interaction.reply({ content: 'Check your DMs.', flags: MessageFlags.Ephemeral });
  report('done', {
    ...describe(interaction),
    dmChannelId: message.channelId,
    dmMessageId: message.id,
    dmChannelType: message.channel?.type ?? null,
    dmRecipientId: message.channel?.recipientId ?? null,
  });
}
