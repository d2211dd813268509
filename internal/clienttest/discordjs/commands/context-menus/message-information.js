// "Context Menus": registering context menu commands (message), extracting
// data from context menus (targetMessage).
import { ApplicationCommandType, ContextMenuCommandBuilder } from 'discord.js';
import { interaction as describe, message, report } from '../../report.js';

export const data = new ContextMenuCommandBuilder()
  .setName('Message Information')
  .setType(ApplicationCommandType.Message);

export async function execute(interaction) {
  const { content } = interaction.targetMessage;
  await interaction.reply(`That message says ${content}`);
  report('done', { ...describe(interaction), targetMessage: message(interaction.targetMessage) });
}
