package storetest

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/guild"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
)

// Channels of the messages fixture: a text channel with a thread and a
// second text channel in guild 1, one text channel in guild 2.
const (
	textID    snowflake.ID = 5001
	threadID  snowflake.ID = 5002
	text2ID   snowflake.ID = 5003
	g2TextID  snowflake.ID = 6001
	messageMs              = 1_720_000_000_000
)

func testMessages(t *testing.T, open func(t *testing.T) store.Store) {
	t.Run("messages", func(t *testing.T) { testMessageCRUD(t, open) })
	t.Run("ChannelMessages", func(t *testing.T) { testChannelMessages(t, open) })
	t.Run("interactions", func(t *testing.T) { testInteractions(t, open) })
	t.Run("AnswerInteraction", func(t *testing.T) { testAnswerInteraction(t, open) })
	t.Run("CreateAnsweredInteraction", func(t *testing.T) { testCreateAnsweredInteraction(t, open) })
	t.Run("concurrent answers", func(t *testing.T) { testConcurrentAnswers(t, open) })
	t.Run("DeleteInteractionsBefore", func(t *testing.T) { testDeleteInteractionsBefore(t, open) })
	t.Run("CreateFollowup", func(t *testing.T) { testFollowups(t, open) })
	t.Run("DeleteChannel deletes messages and interactions", func(t *testing.T) { testMessagesDeleteChannel(t, open) })
	t.Run("DeleteGuild deletes messages and interactions", func(t *testing.T) { testMessagesDeleteGuild(t, open) })
}

// messagesFixture is the seeded fixture with alice and bob and the
// channels above.
func messagesFixture(t *testing.T, open func(t *testing.T) store.Store) *fixture {
	t.Helper()
	f := newFixture(t, open)
	f.user(t, aliceID, "alice")
	f.user(t, bobID, "bob")
	for _, c := range []guild.Channel{
		{ID: textID, GuildID: guildID, Type: guild.ChannelText, Name: "text"},
		{ID: threadID, GuildID: guildID, Type: guild.ChannelPublicThread, Name: "thread", ParentID: textID},
		{ID: text2ID, GuildID: guildID, Type: guild.ChannelText, Name: "text2"},
		{ID: g2TextID, GuildID: guild2ID, Type: guild.ChannelText, Name: "other"},
	} {
		must(t, f.s.CreateChannel(f.ctx, c))
	}
	return f
}

// msg is a message of channel ch (in guild g) by author.
func msg(id, ch, g, author snowflake.ID, body string) store.Message {
	return store.Message{ID: id, ChannelID: ch, GuildID: g, AuthorID: author, Body: []byte(body),
		CreatedAt: ms(messageMs + int64(id))}
}

// interaction is an unanswered slash command invocation by alice.
func interaction(id, ch, g snowflake.ID) store.Interaction {
	return store.Interaction{ID: id, ApplicationID: appID, Type: 2, TokenHash: hash("token " + id.String()),
		GuildID: g, ChannelID: ch, UserID: aliceID, CommandID: 77, CreatedAt: ms(messageMs + int64(id)),
		Metadata: []byte(`{"id":"` + id.String() + `"}`)}
}

func (f *fixture) message(t *testing.T, want store.Message) {
	t.Helper()
	got, err := f.s.Message(f.ctx, want.ID)
	if err != nil {
		t.Errorf("Message(%d): %v", want.ID, err)
		return
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Message(%d):\n got  %+v (body %s)\n want %+v (body %s)", want.ID, got, got.Body, want, want.Body)
	}
}

func (f *fixture) interaction(t *testing.T, want store.Interaction) {
	t.Helper()
	got, err := f.s.Interaction(f.ctx, want.ID)
	if err != nil {
		t.Errorf("Interaction(%d): %v", want.ID, err)
		return
	}
	checkInteraction(t, fmt.Sprintf("Interaction(%d)", want.ID), got, want)
}

func checkInteraction(t *testing.T, what string, got, want store.Interaction) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s:\n got  %+v\n want %+v", what, got, want)
	}
}

func messageIDs(ms []store.Message) []snowflake.ID {
	out := make([]snowflake.ID, len(ms))
	for i := range ms {
		out[i] = ms[i].ID
	}
	return out
}

