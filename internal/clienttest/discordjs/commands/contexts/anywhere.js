// "Slash command permissions: Contexts" (slash-commands/permissions#contexts):
// the builder's setContexts with InteractionContextType, here allowing
// every context instead of the guide's Guild only. The guide's pages show
// no installation types; setIntegrationTypes with ApplicationIntegrationType
// is the same builder's method (discord.js documentation:
// SharedSlashCommand#setIntegrationTypes), named as setContexts is. The
// command is ping.js's ("Creating slash commands"), answered with the
// default reply().
import {
  ApplicationIntegrationType,
  GuildMember,
  InteractionContextType,
  SlashCommandBuilder,
} from 'discord.js';
import { interaction as describe, report } from '../../report.js';

export const data = new SlashCommandBuilder()
  .setName('anywhere')
  .setDescription('Replies with Pong! in servers, DMs and group DMs.')
  .setIntegrationTypes(ApplicationIntegrationType.GuildInstall, ApplicationIntegrationType.UserInstall)
  .setContexts(InteractionContextType.Guild, InteractionContextType.BotDM, InteractionContextType.PrivateChannel);

export async function execute(interaction) {
  await interaction.reply('Pong!');
  // Where discord.js says the interaction came from, and what it made of
  // a DM or of a guild it does not have (the bot is not in it).
  const owners = interaction.authorizingIntegrationOwners;
  report('done', {
    ...describe(interaction),
    replied: interaction.replied,
    context: interaction.context,
    owners: owners.toJSON(),
    ownerGuildId: owners.guildId,
    ownerUserId: owners.userId,
    channelType: interaction.channel?.type ?? null,
    inGuild: interaction.inGuild(),
    inCachedGuild: interaction.inCachedGuild(),
    inRawGuild: interaction.inRawGuild(),
    guildCached: interaction.guild !== null,
    memberIsGuildMember: interaction.member instanceof GuildMember,
    appPermissions: interaction.appPermissions.bitfield.toString(),
  });
}
