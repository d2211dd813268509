// The bot's slash commands, each as the discord.js guide writes one
// ("Creating slash commands"): `data`, a SlashCommandBuilder, and
// `execute(interaction)`.
import {
  ActionRowBuilder,
  ButtonBuilder,
  ButtonStyle,
  MessageFlags,
  ModalBuilder,
  PermissionFlagsBits,
  SlashCommandBuilder,
  TextInputBuilder,
  TextInputStyle,
} from 'discord.js';

// "Command options": a required string and an optional integer.
export const greet = {
  data: new SlashCommandBuilder()
    .setName('greet')
    .setDescription('Greets someone')
    .addStringOption((o) => o.setName('name').setDescription('Who to greet').setRequired(true))
    .addIntegerOption((o) => o.setName('times').setDescription('How many times').setMinValue(1).setMaxValue(5)),
  async execute(interaction) {
    const name = interaction.options.getString('name');
    const times = interaction.options.getInteger('times') ?? 1;
    await interaction.reply(Array(times).fill(`Hello, ${name}!`).join(' '));
  },
};

// "Response methods": an ephemeral reply only the invoker sees.
export const secret = {
  data: new SlashCommandBuilder().setName('secret').setDescription('Tells you a secret'),
  async execute(interaction) {
    await interaction.reply({ content: 'The cake is a lie.', flags: MessageFlags.Ephemeral });
  },
};

// "Deferred responses" and "Follow-ups": work that takes longer than 3 s.
export const report = {
  data: new SlashCommandBuilder().setName('report').setDescription('Builds a report'),
  async execute(interaction) {
    await interaction.deferReply();
    const guild = await interaction.client.guilds.fetch(interaction.guildId); // the slow part
    await interaction.editReply(`Report for ${guild.name}: all good.`);
    await interaction.followUp('Report sent to the archive.');
  },
};

// "Buttons": a message with a button; the click updates it (bot.js).
export const vote = {
  data: new SlashCommandBuilder().setName('vote').setDescription('Asks for a vote'),
  async execute(interaction) {
    const accept = new ButtonBuilder().setCustomId('vote-accept').setLabel('Accept').setStyle(ButtonStyle.Success);
    const reject = new ButtonBuilder().setCustomId('vote-reject').setLabel('Reject').setStyle(ButtonStyle.Danger);
    await interaction.reply({ content: 'Accept the proposal?', components: [new ActionRowBuilder().addComponents(accept, reject)] });
  },
};

// "Modals": showModal, answered when submitted (bot.js).
export const feedback = {
  data: new SlashCommandBuilder().setName('feedback').setDescription('Send feedback'),
  async execute(interaction) {
    const modal = new ModalBuilder().setCustomId('feedback-modal').setTitle('Feedback');
    const reason = new TextInputBuilder().setCustomId('reason').setLabel('What should change?').setStyle(TextInputStyle.Paragraph);
    modal.addComponents(new ActionRowBuilder().addComponents(reason));
    await interaction.showModal(modal);
  },
};

// "Slash command permissions": only members who may ban see /ban.
export const ban = {
  data: new SlashCommandBuilder()
    .setName('ban')
    .setDescription('Bans a member')
    .addUserOption((o) => o.setName('target').setDescription('Who').setRequired(true))
    .setDefaultMemberPermissions(PermissionFlagsBits.BanMembers),
  async execute(interaction) {
    const target = interaction.options.getUser('target');
    await interaction.reply(`Banned ${target.username} (not really).`);
  },
};

export const commands = [greet, secret, report, vote, feedback, ban];
