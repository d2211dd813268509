"""bot.py's tests, with slashd's Python kit: each test gets a fresh world
(world.json) and the bot logged in to it; its members run the commands."""

import pytest

from slashd_testkit import SlashdError

CALLBACK = "POST /api/v10/interactions/{interaction_id}/{interaction_token}/callback"


def test_command_with_options(slashd_world, bot):
    reply = slashd_world.as_("alice").in_("general").run("/greet name:Bob times:2")
    assert reply.content == "Hello, Bob! Hello, Bob!"
    assert not reply.ephemeral
    assert slashd_world.events.failures() == []


def test_ephemeral_reply(slashd_world, bot):
    reply = slashd_world.as_("bob").in_("general").run("/secret")
    assert reply.ephemeral and reply.content == "The cake is in the oven."


def test_defer_then_follow_up(slashd_world, bot):
    reply = slashd_world.as_("alice").in_("general").run("/report")
    assert reply.outcome == "deferred-then-filled"
    assert reply.content == "Report for club: all quiet."


def test_button_edits_the_message(slashd_world, bot):
    invite = slashd_world.as_("alice").in_("general").run("/invite")
    assert invite.content == "Join the raid tonight?"
    assert [b["label"] for b in invite.buttons()] == ["Accept", "Decline"]
    clicked = invite.click("Accept")
    assert clicked.message["id"] == invite.message["id"]
    assert clicked.content == "Accepted by alice." and clicked.components == []


def test_modal(slashd_world, bot):
    form = slashd_world.as_("bob").in_("general").run("/feedback")
    assert form.modal is not None and form.modal.title == "Feedback"
    assert form.modal.inputs() == {"reason": "What do you think?"}
    thanks = form.modal.submit(reason="lovely bot")
    assert thanks.content == "Thanks for your feedback, bob: lovely bot" and thanks.ephemeral


def test_permission_hides_a_command(slashd_world, bot):
    # carol's role may ban: she sees /ban and runs it.
    banned = slashd_world.as_("carol").in_("general").run('/ban member:@bob reason:"spam"')
    assert banned.content == f"<@{slashd_world.users['bob'].id}> is banned: spam"
    assert "ban" in [c["name"] for c in slashd_world.as_("carol").in_("general").commands()]
    # bob may not: his command picker does not show it, and the service refuses it.
    assert sorted(c["name"] for c in slashd_world.as_("bob").in_("general").commands()) == [
        "feedback", "greet", "invite", "report", "secret"]
    with pytest.raises(SlashdError) as refused:
        slashd_world.as_("bob").in_("general").run("/ban member:@carol")
    assert (refused.value.status, refused.value.code) == (403, 50013)


def test_survives_a_429(slashd_world, bot):
    fault = slashd_world.fault("rest.429", app="pybot", route=CALLBACK, retry_after=0.5, count=1)
    reply = slashd_world.as_("alice").in_("general").run("/greet name:again")
    # discord.py waited the 429 out and answered again, in time.
    assert reply.outcome == "answered" and reply.content == "Hello, again!"
    assert fault.refresh().fired == 1
    slashd_world.events.wait_for("rate_limit.hit")
    failures = slashd_world.events.failures()
    assert failures and all(f.get("status") == 429 or f["type"] == "rate_limit.hit" for f in failures), failures


def test_survives_a_reconnect(slashd_world, bot):
    mark = slashd_world.events.cursor()
    slashd_world.fault("gateway.reconnect", app="pybot", count=1)
    slashd_world.events.wait_for("gateway.resume", after=mark, timeout=30)
    reply = slashd_world.as_("alice").in_("general").run("/greet name:back")
    assert reply.content == "Hello, back!"


def test_no_failures_at_the_end(slashd_world, bot):
    """A whole session of the bot, then the journal has nothing it got wrong."""
    alice = slashd_world.as_("alice").in_("general")
    alice.run("/greet name:x")
    alice.run("/secret")
    alice.run("/report")
    alice.run("/invite").click("Decline")
    alice.run("/feedback").modal.submit(reason="fine")
    last = alice.say("bye")
    slashd_world.events.wait_for(lambda e: e["type"] == "message.created" and e["message_id"] == last.message["id"])
    assert slashd_world.events.failures() == []
