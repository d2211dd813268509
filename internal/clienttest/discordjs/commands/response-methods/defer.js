// "Command response methods": deferred responses. (The guide waits four
// seconds, standing for the slow task, between the two.)
import { SlashCommandBuilder } from 'discord.js';
import { interaction as describe, message, report } from '../../report.js';

export const data = new SlashCommandBuilder()
  .setName('defer')
  .setDescription('Thinks, then replies with Pong!');

export async function execute(interaction) {
  await interaction.deferReply();
  report('deferred', { ...describe(interaction), deferred: interaction.deferred });
  const edited = await interaction.editReply('Pong!');
  report('done', { ...describe(interaction), edited: message(edited) });
}
