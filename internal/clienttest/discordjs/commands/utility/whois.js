// "Frequently asked questions: How do I fetch a user by id?"
// (popular-topics/faq): `client.users.fetch(id)`, which asks
// GET /users/{id} for a user discord.js has not cached. An id that names
// no one rejects with the API's error (10013 Unknown User), which the
// command reports instead of a name.
import { SlashCommandBuilder } from 'discord.js';
import { interaction as describe, report } from '../../report.js';

export const data = new SlashCommandBuilder()
  .setName('whois')
  .setDescription('Looks a user up by id.')
  .addStringOption((option) => option.setName('id').setDescription('The user id').setRequired(true));

export async function execute(interaction) {
  const id = interaction.options.getString('id');
  try {
    const user = await interaction.client.users.fetch(id);
    await interaction.reply(`${user.username} (bot: ${user.bot})`);
    report('done', { ...describe(interaction), fetchedId: user.id, fetchedName: user.username, errorCode: null });
  } catch (error) {
    await interaction.reply('No such user.');
    report('done', { ...describe(interaction), fetchedId: null, fetchedName: null, errorCode: error.code ?? null });
  }
}
