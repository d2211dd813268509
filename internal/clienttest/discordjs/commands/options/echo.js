// "Advanced command creation": required options (the echo command).
import { SlashCommandBuilder } from 'discord.js';
import { interaction as describe, report } from '../../report.js';

export const data = new SlashCommandBuilder()
  .setName('echo')
  .setDescription('Replies with your input!')
  .addStringOption((option) =>
    option.setName('input')
      .setDescription('The input to echo back')
      .setRequired(true));

export async function execute(interaction) {
  const input = interaction.options.getString('input');
  await interaction.reply(input);
  report('done', { ...describe(interaction), input });
}
