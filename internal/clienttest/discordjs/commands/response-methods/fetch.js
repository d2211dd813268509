// "Command response methods": fetching and deleting responses (fetchReply).
import { SlashCommandBuilder } from 'discord.js';
import { interaction as describe, message, report } from '../../report.js';

export const data = new SlashCommandBuilder()
  .setName('fetch')
  .setDescription('Replies with Pong!, then fetches the reply');

export async function execute(interaction) {
  await interaction.reply('Pong!');
  const fetched = await interaction.fetchReply();
  report('done', { ...describe(interaction), fetched: message(fetched) });
}