func (f *fixture) channelMessages(t *testing.T, ch, viewer, before snowflake.ID, limit int) []snowflake.ID {
	t.Helper()
	ms, err := f.s.ChannelMessages(f.ctx, ch, viewer, before, limit)
	if err != nil {
		t.Fatalf("ChannelMessages(%d, %d, %d, %d): %v", ch, viewer, before, limit, err)
	}
	if ms == nil {
		t.Fatalf("ChannelMessages(%d, %d, %d, %d): nil slice, want non-nil", ch, viewer, before, limit)
	}
	return messageIDs(ms)
}

func testMessageCRUD(t *testing.T, open func(t *testing.T) store.Store) {
	f := messagesFixture(t, open)
	user := msg(9001, textID, guildID, aliceID, `{"content":"hello"}`)
	answer := msg(9002, threadID, guildID, appID, `{"content":"answer","flags":64}`)
	answer.InteractionID, answer.VisibleTo = 8001, bobID
	other := msg(9003, g2TextID, guild2ID, bobID, `{"content":"elsewhere"}`)
	all := []store.Message{user, answer, other}
	for _, m := range all {
		must(t, f.s.CreateMessage(f.ctx, m))
	}
	for _, m := range all {
		f.message(t, m)
	}

	checkErrs(t, []errCase{
		{"Message unknown", func() error { _, err := f.s.Message(f.ctx, unknown); return err }, store.ErrNotFound},
		{"CreateMessage with an existing id", func() error {
			return f.s.CreateMessage(f.ctx, msg(user.ID, text2ID, guildID, bobID, `{}`))
		}, store.ErrConflict},
		{"CreateMessage in an unknown channel", func() error {
			return f.s.CreateMessage(f.ctx, msg(9100, unknown, guildID, aliceID, `{}`))
		}, store.ErrNotFound},
		{"CreateMessage with an existing id in an unknown channel", func() error {
			return f.s.CreateMessage(f.ctx, msg(user.ID, unknown, guildID, aliceID, `{}`))
		}, store.ErrNotFound},
		{"UpdateMessage unknown", func() error { return f.s.UpdateMessage(f.ctx, unknown, []byte(`{}`), nil) }, store.ErrNotFound},
		{"DeleteMessage unknown", func() error { return f.s.DeleteMessage(f.ctx, unknown) }, store.ErrNotFound},
	})
	// The failed creates changed nothing.
	f.message(t, user)
	if _, err := f.s.Message(f.ctx, 9100); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Message(9100) after a failed create: err = %v, want ErrNotFound", err)
	}

	// UpdateMessage replaces the body and nothing else.
	must(t, f.s.UpdateMessage(f.ctx, answer.ID, []byte(`{"content":"edited"}`), nil))
	answer.Body = []byte(`{"content":"edited"}`)
	f.message(t, answer)
	f.message(t, user)

	must(t, f.s.DeleteMessage(f.ctx, answer.ID))
	checkErrs(t, []errCase{
		{"Message after delete", func() error { _, err := f.s.Message(f.ctx, answer.ID); return err }, store.ErrNotFound},
		{"DeleteMessage again", func() error { return f.s.DeleteMessage(f.ctx, answer.ID) }, store.ErrNotFound},
		{"UpdateMessage after delete", func() error { return f.s.UpdateMessage(f.ctx, answer.ID, []byte(`{}`), nil) }, store.ErrNotFound},
	})
	f.message(t, user)
	f.message(t, other)
	// The id is free again.
	must(t, f.s.CreateMessage(f.ctx, answer))
	f.message(t, answer)
}

