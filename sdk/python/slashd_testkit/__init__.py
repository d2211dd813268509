"""slashd's test kit for Python: run a slashd server (or use the one `slashd
test` started), make test worlds, act as their members, and read what the
bot did. Standard library only; see README.md for the API.

    import slashd_testkit as slashd
    with slashd.start() as server:
        world = server.world({"name": "t", "users": {"alice": {}}, ...})
        reply = world.as_("alice").in_("general").run("/ping")
        assert reply.content == "pong"
"""

from .core import (EPHEMERAL, Actor, Clock, Events, Fault, Handle, Modal, Reply, Server, SlashdError, World,
                   connect, find_binary, start, world_name)

__all__ = ["EPHEMERAL", "Actor", "Clock", "Events", "Fault", "Handle", "Modal", "Reply", "Server", "SlashdError",
           "World", "connect", "find_binary", "start", "world_name"]
__version__ = "0.1.0"
