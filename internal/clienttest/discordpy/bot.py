"""discord.py's examples/app_commands/basic.py, grown the way its docs
teach, run by internal/clienttest/discordpy's tests against slashd.

The only change from a bot aimed at Discord is where it connects: Route.BASE
(the REST API) and DiscordWebSocket.DEFAULT_GATEWAY (discord.py 2.2's Client
connects there; only AutoShardedClient asks GET /gateway/bot). Everything
else is the library's defaults.

It reports what it saw as JSON lines on stdout ({"event": ...}) and takes
orders from the test as JSON lines on stdin ({"do": ...}, answered by
{"event": "did", ...}); stdin's end closes the client.
"""

import asyncio
import base64
import io
import json
import logging
import os
import struct
import sys
import zlib

import discord
import yarl
from discord import app_commands

ROOT = os.environ['SLASHD_URL']  # http://127.0.0.1:PORT
discord.http.Route.BASE = ROOT + '/api/v10'
discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL('ws' + ROOT[len('http'):] + '/gateway')

MY_GUILD = discord.Object(id=int(os.environ['SLASHD_GUILD_ID']))


def report(event, **fields):
    print(json.dumps({'event': event, **fields}), flush=True)


def failure(exc):
    """What a step's exception was: the API's status and code, if any."""
    if isinstance(exc, discord.HTTPException):
        return {'error': type(exc).__name__, 'status': exc.status, 'code': exc.code, 'text': exc.text}
    return {'error': type(exc).__name__, 'text': str(exc)}


class RateLimitLog(logging.Handler):
    """Reports discord.py's "We are being rate limited" warnings, so that the
    test knows a burst did meet a 429 (which discord.py then waited out)."""

    def emit(self, record):
        msg = record.getMessage()
        if 'rate limit' in msg:
            report('rate_limited', message=msg)


class MyClient(discord.Client):
    def __init__(self, *, intents: discord.Intents):
        super().__init__(intents=intents)
        # A CommandTree holds the application commands' state.
        self.tree = app_commands.CommandTree(self)

    # As the example does: copy the global commands to one guild and sync
    # them there, so that they show at once.
    async def setup_hook(self):
        self.tree.copy_global_to(guild=MY_GUILD)
        synced = await self.tree.sync(guild=MY_GUILD)
        report('synced', commands=sorted(c.name for c in synced))
        self.loop.create_task(self.take_orders())

    async def take_orders(self):
        loop = asyncio.get_running_loop()
        while True:
            line = await loop.run_in_executor(None, sys.stdin.readline)
            if not line:
                await self.close()
                return
            order = json.loads(line)
            try:
                done = await ORDERS[order['do']](self, order)
            except Exception as exc:  # reported, not raised: the test reads it
                done = failure(exc)
            report('did', do=order['do'], **done)


intents = discord.Intents.default()
client = MyClient(intents=intents)


@client.event
async def on_ready():
    report('ready', user=str(client.user.id), guilds=[str(g.id) for g in client.guilds])


@client.event
async def on_guild_join(guild: discord.Guild):
    report('guild_join', guild=str(guild.id), name=guild.name, channels=sorted(c.name for c in guild.channels))


@client.event
async def on_guild_remove(guild: discord.Guild):
    report('guild_remove', guild=str(guild.id))


@client.event
async def on_guild_update(before: discord.Guild, after: discord.Guild):
    report('guild_update', guild=str(after.id), before=before.name, name=after.name)


@client.event
async def on_guild_channel_create(channel: discord.abc.GuildChannel):
    report('channel_create', guild=str(channel.guild.id), channel=str(channel.id), name=channel.name)


@client.event
async def on_guild_channel_delete(channel: discord.abc.GuildChannel):
    report('channel_delete', guild=str(channel.guild.id), channel=str(channel.id), name=channel.name)


@client.event
async def on_guild_role_create(role: discord.Role):
    report('role_create', guild=str(role.guild.id), role=str(role.id), name=role.name)


def interaction_fields(interaction: discord.Interaction):
    return {
        'id': str(interaction.id),
        'user': str(interaction.user.id),
        'guild': str(interaction.guild_id),
        'guild_cached': interaction.guild is not None,
        'channel_type': type(interaction.channel).__name__,
        'command': interaction.command.name if interaction.command else None,
    }


@client.tree.command()
async def hello(interaction: discord.Interaction):
    """Says hello!"""
    await interaction.response.send_message(f'Hi, {interaction.user.mention}')
    report('hello', **interaction_fields(interaction))


@client.tree.command()
@app_commands.describe(
    first_value='The first value you want to add something to',
    second_value='The value you want to add to the first value',
)
async def add(interaction: discord.Interaction, first_value: int, second_value: int):
    """Adds two numbers together."""
    await interaction.response.send_message(f'{first_value} + {second_value} = {first_value + second_value}')
    report('add', **interaction_fields(interaction))


