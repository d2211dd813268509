// "Command response methods": fetching and deleting responses (deleteReply).
import { SlashCommandBuilder } from 'discord.js';
import { interaction as describe, report } from '../../report.js';

export const data = new SlashCommandBuilder()
  .setName('delete')
  .setDescription('Replies with Pong!, then deletes the reply');

export async function execute(interaction) {
  await interaction.reply('Pong!');
  await interaction.deleteReply();
  report('done', describe(interaction));
}
