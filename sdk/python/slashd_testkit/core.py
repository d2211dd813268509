"""The synchronous kit: a slashd server, its test worlds and their members.

Everything here talks to slashd's admin API (docs/worlds.md, docs/journal.md,
docs/faults.md) with urllib: the kit has no dependency beyond the standard
library.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from datetime import timedelta
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Optional, Union

__all__ = [
    "SlashdError", "Server", "World", "Actor", "Reply", "Modal", "Events", "Clock", "Fault",
    "Handle", "connect", "start", "find_binary",
]

EPHEMERAL = 1 << 6


class SlashdError(Exception):
    """An answer of slashd that is not a success: its HTTP status, the API's
    error code and message, and the field errors (`errors`, as the API nests
    them, `_errors` at each leaf)."""

    def __init__(self, status: int, code: Optional[int], message: str, errors: Any = None,
                 body: Any = None, method: str = "", path: str = ""):
        self.status = status
        self.code = code
        self.message = message
        self.errors = errors
        self.body = body
        self.method = method
        self.path = path
        detail = f" {json.dumps(errors)}" if errors else ""
        super().__init__(f"{method} {path}: {status} (code {code}) {message}{detail}".strip())


class Handle(dict):
    """A JSON object of an answer whose keys read as attributes too:
    `world.apps["modbot"].bot_token` or `world.apps["modbot"]["bot_token"]`."""

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None


def _handles(value: Any) -> Any:
    if isinstance(value, dict):
        return Handle({k: _handles(v) for k, v in value.items()})
    if isinstance(value, list):
        return [_handles(v) for v in value]
    return value


def _duration(value: Union[str, int, float, timedelta]) -> str:
    """A Go duration string ("15m", "1500ms") from a string, seconds, or a timedelta."""
    if isinstance(value, str):
        return value
    seconds = value.total_seconds() if isinstance(value, timedelta) else float(value)
    return f"{round(seconds * 1000)}ms"


# --------------------------------------------------------------------------- server


class Server:
    """A slashd server: one `connect()`ed to, or one `start()`ed (then
    `close()` stops it and removes its data directory; `with` does both)."""

    def __init__(self, url: str, admin_token: str, *, process: Optional[subprocess.Popen] = None,
                 data_dir: Optional[str] = None, timeout: float = 60.0):
        self.url = url.rstrip("/")
        self.admin_token = admin_token
        self.api_url = self.url + "/api/v10"
        self.process = process
        self.data_dir = data_dir
        self.timeout = timeout

    # -- plumbing

    def request(self, method: str, path: str, body: Any = None, *, auth: Optional[str] = None,
                content_type: str = "application/json", timeout: Optional[float] = None) -> Any:
        """Sends one request (path under the server's URL) and answers its
        decoded JSON (None for 204); a status of 400 or more raises
        SlashdError. auth defaults to the admin token."""
        data = None
        if body is not None:
            data = body if isinstance(body, (bytes, str)) else json.dumps(body)
            data = data.encode() if isinstance(data, str) else data
        req = urllib.request.Request(self.url + path, data=data, method=method)
        req.add_header("Authorization", auth or f"Admin {self.admin_token}")
        if data is not None:
            req.add_header("Content-Type", content_type)
        try:
            with urllib.request.urlopen(req, timeout=timeout or self.timeout) as resp:
                raw = resp.read()
        except urllib.error.HTTPError as err:
            raise _error(err.code, err.read(), method, path) from None
        if not raw:
            return None
        return json.loads(raw)

    # -- worlds

    def world(self, spec: Union[Mapping[str, Any], str, Path]) -> "World":
        """Makes a test world from a spec: a dict, a JSON string, or the path
        of a JSON or YAML file (docs/worlds.md). A spec without `name` gets
        one, `world-` and a random suffix."""
        content_type = "application/json"
        if isinstance(spec, Path) or (isinstance(spec, str) and not spec.lstrip().startswith("{")):
            path = Path(spec)
            body: Any = path.read_bytes()
            if path.suffix in (".yaml", ".yml"):
                content_type = "application/yaml"
        elif isinstance(spec, str):
            body = json.loads(spec)
        else:
            body = dict(spec)
        if isinstance(body, dict) and "name" not in body:
            body["name"] = "world-" + secrets.token_hex(4)
        return World(self, self.request("POST", "/admin/v1/worlds", body, content_type=content_type))

    def get_world(self, name: str) -> "World":
        """A world already on the server (one `slashd test --world` applied,
        the demo), by name or id."""
        return World(self, self.request("GET", "/admin/v1/worlds/" + urllib.parse.quote(name)))

    def worlds(self) -> list:
        """Every world on the server, as GET /admin/v1/worlds lists them."""
        return _handles(self.request("GET", "/admin/v1/worlds"))

    # -- lifetime

    def close(self) -> None:
        """Stops a started server (SIGTERM, then SIGKILL after 10 s) and
        removes its data directory; a connected one is left alone."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None
        if self.data_dir is not None:
            shutil.rmtree(self.data_dir, ignore_errors=True)
            self.data_dir = None

    def __enter__(self) -> "Server":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<slashd {self.url}>"


def _error(status: int, raw: bytes, method: str, path: str) -> SlashdError:
    try:
        body = json.loads(raw)
    except ValueError:
        return SlashdError(status, None, raw.decode(errors="replace")[:500], None, raw, method, path)
    if not isinstance(body, dict):
        return SlashdError(status, None, str(body), None, body, method, path)
    return SlashdError(status, body.get("code"), body.get("message", ""), body.get("errors"), body, method, path)


def connect(url: Optional[str] = None, admin_token: Optional[str] = None) -> Server:
    """A server that runs already: url and admin_token, or else `slashd
    test`'s environment (SLASHD_URL, SLASHD_ADMIN_TOKEN)."""
    url = url or os.environ.get("SLASHD_URL")
    admin_token = admin_token or os.environ.get("SLASHD_ADMIN_TOKEN")
    if not url or not admin_token:
        raise ValueError("connect(): no url and admin token, and SLASHD_URL / SLASHD_ADMIN_TOKEN are not set "
                         "(run the tests under `slashd test -- …`, or use start())")
    return Server(url, admin_token)


# --------------------------------------------------------------------------- starting a binary

_MODULE = "module github.com/slashd/slashd"


def _checkout(start: Path) -> Optional[Path]:
    """The slashd checkout holding start, if any: the directory whose go.mod
    is slashd's module."""
    for d in [start, *start.parents]:
        mod = d / "go.mod"
        if mod.is_file() and mod.read_text(errors="replace").startswith(_MODULE):
            return d
    return None


def find_binary(bin: Optional[str] = None, build_dir: Optional[str] = None) -> str:
    """The slashd binary start() runs, in this order:

    1. `bin`, when given;
    2. the environment variable SLASHD_BIN;
    3. `slashd` on PATH;
    4. built from a slashd checkout with `go build ./cmd/slashd` (into
       build_dir), the checkout being the one that holds the working directory
       or this package (sdk/python of a clone).
    """
    for candidate in (bin, os.environ.get("SLASHD_BIN")):
        if candidate:
            if not os.access(candidate, os.X_OK):
                raise FileNotFoundError(f"slashd binary {candidate!r} is not an executable file")
            return candidate
    on_path = shutil.which("slashd")
    if on_path:
        return on_path
    checkout = _checkout(Path.cwd()) or _checkout(Path(__file__).resolve().parent)
    go = shutil.which("go")
    if checkout is None or go is None or build_dir is None:
        raise FileNotFoundError("no slashd binary: pass bin=, set SLASHD_BIN, put slashd on PATH, "
                                "or run from a slashd checkout with Go installed")
    out = os.path.join(build_dir, "slashd")
    done = subprocess.run([go, "build", "-o", out, "./cmd/slashd"], cwd=checkout,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if done.returncode != 0:
        raise RuntimeError(f"go build ./cmd/slashd in {checkout}: {done.stdout.decode(errors='replace')}")
    return out


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(bin: Optional[str] = None, *, args: Iterable[str] = (), ready_timeout: float = 60.0) -> Server:
    """Spawns `slashd serve` on a free loopback port with a new temporary
    data directory, waits until /healthz answers, and returns the Server;
    `close()` (or leaving a `with` block) stops it and removes the
    directory. args are more `serve` flags (`--world`, `--ratelimit=false`, …).
    The server's log is `slashd.log` in the data directory."""
    data_dir = tempfile.mkdtemp(prefix="slashd-testkit-")
    try:
        binary = find_binary(bin, build_dir=data_dir)
        for _attempt in range(3):  # a free port may be taken between the check and the listen
            server = _spawn(binary, data_dir, list(args), ready_timeout)
            if server is not None:
                return server
        raise RuntimeError(f"slashd serve did not start; its log: {Path(data_dir, 'slashd.log').read_text()[-2000:]}")
    except BaseException:
        shutil.rmtree(data_dir, ignore_errors=True)
        raise


def _spawn(binary: str, data_dir: str, args: list, ready_timeout: float) -> Optional[Server]:
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    env = {k: v for k, v in os.environ.items() if not k.startswith("SLASHD_")}
    log = open(os.path.join(data_dir, "slashd.log"), "ab")
    with log:
        proc = subprocess.Popen([binary, "serve", "--addr", f"127.0.0.1:{port}", "--data", data_dir, *args],
                                stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, env=env)
    deadline = time.monotonic() + ready_timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            return None
        try:
            with urllib.request.urlopen(url + "/healthz", timeout=2) as resp:
                if resp.status == 200:
                    break
        except (urllib.error.URLError, OSError):
            time.sleep(0.05)
    else:
        proc.kill()
        proc.wait()
        raise TimeoutError(f"slashd serve at {url} not healthy within {ready_timeout}s")
    bootstrap = json.loads(Path(data_dir, "bootstrap.json").read_text())
    return Server(url, bootstrap["admin_token"], process=proc, data_dir=data_dir)


# --------------------------------------------------------------------------- worlds


class World:
    """A test world: its ids and credentials by handle (`users`, `apps`,
    `guilds`, `dms`, `group_dms`, `bearer_tokens`, as POST /admin/v1/worlds
    answers them), its members (`as_`), journal (`events`), faults and clock."""

    def __init__(self, server: Server, answer: Mapping[str, Any]):
        self.server = server
        self.events = Events(self)
        self.clock = Clock(self)
        self._update(answer)

    def _update(self, answer: Mapping[str, Any]) -> None:
        self.raw = _handles(dict(answer))
        self.id: str = self.raw["id"]
        self.name: str = self.raw["name"]
        self.users = self.raw.get("users", Handle())
        self.apps = self.raw.get("apps", Handle())
        self.guilds = self.raw.get("guilds", Handle())
        self.dms = self.raw.get("dms", Handle())
        self.group_dms = self.raw.get("group_dms", Handle())
        self.bearer_tokens = self.raw.get("bearer_tokens", Handle())

    @property
    def path(self) -> str:
        return "/admin/v1/worlds/" + self.id

    def channel(self, handle: str, guild: Optional[str] = None) -> str:
        """A channel's id by handle (in guild, or in the one guild that has it)."""
        for name, g in self.guilds.items():
            if (guild is None or guild == name) and handle in g.get("channels", {}):
                return g["channels"][handle]
        raise KeyError(f"no channel {handle!r} in world {self.name}")

    def user(self, user: str) -> Handle:
        """A user's ids and credentials, by handle or id."""
        if user in self.users:
            return self.users[user]
        for u in self.users.values():
            if u.get("id") == user:
                return u
        raise KeyError(f"no user {user!r} in world {self.name}")

    def channel_id(self, place: str) -> str:
        """The id of a place as act's `in` names it: a channel's handle,
        `guild/channel`, a DM's or group DM's handle, or an id."""
        if place.isdigit():
            return place
        if "/" in place:
            guild, _, channel = place.partition("/")
            return self.channel(channel, guild)
        for dms in (self.dms, self.group_dms):
            if place in dms:
                dm = dms[place]
                return dm["id"] if isinstance(dm, dict) else dm
        return self.channel(place)

    def as_(self, user: str) -> "Actor":
        """One of the world's users (a handle or an id), to act as: then
        `.in_("general")` and `.run("/cmd opt:value")`."""
        return Actor(self, user)

    def act(self, action: Mapping[str, Any]) -> "Reply":
        """POST …/act with the action as given (docs/worlds.md)."""
        return Reply(self, dict(action), self.server.request("POST", self.path + "/act", dict(action),
                                                             timeout=self.server.timeout + 35))

    def fault(self, kind: str, **params: Any) -> "Fault":
        """Adds a fault (docs/faults.md): `world.fault("rest.429", app="modbot",
        route="POST /interactions/{}/{}/callback", retry_after=0.5)`."""
        return Fault(self, self.server.request("POST", self.path + "/faults", {"kind": kind, **params}))

    def faults(self) -> list:
        """The world's faults, spent ones included, with `matched` and `fired`."""
        return [Fault(self, f) for f in self.server.request("GET", self.path + "/faults")]

    def clear_faults(self) -> None:
        self.server.request("DELETE", self.path + "/faults")

    def sessions(self) -> list:
        """The world's apps' gateway sessions (GET …/sessions)."""
        return _handles(self.server.request("GET", self.path + "/sessions"))

    def export(self, messages: bool = False) -> dict:
        """The world as it is now, as a spec (no credentials)."""
        return self.server.request("GET", self.path + "/export" + ("?messages=true" if messages else ""))

    def reset(self) -> "World":
        """Puts the world back to its spec (same ids and credentials)."""
        self._update(self.server.request("POST", self.path + "/reset"))
        return self

    def delete(self) -> None:
        """Deletes the world and everything in it."""
        self.server.request("DELETE", self.path)

    def refresh(self) -> "World":
        self._update(self.server.request("GET", self.path))
        return self

    def __repr__(self) -> str:
        return f"<World {self.name} {self.id}>"


class Actor:
    """A user of a world, in a channel, doing what a chat client does. Each
    method answers a Reply (what the user then sees); a refusal of the
    service raises SlashdError with its status and code (403 50013 for a
    command the member may not use)."""

    def __init__(self, world: World, user: str, channel: Optional[str] = None, wait: Any = None):
        self.world = world
        self.user = user
        self.channel = channel
        self.wait = wait

    def in_(self, channel: str) -> "Actor":
        """The same user in a channel: a handle (`general`, `club/general`),
        a DM's handle, or an id."""
        return Actor(self.world, self.user, channel, self.wait)

    def waiting(self, wait: Union[str, float, timedelta]) -> "Actor":
        """The same user, waiting this long (at most 30 s) for a deferred
        answer to be filled in (default 10 s)."""
        return Actor(self.world, self.user, self.channel, wait)

    def _act(self, **action: Any) -> "Reply":
        if self.channel is None:
            raise ValueError(f"{self.user} acts nowhere: use .in_(channel) first")
        body = {"as": self.user, "in": self.channel}
        if self.wait is not None:
            body["wait"] = _duration(self.wait)
        body.update({k: v for k, v in action.items() if v is not None})
        return self.world.act(body)

    def run(self, line: str, *, app: Optional[str] = None) -> "Reply":
        """Types a command line: `/ban user:@bob reason:"spam"`."""
        return self._act(run=line, app=app)

    def autocomplete(self, line: str, *, app: Optional[str] = None) -> list:
        """Types a command line whose last option is being typed; answers the choices."""
        return self._act(autocomplete=line, app=app).choices

    def user_command(self, name: str, target: str, *, app: Optional[str] = None) -> "Reply":
        return self._act(user_command=name, target=target, app=app)

    def message_command(self, name: str, target: str, *, app: Optional[str] = None) -> "Reply":
        return self._act(message_command=name, target=target, app=app)

    def click(self, button: str, *, message: Optional[str] = None) -> "Reply":
        """Clicks the button with this custom_id or label (on message, or the
        newest message of the channel that has one)."""
        return self._act(click=button, message=message)

    def select(self, menu: str, values: Iterable[str], *, message: Optional[str] = None) -> "Reply":
        """Chooses values in the select menu with this custom_id or placeholder."""
        return self._act(choose=menu, values=list(values), message=message)

    def submit(self, values: Mapping[str, str], *, modal: Optional[str] = None) -> "Reply":
        """Submits a modal: each input's value by custom_id (modal: the id of
        the interaction that opened it; default the last one this user opened)."""
        return self._act(submit=dict(values), modal=modal)

    def say(self, text: str) -> "Reply":
        """Posts a plain message."""
        return self._act(say=text)

    def commands(self) -> list:
        """The commands this member's command picker shows in the channel
        (GET /channels/{id}/application-command-index with their client
        token), as the API lists them: a command a permission hides is not
        there."""
        if self.channel is None:
            raise ValueError(f"{self.user} is nowhere: use .in_(channel) first")
        index = self.world.server.request("GET", f"/api/v10/channels/{self.world.channel_id(self.channel)}"
                                          "/application-command-index", auth=self.world.user(self.user).client_token)
        return _handles(index.get("application_commands", []))

    def __repr__(self) -> str:
        return f"<Actor {self.user} in {self.channel}>"


class Reply:
    """What the member sees after acting: `content`, `embeds`, `components`,
    `attachments`, `ephemeral`, `modal` (a Modal, when one opened), `choices`
    (autocomplete's), `outcome` (`answered`, `deferred-then-filled`,
    `deferred-and-not-filled-within-wait`, `failed`), `error` (what the member
    was told when it failed), `message` and `interaction` as act answered."""

    def __init__(self, world: World, action: Mapping[str, Any], answer: Mapping[str, Any]):
        self.world = world
        self.action = action
        self.raw = _handles(dict(answer))
        self.message = self.raw.get("message")
        self.interaction = self.raw.get("interaction")
        self.choices = self.raw.get("choices", [])
        self.error = self.raw.get("error") or (self.interaction or {}).get("error")
        modal = self.raw.get("modal")
        self.modal = Modal(self, modal) if modal else None

    def _msg(self, key: str, default: Any) -> Any:
        return (self.message or {}).get(key, default)

    @property
    def content(self) -> str:
        return self._msg("content", "")

    @property
    def embeds(self) -> list:
        return self._msg("embeds", [])

    @property
    def components(self) -> list:
        return self._msg("components", [])

    @property
    def attachments(self) -> list:
        return self._msg("attachments", [])

    @property
    def ephemeral(self) -> bool:
        return bool(int(self._msg("flags", 0) or 0) & EPHEMERAL)

    @property
    def outcome(self) -> Optional[str]:
        return (self.interaction or {}).get("outcome")

    @property
    def interaction_id(self) -> Optional[str]:
        return (self.interaction or {}).get("id")

    def _actor(self) -> Actor:
        return Actor(self.world, self.action["as"], self.action["in"], self.action.get("wait"))

    def click(self, button: str) -> "Reply":
        """The same member clicks a button of this reply's message."""
        return self._actor().click(button, message=self._msg("id", None))

    def select(self, menu: str, values: Iterable[str]) -> "Reply":
        """The same member chooses values in a select menu of this reply's message."""
        return self._actor().select(menu, values, message=self._msg("id", None))

    def buttons(self) -> list:
        """Every button of the message, in order, as dicts (label, custom_id, style, …)."""
        found = []

        def walk(components: list) -> None:
            for c in components or []:
                if c.get("type") == 2:
                    found.append(c)
                walk(c.get("components", []))
        walk(self.components)
        return found

    def __repr__(self) -> str:
        what = f"modal {self.modal.title!r}" if self.modal else repr(self.content)
        return f"<Reply {self.outcome or 'say'} {what}{' ephemeral' if self.ephemeral else ''}>"


class Modal:
    """A modal that opened: `custom_id`, `title`, `components`; `submit(**values)`."""

    def __init__(self, reply: Reply, modal: Mapping[str, Any]):
        self.reply = reply
        self.raw = modal
        self.custom_id = modal.get("custom_id")
        self.title = modal.get("title")
        self.components = modal.get("components", [])

    def inputs(self) -> dict:
        """Each input of the modal by custom_id: {custom_id: its label}."""
        found = {}

        def walk(components: list, label: Optional[str]) -> None:
            for c in components or []:
                if c.get("type") == 18:  # a label around its component
                    walk([c.get("component", {})], c.get("label"))
                elif "custom_id" in c and c.get("type") != 2:
                    found[c["custom_id"]] = c.get("label") or label or ""
                walk(c.get("components", []), label)
        walk(self.components, None)
        return found

    def submit(self, values: Optional[Mapping[str, str]] = None, **more: str) -> Reply:
        """The member who opened it submits it: `modal.submit(reason="spam")`
        (or a dict, for custom_ids that are not Python names). A key that is
        no input's custom_id but is one's label names that input."""
        by_label = {label: cid for cid, label in self.inputs().items()}
        given = {**(values or {}), **more}
        values = {k if k in by_label.values() else by_label.get(k, k): v for k, v in given.items()}
        return self.reply._actor().submit(values, modal=self.reply.interaction_id)


# --------------------------------------------------------------------------- journal, faults, clock


class Events:
    """A world's journal (docs/journal.md): `list`, `wait_for`, `failures`, `cursor`."""

    def __init__(self, world: World):
        self.world = world

    def _page(self, after: Optional[str], types: Optional[str], wait: Optional[float], limit: int = 1000) -> dict:
        query = {"limit": str(limit)}
        if after:
            query["after"] = after
        if types:
            query["type"] = types
        if wait:
            query["wait"] = f"{max(1, round(wait * 1000))}ms"
        return self.world.server.request("GET", f"{self.world.path}/events?{urllib.parse.urlencode(query)}",
                                         timeout=(wait or 0) + self.world.server.timeout)

    def list(self, types: Union[str, Iterable[str], None] = None, after: Optional[str] = None) -> list:
        """Every entry kept (after the cursor `after`), oldest first; types: a
        type, several, or "failures"."""
        types = types if types is None or isinstance(types, str) else ",".join(types)
        found = []
        while True:
            page = self._page(after, types, None)
            found.extend(_handles(page["events"]))
            if not page["events"]:
                return found
            after = page["cursor"]

    def cursor(self) -> Optional[str]:
        """The cursor after the newest entry: `wait_for(..., after=cursor)` then
        waits only for what happens next."""
        after = None
        while True:
            page = self._page(after, None, None)
            if not page["events"]:
                return page.get("cursor") or after
            after = page["cursor"]

    def failures(self, after: Optional[str] = None) -> list:
        """What the bots got wrong: refused calls (status ≥ 400), failed
        interactions, 429s, dropped entries. Empty when the bot did nothing wrong."""
        return self.list("failures", after)

    def wait_for(self, predicate: Union[str, Callable[[dict], bool]], *, timeout: float = 10.0,
                 types: Union[str, Iterable[str], None] = None, after: Optional[str] = None) -> Handle:
        """The first entry (after the cursor `after`, else from the oldest kept)
        that predicate accepts: a callable on the event, or a type name.
        Raises TimeoutError when none comes within timeout seconds."""
        if isinstance(predicate, str):
            wanted = predicate
            predicate = lambda e: e["type"] == wanted  # noqa: E731
        types = types if types is None or isinstance(types, str) else ",".join(types)
        deadline = time.monotonic() + timeout
        seen = 0
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"world {self.world.name}: no matching event within {timeout}s "
                                   f"({seen} events looked at)")
            page = self._page(after, types, min(left, 50.0))
            for event in _handles(page["events"]):
                seen += 1
                if predicate(event):
                    return event
            after = page["cursor"] or after


class Fault:
    """A fault of a world (docs/faults.md): `id`, `kind`, `remaining`,
    `matched`, `fired`, …; `refresh()` re-reads it, `delete()` removes it."""

    def __init__(self, world: World, answer: Mapping[str, Any]):
        self.world = world
        self.raw = _handles(dict(answer))
        self.id = self.raw["id"]

    def __getattr__(self, name: str) -> Any:
        try:
            return self.__dict__["raw"][name]
        except KeyError:
            raise AttributeError(name) from None

    def refresh(self) -> "Fault":
        for f in self.world.server.request("GET", self.world.path + "/faults"):
            if f["id"] == self.id:
                self.raw = _handles(f)
        return self

    def delete(self) -> None:
        self.world.server.request("DELETE", f"{self.world.path}/faults/{self.id}")

    def __repr__(self) -> str:
        return f"<Fault {self.raw.get('kind')} {self.id}>"


class Clock:
    """A world's clock: `advance("15m")` moves it ahead (never back)."""

    def __init__(self, world: World):
        self.world = world

    def advance(self, by: Union[str, int, float, timedelta]) -> Handle:
        """Moves the world's time ahead by a Go duration ("90s", "15m"),
        seconds, or a timedelta; answers {offset_ms, now}."""
        return _handles(self.world.server.request("POST", self.world.path + "/clock", {"advance": _duration(by)}))

    def now(self) -> str:
        return self.world.refresh().raw["clock"]["now"]


_NAME = re.compile(r"[^a-z0-9._-]+")


def world_name(base: str) -> str:
    """A world name made of base (any text) and a random suffix: unique per call."""
    stem = _NAME.sub("-", base.lower()).strip("-._")[:50] or "world"
    return f"{stem}-{secrets.token_hex(3)}"
