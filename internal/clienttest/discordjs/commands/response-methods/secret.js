// "Command response methods": ephemeral responses.
import { MessageFlags, SlashCommandBuilder } from 'discord.js';
import { interaction as describe, report } from '../../report.js';

export const data = new SlashCommandBuilder()
  .setName('secret')
  .setDescription('Replies with a secret Pong!');

export async function execute(interaction) {
  await interaction.reply({ content: 'Secret Pong!', flags: MessageFlags.Ephemeral });
  report('done', describe(interaction));
}
