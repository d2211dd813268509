// Discordeno 21.0.0's guide bot, run by internal/clienttest/discordeno's
// tests against slashd: the "Reaction Roles (button) Bot" of its guide
// (website/docs/examples/reactionroles.md; the finished code is its
// repository's examples/reaction-roles at tag 21.0.0, here in one plain
// JavaScript file) with the /ping command of its examples/minimal.
//
// The only change from a bot aimed at Discord is rest.proxy.baseUrl, the
// option Discordeno documents for sending its REST requests elsewhere (its
// bigbot guide, step 4); the gateway's URL then comes from GET
// /gateway/bot. Everything else is the guide's: createBot with the desired
// properties the example asks for, no intents, commands upserted in the
// guild with bot.rest.upsertGuildApplicationCommands, answers through
// interaction.respond / edit / deferEdit / delete and
// bot.helpers.sendMessage / editMessage / addRole / removeRole.
//
// It reports what it saw as JSON lines on stdout ({"event": ...}); stdin's
// end shuts it down.
import { EventEmitter } from 'node:events'
import {
  ApplicationCommandOptionTypes,
  ApplicationCommandTypes,
  ButtonStyles,
  commandOptionsParser,
  createBot,
  DiscordInteractionContextType,
  InteractionTypes,
  MessageComponentTypes,
} from '@discordeno/bot'

const report = (event, fields = {}) =>
  console.log(JSON.stringify({ event, ...fields }, (_, v) => (typeof v === 'bigint' ? v.toString() : v)))

// The example's collector (src/collector.ts).
class ItemCollector extends EventEmitter {
  onItem(callback) {
    this.on('item', callback)
  }

  collect(item) {
    this.emit('item', item)
  }
}
const collectors = new Set()

const bot = createBot({
  token: process.env.SLASHD_BOT_TOKEN,
  rest: { proxy: { baseUrl: `${process.env.SLASHD_URL}/api` } },
  // The example's src/bot.ts.
  desiredProperties: {
    user: { id: true },
    message: { id: true },
    member: { roles: true },
    interaction: {
      id: true,
      data: true,
      type: true,
      user: true,
      token: true,
      member: true,
      message: true,
      guildId: true,
      channelId: true,
    },
    interactionCallbackResponse: { resource: true },
    interactionResource: { message: true },
    role: { id: true },
  },
})

// examples/minimal's /ping.
const ping = {
  name: 'ping',
  description: 'Ping the Bot!',
  type: ApplicationCommandTypes.ChatInput,
  async execute(interaction) {
    await interaction.respond('🏓 Pong!')
    report('ping', { id: interaction.id })
  },
}

const messageActionRowTemplate = {
  type: MessageComponentTypes.ActionRow,
  components: [
    { type: MessageComponentTypes.Button, style: ButtonStyles.Success, customId: 'reactionRoles-add', emoji: { name: '➕' }, label: 'Add', disabled: false },
    { type: MessageComponentTypes.Button, style: ButtonStyles.Danger, customId: 'reactionRoles-remove', emoji: { name: '➖' }, label: 'Remove', disabled: false },
    { type: MessageComponentTypes.Button, style: ButtonStyles.Success, customId: 'reactionRoles-save', emoji: { name: '✅' }, label: 'Save' },
  ],
}

const removeActionRowTemplate = {
  type: MessageComponentTypes.ActionRow,
  components: [
    { type: MessageComponentTypes.SelectMenu, customId: 'reactionRoles-remove-selectMenu', maxValues: 1, minValues: 1, placeholder: 'Select roles', options: [] },
  ],
}

// The example's getRoleButtons: up to 5 buttons a row.
function getRoleButtons(roles) {
  const actionRows = []
  if (roles.length === 0) return actionRows
  actionRows.push({ type: MessageComponentTypes.ActionRow, components: [] })
  for (const roleInfo of roles) {
    let actionRow = actionRows.at(-1)
    if (actionRow.components.length === 5) {
      actionRow = { type: MessageComponentTypes.ActionRow, components: [] }
      actionRows.push(actionRow)
    }
    actionRow.components.push({
      type: MessageComponentTypes.Button,
      style: roleInfo.color,
      emoji: { name: roleInfo.emoji },
      label: roleInfo.label,
      customId: `reactionRoles-role-${roleInfo.role.id}`,
    })
  }
  return actionRows
}

