// "Creating slash commands": individual command files (commands/utility/user.js).
import { SlashCommandBuilder } from 'discord.js';
import { interaction as describe, report } from '../../report.js';

export const data = new SlashCommandBuilder()
  .setName('user')
  .setDescription('Provides information about the user.');

export async function execute(interaction) {
  // interaction.user is the object representing the User who ran the command
  // interaction.member is the GuildMember object, which represents the user in the specific guild
  await interaction.reply(`This command was run by ${interaction.user.username}, who joined on ${interaction.member.joinedAt}.`);
  report('done', { ...describe(interaction), joinedAt: interaction.member.joinedAt?.toISOString() ?? null });
}
