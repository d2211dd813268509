// "Advanced command creation": subcommands; "Parsing options": subcommands.
import { SlashCommandBuilder } from 'discord.js';
import { interaction as describe, report } from '../../report.js';

export const data = new SlashCommandBuilder()
  .setName('info')
  .setDescription('Get info about a user or a server!')
  .addSubcommand((subcommand) =>
    subcommand
      .setName('user')
      .setDescription('Info about a user')
      .addUserOption((option) => option.setName('target').setDescription('The user')))
  .addSubcommand((subcommand) =>
    subcommand
      .setName('server')
      .setDescription('Info about the server'));

export async function execute(interaction) {
  if (interaction.options.getSubcommand() === 'user') {
    const user = interaction.options.getUser('target');

    if (user) {
      await interaction.reply(`Username: ${user.username}\nID: ${user.id}`);
    } else {
      await interaction.reply(`Your username: ${interaction.user.username}\nYour ID: ${interaction.user.id}`);
    }
  } else if (interaction.options.getSubcommand() === 'server') {
    await interaction.reply(`Server name: ${interaction.guild.name}\nTotal members: ${interaction.guild.memberCount}`);
  }
  report('done', {
    ...describe(interaction),
    subcommand: interaction.options.getSubcommand(),
    target: interaction.options.getUser('target')?.id ?? null,
    targetMember: interaction.options.getMember('target')?.id ?? null,
  });
}
