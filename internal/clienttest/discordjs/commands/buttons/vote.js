// A mistake discord.js's builders let through, written as the guide's
// "Buttons" page builds buttons: both buttons carry the custom id 'yes'
// (a copy-paste slip). The real service refuses the reply
// (COMPONENT_CUSTOM_ID_DUPLICATED), interaction.reply() rejects with
// DiscordAPIError[50035], and the guide's error handler in ../../bot.js
// answers "There was an error while executing this command!".
// ../../components_test.go expects exactly that.
import {
  ActionRowBuilder,
  ButtonBuilder,
  ButtonStyle,
  SlashCommandBuilder,
} from 'discord.js';

export const data = new SlashCommandBuilder()
  .setName('vote')
  .setDescription('Vote yes or no.');

export async function execute(interaction) {
  const yes = new ButtonBuilder()
    .setCustomId('yes')
    .setLabel('Yes')
    .setStyle(ButtonStyle.Success);

  const no = new ButtonBuilder()
    .setCustomId('yes')
    .setLabel('No')
    .setStyle(ButtonStyle.Danger);

  const row = new ActionRowBuilder()
    .addComponents(yes, no);

  await interaction.reply({ content: 'Do you agree?', components: [row] });
}
