// "Parsing options": the ban command; "Buttons": building and sending
// buttons; "Component interactions": awaiting components, answered with
// update(). The guide's `interaction.guild.members.ban(target)` is left
// out: guild bans are not part of slashd (an application-commands
// service), so the confirmation only says what would have happened.
import {
  ActionRowBuilder,
  ButtonBuilder,
  ButtonStyle,
  InteractionContextType,
  PermissionFlagsBits,
  SlashCommandBuilder,
} from 'discord.js';
import { interaction as describe, message, report, reportError } from '../../report.js';

export const data = new SlashCommandBuilder()
  .setName('ban')
  .setDescription('Select a member and ban them.')
  .addUserOption((option) =>
    option
      .setName('target')
      .setDescription('The member to ban')
      .setRequired(true))
  .addStringOption((option) =>
    option
      .setName('reason')
      .setDescription('The reason for banning'))
  .setDefaultMemberPermissions(PermissionFlagsBits.BanMembers)
  .setContexts(InteractionContextType.Guild);

export async function execute(interaction) {
  const target = interaction.options.getUser('target');
  const reason = interaction.options.getString('reason') ?? 'No reason provided';

  const confirm = new ButtonBuilder()
    .setCustomId('confirm')
    .setLabel('Confirm Ban')
    .setStyle(ButtonStyle.Danger);

  const cancel = new ButtonBuilder()
    .setCustomId('cancel')
    .setLabel('Cancel')
    .setStyle(ButtonStyle.Secondary);

  const row = new ActionRowBuilder()
    .addComponents(cancel, confirm);

  const response = await interaction.reply({
    content: `Are you sure you want to ban ${target.username} for reason: ${reason}?`,
    components: [row],
    withResponse: true,
  });

  const collectorFilter = (i) => i.user.id === interaction.user.id;
  try {
    const awaited = response.resource.message.awaitMessageComponent({ filter: collectorFilter, time: 60_000 });
    // The collector listens from here on: the test clicks once it is told.
    report('awaitingComponent', { ...describe(interaction), message: message(response.resource.message) });
    const confirmation = await awaited;

    if (confirmation.customId === 'confirm') {
      await confirmation.update({ content: `${target.username} has been banned for reason: ${reason}`, components: [] });
    } else if (confirmation.customId === 'cancel') {
      await confirmation.update({ content: 'Action cancelled', components: [] });
    }
    report('done', { ...describe(interaction), confirmation: describe(confirmation), target: target.id, reason });
  } catch (error) {
    // The guide's catch is for the minute running out, which the test
    // never lets happen: anything caught here is an error.
    reportError('ban confirmation', error);
    await interaction.editReply({ content: 'Confirmation not received within 1 minute, cancelling', components: [] });
  }
}
