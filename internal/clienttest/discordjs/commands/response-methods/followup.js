// "Command response methods": follow-ups, the plain one and the ephemeral one.
import { MessageFlags, SlashCommandBuilder } from 'discord.js';
import { interaction as describe, message, report } from '../../report.js';

export const data = new SlashCommandBuilder()
  .setName('followup')
  .setDescription('Replies with Pong!, then follows up');

export async function execute(interaction) {
  await interaction.reply('Pong!');
  const followUp = await interaction.followUp('Pong again!');
  const ephemeral = await interaction.followUp({ content: 'Pong again!', flags: MessageFlags.Ephemeral });
  report('done', { ...describe(interaction), followUp: message(followUp), ephemeral: message(ephemeral) });
}