// The example's src/commands/roles.ts (without the Add flow's select
// menus and modal).
const roles = {
  name: 'roles',
  description: 'Role management on your server.',
  contexts: [DiscordInteractionContextType.Guild],
  defaultMemberPermissions: ['MANAGE_GUILD', 'MANAGE_ROLES'],
  options: [
    {
      name: 'reactions',
      description: 'Manage the role reactions on your server.',
      type: ApplicationCommandOptionTypes.SubCommandGroup,
      options: [
        {
          name: 'create',
          description: 'Create a reaction role on your server.',
          type: ApplicationCommandOptionTypes.SubCommand,
          options: [
            { name: 'role', description: 'What role would you like to set for this button?', type: ApplicationCommandOptionTypes.Role, required: true },
            { name: 'emoji', description: "What would you like to set as this button's emoji?", type: ApplicationCommandOptionTypes.String, required: true },
            {
              name: 'color',
              description: "What color would you like to set as this button's color?",
              type: ApplicationCommandOptionTypes.Integer,
              required: true,
              choices: [
                { name: 'Blue', value: ButtonStyles.Primary },
                { name: 'Green', value: ButtonStyles.Success },
                { name: 'Grey', value: ButtonStyles.Secondary },
                { name: 'Red', value: ButtonStyles.Danger },
              ],
            },
            { name: 'label', description: 'What would you like to set for the name on this button?', type: ApplicationCommandOptionTypes.String, maxLength: 80 },
          ],
        },
      ],
    },
  ],
  async execute(interaction, args) {
    if (!args.reactions?.create) return
    if (!interaction.channelId) {
      await interaction.respond('Could not get the current channel.', { isPrivate: true })
      return
    }
    let roleInfos = [args.reactions.create]
    const roleMessage = await bot.helpers.sendMessage(interaction.channelId, {
      content: 'Pick your roles',
      components: getRoleButtons(roleInfos),
    })
    const messageActionRow = structuredClone(messageActionRowTemplate)
    const message = await interaction.respond(
      { content: 'Use the buttons in this message to edit the message below.', components: [messageActionRow] },
      { isPrivate: true, withResponse: true },
    )
    if (!message?.resource?.message) {
      throw new Error(`interaction.respond with withResponse returned ${JSON.stringify(message)}`)
    }
    report('roles', { id: interaction.id, role: args.reactions.create.role.id, roleMessage: roleMessage.id, menu: message.resource.message.id })

    const itemCollector = new ItemCollector()
    collectors.add(itemCollector)
    itemCollector.onItem(async (i) => {
      if (i.message?.id !== message.resource?.message?.id) return
      try {
        if (i.data?.customId === 'reactionRoles-save') {
          collectors.delete(itemCollector)
          await i.deferEdit()
          await i.delete()
          report('saved', { id: i.id })
          return
        }
        if (i.data?.customId === 'reactionRoles-remove') {
          const removeActionRow = structuredClone(removeActionRowTemplate)
          for (const roleInfo of roleInfos) {
            removeActionRow.components[0].options.push({ label: `${roleInfo.emoji} ${roleInfo.label ?? ''}`, value: roleInfo.role.id.toString() })
          }
          await i.edit({ content: 'Select what reaction role to remove', components: [removeActionRow] })
          report('remove', { id: i.id })
          return
        }
        if (i.data?.customId === 'reactionRoles-remove-selectMenu') {
          const roleToRemove = i.data?.values?.[0]
          if (!roleToRemove) throw new Error('Unable to get the role to remove')
          await i.deferEdit()
          roleInfos = roleInfos.filter((roleInfo) => roleInfo.role.id.toString() !== roleToRemove)
          await bot.helpers.editMessage(interaction.channelId, roleMessage.id, { components: getRoleButtons(roleInfos) })
          messageActionRow.components[0].disabled = false
          if (roleInfos.length === 0) messageActionRow.components[1].disabled = true
          await i.edit({ content: 'Use the buttons in this message to edit the message below.', components: [messageActionRow] })
          report('removed', { id: i.id, role: roleToRemove })
          return
        }
        throw new Error('Unknown button')
      } catch (err) {
        report('error', { where: i.data?.customId, id: i.id, message: String(err), cause: err.cause })
      }
    })
  },
}

const commands = new Map([ping, roles].map((cmd) => [cmd.name, cmd]))

bot.events = {
  ready: ({ shardId, user }) => report('ready', { shardId, user: user.id }),
  // The example's src/events/interactionCreate.ts.
  interactionCreate: async (interaction) => {
    for (const collector of collectors) collector.collect(interaction)

    if (interaction.type === InteractionTypes.ApplicationCommand) {
      if (!interaction.data) return
      const command = commands.get(interaction.data.name)
      if (!command) return
      try {
        await command.execute(interaction, commandOptionsParser(interaction))
      } catch (err) {
        report('error', { where: interaction.data.name, id: interaction.id, message: String(err), cause: err.cause })
      }
    }

    if (interaction.type === InteractionTypes.MessageComponent && interaction.data?.componentType === MessageComponentTypes.Button) {
      if (!interaction.data?.customId?.startsWith('reactionRoles-role-')) return
      if (!interaction.guildId || !interaction.member) return
      const roleId = BigInt(interaction.data.customId.slice('reactionRoles-role-'.length))
      const alreadyHasRole = !!interaction.member.roles.find((role) => role === roleId)
      try {
        if (alreadyHasRole) {
          await bot.helpers.removeRole(interaction.guildId, interaction.user.id, roleId, `Reaction role button for role id ${roleId}`)
          await interaction.respond(`I removed from you the <@&${roleId}> role.`, { isPrivate: true })
          report('role', { id: interaction.id, removed: roleId })
          return
        }
        await bot.helpers.addRole(interaction.guildId, interaction.user.id, roleId, `Reaction role button for role id ${roleId}`)
        await interaction.respond(`I added to you the <@&${roleId}> role.`, { isPrivate: true })
        report('role', { id: interaction.id, added: roleId })
      } catch (err) {
        // The example answers with its "I could not give you the role"
        // text; the test wants to know why.
        report('error', { where: 'role button', id: interaction.id, message: String(err), cause: err.cause })
      }
    }
  },
}

process.stdin.on('end', async () => {
  await bot.shutdown()
  process.exit(0)
})
process.stdin.resume()

try {
  // The example's src/register-commands.ts, before the bot starts.
  const registered = await bot.rest.upsertGuildApplicationCommands(process.env.SLASHD_GUILD_ID, [...commands.values()])
  report('registered', { commands: registered.map((c) => c.name).sort() })
  await bot.start()
} catch (err) {
  report('error', { where: 'start', message: String(err), cause: err.cause })
}
