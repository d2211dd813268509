// "Creating slash commands": individual command files (commands/utility/ping.js).
import { SlashCommandBuilder } from 'discord.js';
import { interaction as describe, report } from '../../report.js';

export const data = new SlashCommandBuilder()
  .setName('ping')
  .setDescription('Replies with Pong!');

export async function execute(interaction) {
  await interaction.reply('Pong!');
  report('done', { ...describe(interaction), replied: interaction.replied });
}
