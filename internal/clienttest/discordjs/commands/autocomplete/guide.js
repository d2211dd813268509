// "Autocomplete": enabling autocomplete, sending results.
import { SlashCommandBuilder } from 'discord.js';
import { interaction as describe, report } from '../../report.js';

export const data = new SlashCommandBuilder()
  .setName('guide')
  .setDescription('Search discordjs.guide!')
  .addStringOption((option) =>
    option.setName('query')
      .setDescription('Phrase to search for')
      .setAutocomplete(true));

export async function autocomplete(interaction) {
  const focusedValue = interaction.options.getFocused();
  const choices = ['Popular Topics: Threads', 'Sharding: Getting started', 'Library: Voice Connections', 'Interactions: Replying to slash commands', 'Popular Topics: Embed preview'];
  const filtered = choices.filter((choice) => choice.startsWith(focusedValue));
  await interaction.respond(
    filtered.map((choice) => ({ name: choice, value: choice })),
  );
  report('autocompleted', { ...describe(interaction), focused: focusedValue, responded: interaction.responded });
}

export async function execute(interaction) {
  // respond to the complete slash command
  const query = interaction.options.getString('query');
  await interaction.reply(`You searched for ${query}`);
  report('done', { ...describe(interaction), query });
}