@client.tree.command()
async def count(interaction: discord.Interaction):
    """Counts to two: an answer and a follow-up, both edited, and a third
    follow-up deleted."""
    await interaction.response.send_message('one')
    second = await interaction.followup.send('two', wait=True)
    await second.edit(content='two!')
    first = await interaction.original_response()
    await first.edit(content='one!')
    third = await interaction.followup.send('three', wait=True)
    await third.delete()
    report('count', first=str(first.id), second=str(second.id), third=str(third.id), **interaction_fields(interaction))


def png(width, height):
    """A width×height PNG (a gradient), made with the standard library as
    a bot makes the image it sends."""
    def chunk(kind, data):
        return struct.pack('>I', len(data)) + kind + data + struct.pack('>I', zlib.crc32(kind + data))
    rows = b''.join(b'\x00' + b''.join(bytes((x * 255 // width, y * 255 // height, 128)) for x in range(width))
                    for y in range(height))
    return (b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', width, height, 8, 2, 0, 0, 0)) +
            chunk(b'IDAT', zlib.compress(rows)) + chunk(b'IEND', b''))


@client.tree.command()
async def chart(interaction: discord.Interaction):
    """Draws a chart: an image sent as a file (discord.File), read back."""
    data = png(120, 80)
    await interaction.response.send_message(
        'Your chart', file=discord.File(io.BytesIO(data), filename='chart.png', description='a gradient'))
    message = await interaction.original_response()
    attachment = message.attachments[0]
    read = await attachment.read()  # the library fetches attachment.url
    report('chart', png=base64.b64encode(data).decode(), url=attachment.url, proxy_url=attachment.proxy_url,
           filename=attachment.filename, width=attachment.width, height=attachment.height,
           content_type=attachment.content_type, size=attachment.size, description=attachment.description,
           read_back=read == data, **interaction_fields(interaction))


async def step(steps, name, coro):
    """Runs one step of /note, recording its outcome under name."""
    try:
        result = await coro
    except Exception as exc:
        steps[name] = failure(exc)
        return None
    steps[name] = {'ok': True}
    if isinstance(result, discord.Message):
        steps[name].update(id=str(result.id), content=result.content, author=str(result.author.id),
                           edited=result.edited_at is not None)
    return result


@client.tree.command()
@app_commands.describe(text='What to note')
async def note(interaction: discord.Interaction, text: str):
    """Posts a note in the channel, edits it, reads it back and deletes it."""
    await interaction.response.send_message(f'Noting {text}')
    steps = {}
    channel = interaction.channel
    answer = await interaction.original_response()
    await step(steps, 'fetch_answer', channel.fetch_message(answer.id))
    message = await step(steps, 'send', channel.send(text))
    if message is not None:
        await step(steps, 'edit', message.edit(content=text + ' (edited)'))
        await step(steps, 'fetch', channel.fetch_message(message.id))
        await step(steps, 'delete', message.delete())
        await step(steps, 'fetch_deleted', channel.fetch_message(message.id))
    await interaction.followup.send(f'Noted: {text}', ephemeral=True)
    report('note', steps=steps, **interaction_fields(interaction))


@client.tree.error
async def on_app_command_error(interaction: discord.Interaction, error: app_commands.AppCommandError):
    """The tree's error handler (discord.py's docs: CommandTree.error): a
    handler that raised is reported, so that the test fails at once."""
    report('error', id=str(interaction.id), command=interaction.command.name if interaction.command else None,
           **failure(getattr(error, 'original', error)))


async def order_guilds(client, order):
    return {'guilds': sorted(str(g.id) for g in client.guilds)}


async def order_guild(client, order):
    """What the cache holds of a guild: its name, channels and roles."""
    guild = client.get_guild(int(order['guild']))
    if guild is None:
        return {'cached': False}
    return {'cached': True, 'name': guild.name, 'channels': sorted(c.name for c in guild.channels),
            'roles': sorted(r.name for r in guild.roles)}


async def order_burst(client, order):
    """Fetches a channel n times at once: more than the global limit allows."""
    channel = int(order['channel'])
    results = await asyncio.gather(*(client.fetch_channel(channel) for _ in range(order['n'])),
                                   return_exceptions=True)
    errors = [failure(r) for r in results if isinstance(r, BaseException)]
    return {'ok': len(results) - len(errors), 'errors': errors}


async def order_sync_global(client, order):
    """Syncs the tree's global commands too, as many bots do beside the
    example's guild sync."""
    synced = await client.tree.sync()
    return {'commands': sorted(c.name for c in synced)}


ORDERS = {
    'guilds': order_guilds,
    'guild': order_guild,
    'burst': order_burst,
    'sync_global': order_sync_global,
}

logging.getLogger('discord.http').addHandler(RateLimitLog(logging.WARNING))
client.run(os.environ['SLASHD_BOT_TOKEN'])
report('closed')
