// "Frequently asked questions: How do I fetch a member by id?"
// (popular-topics/faq) and the guide's managers: `guild.members.fetch(id)`
// asks GET /guilds/{id}/members/{user_id} for a member discord.js has not
// cached, `guild.roles.fetch()` GET /guilds/{id}/roles,
// `guild.channels.fetch()` GET /guilds/{id}/channels and `guild.fetch()`
// GET /guilds/{id}?with_counts=true. An id that names no member rejects
// with the API's error, which the command reports instead.
import { SlashCommandBuilder } from 'discord.js';
import { interaction as describe, report } from '../../report.js';

export const data = new SlashCommandBuilder()
  .setName('member')
  .setDescription('Looks a member of this server up by id.')
  .addStringOption((option) => option.setName('id').setDescription('The user id').setRequired(true));

export async function execute(interaction) {
  const id = interaction.options.getString('id');
  const { guild } = interaction;
  const cached = guild.members.cache.has(id);
  try {
    const member = await guild.members.fetch(id);
    const roles = await guild.roles.fetch();
    const channels = await guild.channels.fetch();
    const fresh = await guild.fetch();
    await interaction.reply(`${member.user.username} (${member.nickname ?? 'no nickname'}) has ${member.roles.cache.size} of ${roles.size} roles.`);
    report('done', {
      ...describe(interaction),
      cachedBefore: cached,
      fetchedId: member.id,
      memberUsername: member.user.username,
      nickname: member.nickname,
      joinedAt: member.joinedAt?.toISOString() ?? null,
      memberRoleIds: [...member.roles.cache.keys()].sort(),
      roles: roles.map((r) => ({ id: r.id, name: r.name, permissions: r.permissions.bitfield.toString(), position: r.position })),
      channels: channels.map((c) => ({ id: c.id, name: c.name, type: c.type })),
      guildName: fresh.name,
      approximateMemberCount: fresh.approximateMemberCount ?? null,
      approximatePresenceCount: fresh.approximatePresenceCount ?? null,
      errorCode: null,
    });
  } catch (error) {
    await interaction.reply('No such member.');
    report('done', { ...describe(interaction), cachedBefore: cached, fetchedId: null, errorCode: error.code ?? null });
  }
}