func testChannelMessages(t *testing.T, open func(t *testing.T) store.Store) {
	f := messagesFixture(t, open)
	// Created out of id order, so that the listing has to sort.
	seed := []store.Message{
		msg(9005, textID, guildID, aliceID, `{"n":5}`),
		msg(9001, textID, guildID, aliceID, `{"n":1}`),
		msg(9003, textID, guildID, appID, `{"n":3}`), // ephemeral, for alice
		msg(9002, textID, guildID, bobID, `{"n":2}`),
		msg(9004, textID, guildID, appID, `{"n":4}`), // ephemeral, for bob
		msg(9006, text2ID, guildID, aliceID, `{"n":6}`),
		msg(9007, threadID, guildID, aliceID, `{"n":7}`),
	}
	seed[2].VisibleTo, seed[4].VisibleTo = aliceID, bobID
	for _, m := range seed {
		must(t, f.s.CreateMessage(f.ctx, m))
	}

	for _, c := range []struct {
		name               string
		ch, viewer, before snowflake.ID
		limit              int
		want               []snowflake.ID
	}{
		{"alice sees hers and the public ones, newest first", textID, aliceID, 0, 50, []snowflake.ID{9005, 9003, 9002, 9001}},
		{"bob sees his", textID, bobID, 0, 50, []snowflake.ID{9005, 9004, 9002, 9001}},
		{"someone else sees only the public ones", textID, carolID, 0, 50, []snowflake.ID{9005, 9002, 9001}},
		{"viewer 0 sees only the public ones", textID, 0, 0, 50, []snowflake.ID{9005, 9002, 9001}},
		{"limit", textID, aliceID, 0, 2, []snowflake.ID{9005, 9003}},
		{"limit 1", textID, bobID, 0, 1, []snowflake.ID{9005}},
		{"before", textID, aliceID, 9003, 50, []snowflake.ID{9002, 9001}},
		{"before a hidden message", textID, aliceID, 9004, 50, []snowflake.ID{9003, 9002, 9001}},
		{"before and limit", textID, bobID, 9005, 2, []snowflake.ID{9004, 9002}},
		{"before the first", textID, aliceID, 9001, 50, []snowflake.ID{}},
		{"before beyond the last", textID, carolID, 99_999, 50, []snowflake.ID{9005, 9002, 9001}},
		{"a thread has its own messages", threadID, aliceID, 0, 50, []snowflake.ID{9007}},
		{"another channel", text2ID, bobID, 0, 50, []snowflake.ID{9006}},
		{"a channel without messages", g2TextID, aliceID, 0, 50, []snowflake.ID{}},
		{"an unknown channel", unknown, aliceID, 0, 50, []snowflake.ID{}},
	} {
		if got := f.channelMessages(t, c.ch, c.viewer, c.before, c.limit); !slices.Equal(got, c.want) {
			t.Errorf("%s: ChannelMessages(%d, %d, %d, %d) = %v, want %v", c.name, c.ch, c.viewer, c.before, c.limit, got, c.want)
		}
	}

	// Listed messages are whole.
	ms, err := f.s.ChannelMessages(f.ctx, textID, aliceID, 9004, 1)
	if err != nil || len(ms) != 1 || !reflect.DeepEqual(ms[0], seed[2]) {
		t.Errorf("ChannelMessages(text, alice, 9004, 1) = %+v, %v; want [%+v]", ms, err, seed[2])
	}
}

func testInteractions(t *testing.T, open func(t *testing.T) store.Store) {
	f := messagesFixture(t, open)
	slash := interaction(8001, textID, guildID)
	component := interaction(8002, threadID, guildID)
	component.Type, component.MessageID, component.CommandID = 3, 9001, 0
	answered := interaction(8003, g2TextID, guild2ID)
	answered.ApplicationID, answered.UserID = otherAppID, bobID
	answered.ResponseType, answered.AnsweredAt, answered.OriginalMessageID, answered.Ephemeral = 4, ms(messageMs+9_000), 9002, true
	answered.Result = []byte(`{"choices":[]}`)
	all := []store.Interaction{slash, component, answered}
	for _, in := range all {
		must(t, f.s.CreateInteraction(f.ctx, in))
	}
	// An original message is named while it exists, only.
	gone := answered
	gone.OriginalMessageID = 0
	f.interaction(t, gone)
	must(t, f.s.CreateMessage(f.ctx, msg(answered.OriginalMessageID, g2TextID, guild2ID, otherAppID, `{}`)))
	for _, want := range all {
		f.interaction(t, want)
	}
	if got, err := f.s.Interaction(f.ctx, slash.ID); err == nil && got.Result != nil {
		t.Errorf("Interaction(%d).Result = %q, want nil", slash.ID, got.Result)
	}

	sameID := interaction(slash.ID, textID, guildID)
	sameID.TokenHash = hash("fresh token")
	checkErrs(t, []errCase{
		{"Interaction unknown", func() error { _, err := f.s.Interaction(f.ctx, unknown); return err }, store.ErrNotFound},
		{"CreateInteraction with a taken id", func() error { return f.s.CreateInteraction(f.ctx, sameID) }, store.ErrConflict},
		{"AnswerInteraction unknown", func() error {
			_, err := f.s.AnswerInteraction(f.ctx, unknown, func(in store.Interaction) (store.Answer, error) {
				t.Errorf("fn called for an unknown interaction")
				return store.Answer{Interaction: in}, nil
			})
			return err
		}, store.ErrNotFound},
	})
	// The failed create changed nothing.
	f.interaction(t, slash)
}

