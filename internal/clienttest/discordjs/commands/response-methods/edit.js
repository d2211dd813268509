// "Command response methods": editing responses. (The guide waits two
// seconds between the two, standing for the bot's work; nothing here
// depends on it.)
import { SlashCommandBuilder } from 'discord.js';
import { interaction as describe, message, report } from '../../report.js';

export const data = new SlashCommandBuilder()
  .setName('edit')
  .setDescription('Replies with Pong!, then edits it');

export async function execute(interaction) {
  await interaction.reply('Pong!');
  const edited = await interaction.editReply('Pong again!');
  report('done', { ...describe(interaction), edited: message(edited) });
}
