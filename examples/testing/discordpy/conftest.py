import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
# The kit from this checkout (installed, `pip install slashd-testkit` makes this line unneeded).
sys.path.insert(0, str(HERE.parents[2] / "sdk" / "python"))

pytest_plugins = ["slashd_testkit.pytest_plugin"]


@pytest.fixture
def slashd_world_spec():
    """Every test's world: world.json (alice owns the guild, carol is a mod, bob is not)."""
    return "world.json"


@pytest.fixture
def bot(slashd, slashd_world, tmp_path):
    """bot.py, logged in as the world's app and synced to its guild, until the test ends."""
    mark = slashd_world.events.cursor()
    log = open(tmp_path / "bot.log", "wb")
    env = dict(os.environ, SLASHD_URL=slashd.url, DISCORD_TOKEN=slashd_world.apps["pybot"].bot_token,
               GUILD_ID=slashd_world.guilds["club"].id, PYTHONDONTWRITEBYTECODE="1")
    proc = subprocess.Popen([sys.executable, str(HERE / "bot.py")], env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        # Ready once tree.sync(guild=...) has put the commands (setup_hook) and
        # then the bot has identified on the gateway, where interactions reach it.
        synced = wait_while_running(proc, slashd_world, after=mark, predicate=(
            lambda e: e["type"] == "rest.request" and e["method"] == "PUT"
            and e["route"].endswith("/guilds/{guild_id}/commands")))
        wait_while_running(proc, slashd_world, after=synced["cursor"], predicate="gateway.identify")
        yield proc
    finally:
        proc.terminate()
        proc.wait(10)
        log.close()
        if proc.returncode not in (0, -15):
            print((tmp_path / "bot.log").read_text())


def wait_while_running(proc, world, after, predicate, timeout=60):
    """world.events.wait_for, a second at a time, failing at once if the bot exits."""
    for _ in range(timeout):
        if proc.poll() is not None:
            pytest.fail(f"bot.py exited with status {proc.returncode} before it was ready")
        try:
            return world.events.wait_for(predicate, after=after, timeout=1)
        except TimeoutError:
            pass
    pytest.fail(f"bot.py not ready within {timeout}s")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A failed test shows what the bot logged."""
    outcome = yield
    report = outcome.get_result()
    tmp = item.funcargs.get("tmp_path") if hasattr(item, "funcargs") else None
    if report.failed and tmp is not None and (tmp / "bot.log").exists():
        report.sections.append(("bot.log", (tmp / "bot.log").read_text()))