func testAnswerInteraction(t *testing.T, open func(t *testing.T) store.Store) {
	f := messagesFixture(t, open)
	in := interaction(8001, textID, guildID)
	must(t, f.s.CreateInteraction(f.ctx, in))

	// An answer that creates the original message.
	original := msg(9001, textID, guildID, appID, `{"content":"pong"}`)
	original.InteractionID, original.VisibleTo = in.ID, aliceID
	var seen store.Interaction
	got, err := f.s.AnswerInteraction(f.ctx, in.ID, func(cur store.Interaction) (store.Answer, error) {
		seen = cur
		next := cur
		next.ResponseType, next.AnsweredAt, next.OriginalMessageID, next.Ephemeral = 4, ms(messageMs+10_000), original.ID, true
		// What the interaction is keeps what it was stored with.
		next.ID, next.ApplicationID, next.TokenHash, next.CreatedAt = unknown, otherAppID, hash("forged"), ms(1)
		return store.Answer{Interaction: next, Put: &original}, nil
	})
	if err != nil {
		t.Fatalf("AnswerInteraction: %v", err)
	}
	checkInteraction(t, "fn's argument", seen, in)
	want := in
	want.ResponseType, want.AnsweredAt, want.OriginalMessageID, want.Ephemeral = 4, ms(messageMs+10_000), original.ID, true
	checkInteraction(t, "AnswerInteraction's result", got, want)
	f.interaction(t, want)
	f.message(t, original)

	// A later answer sees the first and replaces the message whole.
	edited := msg(original.ID, text2ID, guildID, otherAppID, `{"content":"edited"}`)
	edited.InteractionID = 4242
	got, err = f.s.AnswerInteraction(f.ctx, in.ID, func(cur store.Interaction) (store.Answer, error) {
		checkInteraction(t, "fn's argument on the second answer", cur, want)
		next := cur
		next.Result = []byte(`{"type":9}`)
		return store.Answer{Interaction: next, Put: &edited}, nil
	})
	if err != nil {
		t.Fatalf("second AnswerInteraction: %v", err)
	}
	want.Result = []byte(`{"type":9}`)
	checkInteraction(t, "second AnswerInteraction's result", got, want)
	f.interaction(t, want)
	f.message(t, edited)
	if ids := f.channelMessages(t, textID, aliceID, 0, 50); len(ids) != 0 {
		t.Errorf("ChannelMessages(text) after the message moved = %v, want none", ids)
	}

	// An answer without Put writes no message.
	got, err = f.s.AnswerInteraction(f.ctx, in.ID, func(cur store.Interaction) (store.Answer, error) {
		next := cur
		next.Result = nil
		return store.Answer{Interaction: next}, nil
	})
	want.Result = nil
	if err != nil {
		t.Fatalf("third AnswerInteraction: %v", err)
	}
	checkInteraction(t, "third AnswerInteraction's result", got, want)
	f.interaction(t, want)
	f.message(t, edited)

	// fn's error aborts: it comes back as is, nothing is written.
	errNo := errors.New("not this time")
	abandoned := msg(9050, textID, guildID, appID, `{"content":"never"}`)
	_, err = f.s.AnswerInteraction(f.ctx, in.ID, func(cur store.Interaction) (store.Answer, error) {
		next := cur
		next.ResponseType, next.OriginalMessageID = 7, abandoned.ID
		return store.Answer{Interaction: next, Put: &abandoned}, fmt.Errorf("wrapped: %w", errNo)
	})
	if !errors.Is(err, errNo) {
		t.Errorf("AnswerInteraction with a failing fn: err = %v, want %v", err, errNo)
	}
	f.interaction(t, want)
	if _, err := f.s.Message(f.ctx, abandoned.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Message after an aborted answer: err = %v, want ErrNotFound", err)
	}

	// A Put into an unknown channel fails the answer whole.
	stray := msg(9051, unknown, guildID, appID, `{}`)
	_, err = f.s.AnswerInteraction(f.ctx, in.ID, func(cur store.Interaction) (store.Answer, error) {
		next := cur
		next.ResponseType = 7
		return store.Answer{Interaction: next, Put: &stray}, nil
	})
	if !errors.Is(err, store.ErrNotFound) {
		t.Errorf("AnswerInteraction putting a message into an unknown channel: err = %v, want ErrNotFound", err)
	}
	f.interaction(t, want)
	if _, err := f.s.Message(f.ctx, stray.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Message after a failed answer: err = %v, want ErrNotFound", err)
	}

	// Deleting the original message leaves the interaction without one.
	must(t, f.s.DeleteMessage(f.ctx, original.ID))
	want.OriginalMessageID = 0
	f.interaction(t, want)
}

