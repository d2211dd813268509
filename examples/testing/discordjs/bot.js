// The bot, as the discord.js guide builds its index.js ("Creating the main
// file", "Command handling", "Event handling"), as a function so that the
// tests run it too. The one line for slashd: `rest: { api }` when `api` is
// given; discord.js then finds the gateway through GET /gateway/bot there.
import { Client, Collection, Events, GatewayIntentBits, MessageFlags } from 'discord.js';
import { commands } from './commands.js';

export function createClient({ api } = {}) {
  const client = new Client({
    intents: [GatewayIntentBits.Guilds],
    ...(api ? { rest: { api } } : {}),
  });

  client.commands = new Collection();
  for (const command of commands) client.commands.set(command.data.name, command);

  client.once(Events.ClientReady, (readyClient) => {
    console.log(`Ready! Logged in as ${readyClient.user.tag}`);
  });

  client.on(Events.InteractionCreate, async (interaction) => {
    try {
      if (interaction.isChatInputCommand()) {
        const command = interaction.client.commands.get(interaction.commandName);
        if (!command) {
          console.error(`No command matching ${interaction.commandName} was found.`);
          return;
        }
        await command.execute(interaction);
      } else if (interaction.isButton() && interaction.customId.startsWith('vote-')) {
        const verdict = interaction.customId === 'vote-accept' ? 'accepted' : 'rejected';
        await interaction.update({ content: `Proposal ${verdict} by ${interaction.user.username}.`, components: [] });
      } else if (interaction.isModalSubmit() && interaction.customId === 'feedback-modal') {
        const reason = interaction.fields.getTextInputValue('reason');
        await interaction.reply({ content: `Thanks for your feedback: ${reason}`, flags: MessageFlags.Ephemeral });
      }
    } catch (error) {
      console.error(error);
      if (!interaction.isRepliable()) return;
      const answer = { content: 'There was an error while executing this command!', flags: MessageFlags.Ephemeral };
      if (interaction.replied || interaction.deferred) await interaction.followUp(answer).catch(console.error);
      else await interaction.reply(answer).catch(console.error);
    }
  });

  return client;
}
