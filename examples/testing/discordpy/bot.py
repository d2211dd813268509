"""A small discord.py bot, written the way discord.py's docs teach
(examples/app_commands/basic.py, views/confirm.py, modals/basic.py):
a Client with an app_commands.CommandTree synced to one guild, replies,
ephemeral replies, defer and a follow-up, a button that edits its message,
a modal, and a command only moderators see.

The one change from a bot aimed at Discord is where it connects, the base
URL: discord.py 2.2's REST base (Route.BASE) and its gateway
(DiscordWebSocket.DEFAULT_GATEWAY; discord.Client connects there without
asking GET /gateway/bot). Leave SLASHD_URL unset and it talks to Discord.

    SLASHD_URL=http://127.0.0.1:8080 DISCORD_TOKEN=… GUILD_ID=… python3 bot.py
"""

import asyncio
import os

import discord
import yarl
from discord import app_commands

SLASHD_URL = os.environ.get("SLASHD_URL")
if SLASHD_URL:  # http://127.0.0.1:PORT
    discord.http.Route.BASE = SLASHD_URL + "/api/v10"
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL("ws" + SLASHD_URL[len("http"):] + "/gateway")

MY_GUILD = discord.Object(id=int(os.environ["GUILD_ID"]))


class MyClient(discord.Client):
    def __init__(self, *, intents: discord.Intents):
        super().__init__(intents=intents)
        self.tree = app_commands.CommandTree(self)

    async def setup_hook(self):
        # Copy the global commands to our guild and sync them there, so that they show at once.
        self.tree.copy_global_to(guild=MY_GUILD)
        await self.tree.sync(guild=MY_GUILD)


intents = discord.Intents.default()
client = MyClient(intents=intents)


@client.event
async def on_ready():
    print(f"Logged in as {client.user} (ID: {client.user.id})", flush=True)


@client.tree.command()
@app_commands.describe(name="Who to greet", times="How many times")
async def greet(interaction: discord.Interaction, name: str, times: app_commands.Range[int, 1, 5] = 1):
    """Greets someone."""
    await interaction.response.send_message(" ".join([f"Hello, {name}!"] * times))


@client.tree.command()
async def secret(interaction: discord.Interaction):
    """Tells you a secret, and only you."""
    await interaction.response.send_message("The cake is in the oven.", ephemeral=True)


@client.tree.command()
async def report(interaction: discord.Interaction):
    """Takes a moment to write a report."""
    await interaction.response.defer(thinking=True)
    await asyncio.sleep(0.2)  # the slow work a deferred command does
    await interaction.followup.send(f"Report for {interaction.guild.name}: all quiet.")


class Confirm(discord.ui.View):
    def __init__(self):
        super().__init__(timeout=180)

    @discord.ui.button(label="Accept", style=discord.ButtonStyle.green)
    async def accept(self, interaction: discord.Interaction, button: discord.ui.Button):
        await interaction.response.edit_message(content=f"Accepted by {interaction.user.name}.", view=None)
        self.stop()

    @discord.ui.button(label="Decline", style=discord.ButtonStyle.grey)
    async def decline(self, interaction: discord.Interaction, button: discord.ui.Button):
        await interaction.response.edit_message(content=f"Declined by {interaction.user.name}.", view=None)
        self.stop()


@client.tree.command()
async def invite(interaction: discord.Interaction):
    """Asks whoever clicks first to accept."""
    await interaction.response.send_message("Join the raid tonight?", view=Confirm())


class Feedback(discord.ui.Modal, title="Feedback"):
    reason = discord.ui.TextInput(label="What do you think?", custom_id="reason", style=discord.TextStyle.long,
                                  max_length=300)

    async def on_submit(self, interaction: discord.Interaction):
        await interaction.response.send_message(f"Thanks for your feedback, {interaction.user.name}: {self.reason.value}",
                                                ephemeral=True)


@client.tree.command()
async def feedback(interaction: discord.Interaction):
    """Opens a feedback form."""
    await interaction.response.send_modal(Feedback())


@client.tree.command()
@app_commands.default_permissions(ban_members=True)
@app_commands.describe(member="Who to ban", reason="Why")
async def ban(interaction: discord.Interaction, member: discord.Member, reason: str = "no reason"):
    """Bans a member (only members who may ban see it)."""
    await interaction.response.send_message(f"{member.mention} is banned: {reason}")


client.run(os.environ["DISCORD_TOKEN"])