func testCreateAnsweredInteraction(t *testing.T, open func(t *testing.T) store.Store) {
	f := messagesFixture(t, open)
	in := interaction(8001, textID, guildID)
	original := msg(9001, textID, guildID, appID, `{"content":"pong"}`)
	original.InteractionID = in.ID
	var seen store.Interaction
	got, err := f.s.CreateAnsweredInteraction(f.ctx, in, func(cur store.Interaction) (store.Answer, error) {
		seen = cur
		next := cur
		next.ResponseType, next.AnsweredAt, next.OriginalMessageID = 4, ms(messageMs+10_000), original.ID
		// What the interaction is keeps what it was recorded with.
		next.ID, next.ApplicationID, next.TokenHash, next.CreatedAt, next.Metadata = unknown, otherAppID, hash("forged"), ms(1), nil
		return store.Answer{Interaction: next, Put: &original}, nil
	})
	if err != nil {
		t.Fatalf("CreateAnsweredInteraction: %v", err)
	}
	checkInteraction(t, "fn's argument", seen, in)
	want := in
	want.ResponseType, want.AnsweredAt, want.OriginalMessageID = 4, ms(messageMs+10_000), original.ID
	checkInteraction(t, "CreateAnsweredInteraction's result", got, want)
	f.interaction(t, want)
	f.message(t, original)

	// An answer without a message (autocomplete choices).
	choices := interaction(8002, textID, guildID)
	choices.Type = 4
	if _, err := f.s.CreateAnsweredInteraction(f.ctx, choices, func(cur store.Interaction) (store.Answer, error) {
		cur.ResponseType, cur.AnsweredAt, cur.Result = 8, ms(messageMs+11_000), []byte(`{"choices":[]}`)
		return store.Answer{Interaction: cur}, nil
	}); err != nil {
		t.Fatalf("CreateAnsweredInteraction without a message: %v", err)
	}
	wantChoices := choices
	wantChoices.ResponseType, wantChoices.AnsweredAt, wantChoices.Result = 8, ms(messageMs+11_000), []byte(`{"choices":[]}`)
	f.interaction(t, wantChoices)

	// Whatever fails writes nothing: fn's error (returned as is), a taken
	// id, a message for an unknown channel.
	refused := errors.New("refused")
	lost := msg(9002, unknown, guildID, appID, `{"content":"lost"}`)
	sameID := interaction(in.ID, text2ID, guildID)
	sameID.TokenHash = hash("fresh token")
	answer := func(m *store.Message) func(store.Interaction) (store.Answer, error) {
		return func(cur store.Interaction) (store.Answer, error) {
			cur.ResponseType, cur.AnsweredAt = 4, ms(messageMs+12_000)
			if m != nil {
				cur.OriginalMessageID = m.ID
			}
			return store.Answer{Interaction: cur, Put: m}, nil
		}
	}
	other := msg(9003, text2ID, guildID, appID, `{"content":"other"}`)
	checkErrs(t, []errCase{
		{"fn's error", func() error {
			_, err := f.s.CreateAnsweredInteraction(f.ctx, interaction(8003, textID, guildID),
				func(store.Interaction) (store.Answer, error) { return store.Answer{}, refused })
			return err
		}, refused},
		{"a taken id", func() error { _, err := f.s.CreateAnsweredInteraction(f.ctx, sameID, answer(&other)); return err },
			store.ErrConflict},
		{"a message in an unknown channel", func() error {
			_, err := f.s.CreateAnsweredInteraction(f.ctx, interaction(8004, textID, guildID), answer(&lost))
			return err
		}, store.ErrNotFound},
	})
	checkErrs(t, []errCase{
		{"Interaction after fn's error", func() error { _, err := f.s.Interaction(f.ctx, 8003); return err }, store.ErrNotFound},
		{"Interaction after an unknown channel", func() error { _, err := f.s.Interaction(f.ctx, 8004); return err }, store.ErrNotFound},
		{"the taken id's message", func() error { _, err := f.s.Message(f.ctx, other.ID); return err }, store.ErrNotFound},
	})
	f.interaction(t, want)
}

