// "Advanced command creation": choices; "Parsing options": choices.
import { SlashCommandBuilder } from 'discord.js';
import { interaction as describe, report } from '../../report.js';

export const data = new SlashCommandBuilder()
  .setName('gif')
  .setDescription('Sends a random gif!')
  .addStringOption((option) =>
    option.setName('category')
      .setDescription('The gif category')
      .setRequired(true)
      .addChoices(
        { name: 'Funny', value: 'gif_funny' },
        { name: 'Meme', value: 'gif_meme' },
        { name: 'Movie', value: 'gif_movie' },
      ));

export async function execute(interaction) {
  const category = interaction.options.getString('category');
  // category must be one of 'gif_funny', 'gif_meme', or 'gif_movie'
  await interaction.reply(`Here is a ${category} gif.`);
  report('done', { ...describe(interaction), category });
}
