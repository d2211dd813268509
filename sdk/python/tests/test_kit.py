"""The kit's own tests, against a real slashd (the session's `slashd`
fixture: `slashd test`'s server, or a binary started for the session) and a
small interactions-endpoint app (endpoint.py)."""

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import pytest

import slashd_testkit as kit
from slashd_testkit import aio

import endpoint


@pytest.fixture(scope="module")
def app_url():
    url, stop = endpoint.serve()
    yield url
    stop()


@pytest.fixture
def slashd_world_spec(app_url):
    return {"name": "kit",
            "users": {"alice": {}, "bob": {}},
            "apps": {"kitbot": {"interactions_endpoint_url": app_url, "commands": endpoint.COMMANDS}},
            "guilds": {"club": {"owner": "alice", "channels": {"general": {}},
                                "members": {"alice": {}, "bob": {}},
                                "install": {"kitbot": {}}}}}


def test_world_handles(slashd_world):
    w = slashd_world
    assert w.name.startswith("kit-")
    assert w.users["alice"].id and w.users.alice.client_token
    app = w.apps["kitbot"]
    assert app.bot_token and app.public_key and set(app.commands) >= {"echo", "vote"}
    assert w.channel("general") == w.guilds["club"].channels["general"]
    assert w.server.get_world(w.name).id == w.id


def test_commands_the_picker_shows(slashd_world):
    shown = slashd_world.as_("bob").in_("club/general").commands()
    assert sorted(c["name"] for c in shown) == sorted(c["name"] for c in endpoint.COMMANDS)
    assert slashd_world.channel_id("club/general") == slashd_world.channel_id("general")
    assert slashd_world.user(slashd_world.users["bob"].id) == slashd_world.users["bob"]


def test_run_with_options(slashd_world):
    reply = slashd_world.as_("alice").in_("general").run('/echo text:"hello there"')
    assert reply.content == "hello there"
    assert reply.outcome == "answered"
    assert not reply.ephemeral and reply.modal is None


def test_ephemeral(slashd_world):
    reply = slashd_world.as_("alice").in_("general").run("/secret")
    assert reply.ephemeral and reply.content == "for your eyes only"


def test_click_and_select(slashd_world):
    reply = slashd_world.as_("alice").in_("general").run("/vote")
    assert reply.embeds[0]["title"] == "Vote"
    assert [b["label"] for b in reply.buttons()] == ["Yes"]
    clicked = reply.click("Yes")
    assert clicked.content == "votes: 1" and clicked.message["id"] == reply.message["id"]
    chosen = reply.select("menu", ["a", "b"])
    assert chosen.content == "chose a,b"


def test_modal(slashd_world):
    reply = slashd_world.as_("bob").in_("general").run("/form")
    assert reply.modal is not None and reply.modal.title == "Why?"
    assert reply.modal.inputs() == {"reason": "Reason"}
    assert reply.modal.submit(reason="spam").content == "because spam"
    again = slashd_world.as_("bob").in_("general").run("/form")
    assert again.modal.submit({"Reason": "by label"}).content == "because by label"


def test_autocomplete(slashd_world):
    choices = slashd_world.as_("alice").in_("general").autocomplete("/fruit name:man")
    assert [c["name"] for c in choices] == ["mango", "mandarin"]


def test_say_and_events(slashd_world):
    mark = slashd_world.events.cursor()
    said = slashd_world.as_("bob").in_("general").say("hello")
    assert said.content == "hello" and said.outcome is None
    event = slashd_world.events.wait_for(
        lambda e: e["type"] == "message.created" and e["message_id"] == said.message["id"], after=mark)
    assert event["author_id"] == slashd_world.users["bob"].id
    with pytest.raises(TimeoutError):
        slashd_world.events.wait_for("gateway.resume", timeout=0.5)
    assert slashd_world.events.failures() == []


def test_refusals_are_typed(slashd_world):
    with pytest.raises(kit.SlashdError) as err:
        slashd_world.as_("alice").in_("general").run("/nothing")
    assert (err.value.status, err.value.code) == (404, 10063)
    with pytest.raises(kit.SlashdError) as err:
        slashd_world.as_("nobody").in_("general").say("hi")
    assert err.value.status == 400 and err.value.code == 50035 and "as" in err.value.errors
    with pytest.raises(kit.SlashdError) as err:
        slashd_world.server.world({"name": "bad", "guilds": {"g": {"owner": "ghost"}}})
    assert err.value.errors["guilds"]["g"]["owner"]["_errors"][0]["code"] == "UNKNOWN_USER"


def test_failed_interaction_is_a_failure(slashd_world):
    fault = slashd_world.fault("delivery.drop", app="kitbot", count=1)
    assert fault.kind == "delivery.drop" and fault.remaining == 1
    reply = slashd_world.as_("alice").in_("general").run("/echo text:x")
    assert reply.outcome == "failed" and reply.error
    assert fault.refresh().fired == 1
    # The journal is written in batches: wait for the entry, then read the failures.
    slashd_world.events.wait_for("interaction.failed")
    assert [f["type"] for f in slashd_world.events.failures()] == ["interaction.failed"]
    assert [f.id for f in slashd_world.faults()] == [fault.id]
    fault.delete()
    assert slashd_world.faults() == []


def test_clock_reset_delete(slashd, slashd_world):
    moved = slashd_world.clock.advance("15m")
    assert moved["offset_ms"] == 900000
    assert slashd_world.clock.advance(60)["offset_ms"] == 960000
    token = slashd_world.apps["kitbot"].bot_token
    slashd_world.as_("bob").in_("general").say("gone after the reset")
    assert slashd_world.reset().apps["kitbot"].bot_token == token
    slashd_world.delete()
    with pytest.raises(kit.SlashdError) as err:
        slashd.get_world(slashd_world.id)
    assert (err.value.status, err.value.code) == (404, 10000)