func testConcurrentAnswers(t *testing.T, open func(t *testing.T) store.Store) {
	f := messagesFixture(t, open)
	in := interaction(8001, textID, guildID)
	must(t, f.s.CreateInteraction(f.ctx, in))
	errAnswered := errors.New("already answered")
	const n = 8
	var (
		wg          sync.WaitGroup
		ok, already atomic.Int32
		winner      atomic.Int64
	)
	for i := range n {
		wg.Go(func() {
			m := msg(snowflake.ID(9100+i), textID, guildID, appID, fmt.Sprintf(`{"n":%d}`, i))
			_, err := f.s.AnswerInteraction(f.ctx, in.ID, func(cur store.Interaction) (store.Answer, error) {
				if cur.ResponseType != 0 {
					return store.Answer{}, errAnswered
				}
				next := cur
				next.ResponseType, next.AnsweredAt, next.OriginalMessageID = 4, ms(messageMs+int64(i)), m.ID
				return store.Answer{Interaction: next, Put: &m}, nil
			})
			switch {
			case err == nil:
				ok.Add(1)
				winner.Store(int64(m.ID))
			case errors.Is(err, errAnswered):
				already.Add(1)
			default:
				t.Errorf("concurrent AnswerInteraction: %v", err)
			}
		})
	}
	wg.Wait()
	if ok.Load() != 1 || already.Load() != n-1 {
		t.Fatalf("concurrent answers: %d succeeded and %d saw an answer, want 1 and %d", ok.Load(), already.Load(), n-1)
	}
	got, err := f.s.Interaction(f.ctx, in.ID)
	if err != nil || got.ResponseType != 4 || got.OriginalMessageID != snowflake.ID(winner.Load()) {
		t.Errorf("Interaction after concurrent answers = %+v, %v; want answered with message %d", got, err, winner.Load())
	}
	if ids := f.channelMessages(t, textID, 0, 0, 50); !slices.Equal(ids, []snowflake.ID{snowflake.ID(winner.Load())}) {
		t.Errorf("ChannelMessages after concurrent answers = %v, want only the winner's %d", ids, winner.Load())
	}
}

// seedMessages gives each channel a message and an interaction, ids
// derived from the channel's.
func (f *fixture) seedMessages(t *testing.T, chs map[snowflake.ID]snowflake.ID) {
	t.Helper()
	for ch, g := range chs {
		must(t, f.s.CreateMessage(f.ctx, msg(ch+10_000, ch, g, aliceID, `{}`)))
		must(t, f.s.CreateInteraction(f.ctx, interaction(ch+20_000, ch, g)))
	}
}

// hasMessages checks whether each channel's seeded message and
// interaction are there (want true) or gone.
func (f *fixture) hasMessages(t *testing.T, what string, want bool, chs ...snowflake.ID) {
	t.Helper()
	for _, ch := range chs {
		wantErr := error(nil)
		if !want {
			wantErr = store.ErrNotFound
		}
		if _, err := f.s.Message(f.ctx, ch+10_000); !errors.Is(err, wantErr) {
			t.Errorf("%s: message of channel %d: err = %v, want %v", what, ch, err, wantErr)
		}
		if _, err := f.s.Interaction(f.ctx, ch+20_000); !errors.Is(err, wantErr) {
			t.Errorf("%s: interaction in channel %d: err = %v, want %v", what, ch, err, wantErr)
		}
		n := 0
		if want {
			n = 1
		}
		if ids := f.channelMessages(t, ch, aliceID, 0, 50); len(ids) != n {
			t.Errorf("%s: ChannelMessages(%d) = %v, want %d", what, ch, ids, n)
		}
	}
}

