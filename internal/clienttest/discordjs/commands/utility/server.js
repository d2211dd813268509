// "Creating slash commands": individual command files (commands/utility/server.js).
import { SlashCommandBuilder } from 'discord.js';
import { interaction as describe, report } from '../../report.js';

export const data = new SlashCommandBuilder()
  .setName('server')
  .setDescription('Provides information about the server.');

export async function execute(interaction) {
  // interaction.guild is the object representing the Guild in which the command was run
  await interaction.reply(`This server is ${interaction.guild.name} and has ${interaction.guild.memberCount} members.`);
  report('done', { ...describe(interaction), guildName: interaction.guild.name, memberCount: interaction.guild.memberCount });
}
