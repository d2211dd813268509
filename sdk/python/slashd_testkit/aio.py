"""The asyncio flavour: the same API, each call awaited.

Every object of the kit is wrapped: its methods become coroutines that run
the synchronous call in a thread (asyncio.to_thread), so a test's event loop
(and a bot running on it) keeps running while a member acts or a journal
wait is long-polled. Attributes that are plain data (`reply.content`,
`world.apps`) are read as they are.

    from slashd_testkit import aio
    async with await aio.start() as server:
        world = await server.world(spec)
        reply = await world.as_("alice").in_("general").run("/ping")
"""

from __future__ import annotations

import asyncio
import functools
from typing import Any

from . import core

_KIT = (core.Server, core.World, core.Actor, core.Reply, core.Modal, core.Events, core.Clock, core.Fault)
# Methods that only make another object, with no I/O: called at once, not in a thread.
_LOCAL = {"as_", "in_", "waiting", "channel", "buttons"}


def wrap(value: Any) -> Any:
    if isinstance(value, _KIT):
        return Async(value)
    if isinstance(value, list) and any(isinstance(v, _KIT) for v in value):
        return [wrap(v) for v in value]
    return value


class Async:
    """An object of the kit whose methods are awaited."""

    def __init__(self, target: Any):
        object.__setattr__(self, "_target", target)

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._target, name)
        if not callable(attr) or isinstance(attr, _KIT):
            return wrap(attr)
        if name in _LOCAL:
            return lambda *a, **k: wrap(attr(*a, **k))

        @functools.wraps(attr)
        async def call(*args: Any, **kwargs: Any) -> Any:
            return wrap(await asyncio.to_thread(attr, *args, **kwargs))
        return call

    @property
    def sync(self) -> Any:
        """The synchronous object underneath."""
        return self._target

    async def __aenter__(self) -> "Async":
        return self

    async def __aexit__(self, *exc: Any) -> None:
        close = getattr(self._target, "close", None)
        if close is not None:
            await asyncio.to_thread(close)

    def __repr__(self) -> str:
        return f"<async {self._target!r}>"


async def start(bin: Any = None, **kwargs: Any) -> Async:
    """core.start() in a thread: a started Server, wrapped."""
    return Async(await asyncio.to_thread(core.start, bin, **kwargs))


async def connect(url: Any = None, admin_token: Any = None) -> Async:
    """core.connect(), wrapped."""
    return Async(core.connect(url, admin_token))
