// "Context Menus": registering context menu commands (user), extracting
// data from context menus (targetUser). The guide logs the username;
// responding works as for slash commands ("Context Menus": notes).
import { ApplicationCommandType, ContextMenuCommandBuilder } from 'discord.js';
import { interaction as describe, report } from '../../report.js';

export const data = new ContextMenuCommandBuilder()
  .setName('User Information')
  .setType(ApplicationCommandType.User);

export async function execute(interaction) {
  // Get the User's username from context menu
  const { username } = interaction.targetUser;
  await interaction.reply(`That is ${username}.`);
  report('done', {
    ...describe(interaction),
    targetUser: interaction.targetUser.id,
    targetMember: interaction.targetMember?.user?.id ?? null,
    targetUsername: username,
  });
}