func testMessagesDeleteChannel(t *testing.T, open func(t *testing.T) store.Store) {
	f := messagesFixture(t, open)
	f.seedMessages(t, map[snowflake.ID]snowflake.ID{textID: guildID, threadID: guildID, text2ID: guildID, g2TextID: guild2ID})

	// A channel takes its threads' messages and interactions with it.
	must(t, f.s.DeleteChannel(f.ctx, guildID, textID))
	f.hasMessages(t, "after DeleteChannel", false, textID, threadID)
	f.hasMessages(t, "after DeleteChannel", true, text2ID, g2TextID)

	// The ids are free again once the channel is back.
	must(t, f.s.CreateChannel(f.ctx, guild.Channel{ID: textID, GuildID: guildID, Type: guild.ChannelText, Name: "again"}))
	f.hasMessages(t, "in the recreated channel", false, textID)
	f.seedMessages(t, map[snowflake.ID]snowflake.ID{textID: guildID})
	f.hasMessages(t, "in the recreated channel", true, textID)
}

func testMessagesDeleteGuild(t *testing.T, open func(t *testing.T) store.Store) {
	f := messagesFixture(t, open)
	f.seedMessages(t, map[snowflake.ID]snowflake.ID{textID: guildID, threadID: guildID, text2ID: guildID, g2TextID: guild2ID})
	must(t, f.s.DeleteGuild(f.ctx, guildID))
	f.hasMessages(t, "after DeleteGuild", false, textID, threadID, text2ID)
	f.hasMessages(t, "after DeleteGuild", true, g2TextID)
}

func testDeleteInteractionsBefore(t *testing.T, open func(t *testing.T) store.Store) {
	f := messagesFixture(t, open)
	old, young := interaction(8001, textID, guildID), interaction(8002, textID, guildID)
	must(t, f.s.CreateInteraction(f.ctx, old))
	must(t, f.s.CreateInteraction(f.ctx, young))
	reply := msg(9001, textID, guildID, appID, `{"content":"kept"}`)
	reply.InteractionID = old.ID
	must(t, f.s.CreateMessage(f.ctx, reply))
	n, err := f.s.DeleteInteractionsBefore(f.ctx, young.CreatedAt) // strictly before: young stays
	if err != nil || n != 1 {
		t.Fatalf("DeleteInteractionsBefore = %d, %v; want 1", n, err)
	}
	if _, err := f.s.Interaction(f.ctx, old.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("the old interaction: %v, want ErrNotFound", err)
	}
	f.interaction(t, young)
	f.message(t, reply)
	if n, err := f.s.DeleteInteractionsBefore(f.ctx, young.CreatedAt); err != nil || n != 0 {
		t.Errorf("second DeleteInteractionsBefore = %d, %v; want 0", n, err)
	}

	// Ids as the API makes them, snowflakes of their creation (and one
	// a little ahead of its clock): what was created before t goes.
	now := ms(1_760_000_000_000)
	dated := func(created time.Time, ahead time.Duration) store.Interaction {
		in := interaction(snowflake.FromTime(created.Add(ahead)), textID, guildID)
		in.CreatedAt = created
		must(t, f.s.CreateInteraction(f.ctx, in))
		return in
	}
	gone := []store.Interaction{young, dated(now.Add(-25*time.Hour), 0), dated(now.Add(-time.Millisecond), 50*time.Millisecond)}
	kept := []store.Interaction{dated(now, 0), dated(now.Add(time.Minute), 0)}
	if n, err := f.s.DeleteInteractionsBefore(f.ctx, now); err != nil || n != 3 {
		t.Errorf("DeleteInteractionsBefore(now) = %d, %v; want 3", n, err)
	}
	for _, in := range gone {
		if _, err := f.s.Interaction(f.ctx, in.ID); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("interaction created at %v: %v, want ErrNotFound", in.CreatedAt, err)
		}
	}
	for _, in := range kept {
		f.interaction(t, in)
	}
}
