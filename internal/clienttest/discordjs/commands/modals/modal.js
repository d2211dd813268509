// "Modals": building and responding with modals, receiving modal
// submissions (interaction collectors: awaitModalSubmit, as in "Collectors":
// await modal submit), responding to and extracting data from modal
// submissions.
import { ActionRowBuilder, ModalBuilder, SlashCommandBuilder, TextInputBuilder, TextInputStyle } from 'discord.js';
import { interaction as describe, report } from '../../report.js';

export const data = new SlashCommandBuilder()
  .setName('modal')
  .setDescription('Shows My Modal');

export async function execute(interaction) {
  // Create the modal
  const modal = new ModalBuilder()
    .setCustomId('myModal')
    .setTitle('My Modal');

  // Create the text input components
  const favoriteColorInput = new TextInputBuilder()
    .setCustomId('favoriteColorInput')
    // The label is the prompt the user sees for this input
    .setLabel("What's your favorite color?")
    // Short means only a single line of text
    .setStyle(TextInputStyle.Short);

  const hobbiesInput = new TextInputBuilder()
    .setCustomId('hobbiesInput')
    .setLabel("What's some of your favorite hobbies?")
    // Paragraph means multiple lines of text.
    .setStyle(TextInputStyle.Paragraph);

  // An action row only holds one text input,
  // so you need one action row per text input.
  const firstActionRow = new ActionRowBuilder().addComponents(favoriteColorInput);
  const secondActionRow = new ActionRowBuilder().addComponents(hobbiesInput);

  // Add inputs to the modal
  modal.addComponents(firstActionRow, secondActionRow);

  // Show the modal to the user
  await interaction.showModal(modal);

  const filter = (i) => i.customId === 'myModal' && i.user.id === interaction.user.id;
  const submitted = interaction.awaitModalSubmit({ time: 60_000, filter });
  // The collector listens from here on: the test submits once it is told.
  report('awaitingModal', describe(interaction));
  const submission = await submitted;

  // Get the data entered by the user
  const favoriteColor = submission.fields.getTextInputValue('favoriteColorInput');
  const hobbies = submission.fields.getTextInputValue('hobbiesInput');
  await submission.reply({ content: `Your submission was received successfully! ${favoriteColor}; ${hobbies}` });
  report('done', { ...describe(interaction), submission: describe(submission), favoriteColor, hobbies });
}