@pytest.mark.slashd_world({"name": "marked", "users": {"carol": {}}})
def test_marker_spec(slashd_world):
    assert list(slashd_world.users) == ["carol"] and slashd_world.name.startswith("marked-")


def test_asyncio_flavour(slashd, slashd_world_spec):
    async def main():
        server = await aio.connect(slashd.url, slashd.admin_token)
        world = await server.world(dict(slashd_world_spec, name=kit.world_name("aio")))
        try:
            reply = await world.as_("alice").in_("general").run("/vote")
            assert reply.content == "votes: 0"
            assert (await reply.click("Yes")).content == "votes: 1"
            form = await world.as_("alice").in_("general").run("/form")
            assert (await form.modal.submit(reason="async")).content == "because async"
            assert await world.events.failures() == []
        finally:
            await world.delete()
    asyncio.run(main())


def test_start_and_close():
    """start() runs its own server (the binary of SLASHD_BIN, or the one
    find_binary finds) and close() stops it and removes its directory."""
    with kit.start() as server:
        data = server.data_dir
        assert os.path.isdir(data)
        assert any(w["name"] == "demo" for w in server.worlds())
        process = server.process
    assert process.poll() is not None and not os.path.exists(data)


def test_connect_needs_a_server(monkeypatch):
    monkeypatch.delenv("SLASHD_URL", raising=False)
    with pytest.raises(ValueError):
        kit.connect()
    monkeypatch.setenv("SLASHD_URL", "http://127.0.0.1:1")
    monkeypatch.setenv("SLASHD_ADMIN_TOKEN", "t")
    assert kit.connect().url == "http://127.0.0.1:1"


@pytest.mark.parametrize("given, want", [
    ("15m", "15m"),
    (90, "90000ms"),
    (1.5, "1500ms"),
    (__import__("datetime").timedelta(minutes=15), "900000ms"),
])
def test_durations(given, want):
    assert kit.core._duration(given) == want


@pytest.mark.parametrize("base, stem", [
    ("test_modal[a]", "test_modal-a"),
    ("Ban Tests!", "ban-tests"),
    ("", "world"),
    ("x" * 80, "x" * 50),
])
def test_world_names(base, stem):
    name = kit.world_name(base)
    assert name.startswith(stem + "-") and len(name) == len(stem) + 7
    assert kit.world_name(base) != name


def test_errors_that_are_not_json():
    err = kit.core._error(502, b"<html>Bad Gateway</html>", "GET", "/x")
    assert (err.status, err.code, err.message) == (502, None, "<html>Bad Gateway</html>")
    err = kit.core._error(429, b'{"message": "You are being rate limited.", "retry_after": 1, "global": false}', "GET", "/x")
    assert (err.status, err.code, err.body["retry_after"]) == (429, None, 1)


def test_find_binary_order(monkeypatch, tmp_path):
    """bin=, then $SLASHD_BIN, then slashd on PATH, then a build of the checkout."""
    made = {}
    for name in ("given", "env", "slashd"):
        d = tmp_path / name
        d.mkdir()
        made[name] = d / "slashd"
        made[name].write_text("#!/bin/sh\n")
        made[name].chmod(0o755)
    monkeypatch.setenv("SLASHD_BIN", str(made["env"]))
    monkeypatch.setenv("PATH", str(made["slashd"].parent))
    assert kit.find_binary(str(made["given"])) == str(made["given"])
    assert kit.find_binary() == str(made["env"])
    monkeypatch.delenv("SLASHD_BIN")
    assert kit.find_binary() == str(made["slashd"])
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    with pytest.raises(FileNotFoundError):  # a checkout, but no go on PATH
        kit.find_binary()
    with pytest.raises(FileNotFoundError):
        kit.start(bin=str(tmp_path / "missing"))


def test_asyncio_start_and_close():
    async def main():
        async with await aio.start() as server:
            data = server.data_dir
            worlds = await server.worlds()
            assert [w["name"] for w in worlds] == ["demo"]
            world = await server.get_world("demo")
            assert (await world.clock.advance("1m"))["offset_ms"] == 60000
        return data
    assert not os.path.exists(asyncio.run(main()))


def test_fixtures_under_slashd_test(tmp_path):
    """Under `slashd test`, the slashd fixture is its server (SLASHD_URL), and
    a slashd_world is made beside the worlds it applied, never clashing."""
    (tmp_path / "world.json").write_text('{"name": "club", "users": {"dave": {}}}')
    (tmp_path / "conftest.py").write_text(
        f"import sys\nsys.path.insert(0, {str(Path(__file__).resolve().parents[1])!r})\n"
        "pytest_plugins = ['slashd_testkit.pytest_plugin']\n")
    (tmp_path / "test_inner.py").write_text(
        "import os, pytest\n"
        "@pytest.mark.slashd_world('world.json')\n"
        "def test_inner(slashd, slashd_world):\n"
        "    assert slashd.url == os.environ['SLASHD_URL'] and slashd.process is None\n"
        "    assert slashd.get_world('club').users['dave'].id != slashd_world.users['dave'].id\n"
        "    assert slashd_world.name.startswith('club-')\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("SLASHD_")}
    done = subprocess.run([kit.find_binary(), "test", "--world", "world.json", "--",
                           sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
                          cwd=tmp_path, env=dict(env, PYTHONDONTWRITEBYTECODE="1"),
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=120)
    assert done.returncode == 0, done.stdout.decode()
    assert b"1 passed" in done.stdout


@pytest.mark.slashd_world("world.yaml")
def test_marker_yaml_file(slashd_world):
    assert slashd_world.name == "kit-yaml" and list(slashd_world.users) == ["erin"]
