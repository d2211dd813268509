package storetest

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
)

func testFiles(t *testing.T, open func(t *testing.T) store.Store) {
	t.Run("written with their message", func(t *testing.T) { testFilesWritten(t, open) })
	t.Run("a failed write keeps none", func(t *testing.T) { testFilesFailedWrite(t, open) })
	t.Run("edits keep and drop", func(t *testing.T) { testFilesEdits(t, open) })
	t.Run("deleted with their message", func(t *testing.T) { testFilesDeleted(t, open) })
	t.Run("quota evicts the oldest", func(t *testing.T) { testFilesQuota(t, open) })
	t.Run("FileSigningKey", func(t *testing.T) { testFileSigningKey(t, open) })
}

// upload is a file of n bytes whose contents tell it apart.
func upload(id snowflake.ID, n int) store.File {
	data := bytes.Repeat([]byte{byte(id)}, n)
	return store.File{ID: id, Filename: fmt.Sprintf("f%d.bin", id), ContentType: "application/octet-stream", Data: data}
}

// withFiles is m with files to add.
func withFiles(m store.Message, files ...store.File) store.Message {
	m.Files = &store.FileWrite{Add: files}
	return m
}

// hasFile checks that file id is stored (as want, of message msg in
// channel ch) or, with want's ID 0, that it is not.
func (f *fixture) hasFile(t *testing.T, what string, id snowflake.ID, want store.File) {
	t.Helper()
	got, err := f.s.File(f.ctx, id)
	if want.ID == 0 {
		if !errors.Is(err, store.ErrNotFound) {
			t.Errorf("%s: File(%d) = %v, want ErrNotFound", what, id, err)
		}
		return
	}
	if err != nil {
		t.Errorf("%s: File(%d): %v", what, id, err)
		return
	}
	if got.ID != want.ID || got.MessageID != want.MessageID || got.ChannelID != want.ChannelID ||
		got.Filename != want.Filename || got.ContentType != want.ContentType || !bytes.Equal(got.Data, want.Data) {
		t.Errorf("%s: File(%d) = %d %d %d %q %q %d bytes, want %d %d %d %q %q %d bytes", what, id,
			got.ID, got.MessageID, got.ChannelID, got.Filename, got.ContentType, len(got.Data),
			want.ID, want.MessageID, want.ChannelID, want.Filename, want.ContentType, len(want.Data))
	}
}

// of is file u as stored for message m.
func of(u store.File, m store.Message) store.File {
	u.MessageID, u.ChannelID = m.ID, m.ChannelID
	return u
}

func testFilesWritten(t *testing.T, open func(t *testing.T) store.Store) {
	f := messagesFixture(t, open)
	// CreateMessage
	a, b := upload(5001, 3), upload(5002, 0)
	posted := withFiles(msg(9001, textID, guildID, aliceID, `{"content":"files"}`), a, b)
	must(t, f.s.CreateMessage(f.ctx, posted))
	f.hasFile(t, "CreateMessage", a.ID, of(a, posted))
	f.hasFile(t, "CreateMessage (empty file)", b.ID, of(b, posted))
	posted.Files = nil
	f.message(t, posted) // a read carries no files

	// CreateFollowup
	in := interaction(8001, textID, guildID)
	must(t, f.s.CreateInteraction(f.ctx, in))
	c := upload(5003, 10)
	follow := withFiles(msg(9002, textID, guildID, appID, `{}`), c)
	must(t, f.s.CreateFollowup(f.ctx, in.ID, 0, follow))
	f.hasFile(t, "CreateFollowup", c.ID, of(c, follow))

	// An answer's Put, then CreateAnsweredInteraction's
	d := upload(5004, 7)
	answer := withFiles(msg(9003, threadID, guildID, appID, `{}`), d)
	_, err := f.s.AnswerInteraction(f.ctx, in.ID, func(cur store.Interaction) (store.Answer, error) {
		cur.ResponseType, cur.OriginalMessageID = 4, answer.ID
		return store.Answer{Interaction: cur, Put: &answer}, nil
	})
	must(t, err)
	f.hasFile(t, "AnswerInteraction", d.ID, of(d, answer))
	e := upload(5005, 2)
	inline := withFiles(msg(9004, textID, guildID, appID, `{}`), e)
	_, err = f.s.CreateAnsweredInteraction(f.ctx, interaction(8002, textID, guildID), func(cur store.Interaction) (store.Answer, error) {
		cur.ResponseType, cur.OriginalMessageID = 4, inline.ID
		return store.Answer{Interaction: cur, Put: &inline}, nil
	})
	must(t, err)
	f.hasFile(t, "CreateAnsweredInteraction", e.ID, of(e, inline))
	f.hasFile(t, "never stored", 5999, store.File{})
}

func testFilesFailedWrite(t *testing.T, open func(t *testing.T) store.Store) {
	f := messagesFixture(t, open)
	a := upload(5001, 3)
	err := f.s.CreateMessage(f.ctx, withFiles(msg(9001, 424242, guildID, aliceID, `{}`), a))
	if !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("CreateMessage in an unknown channel = %v, want ErrNotFound", err)
	}
	f.hasFile(t, "after a message refused", a.ID, store.File{})

	// A file whose id is taken fails the whole write: no message either.
	must(t, f.s.CreateMessage(f.ctx, withFiles(msg(9002, textID, guildID, aliceID, `{}`), a)))
	b := upload(5002, 1)
	err = f.s.CreateMessage(f.ctx, withFiles(msg(9003, textID, guildID, aliceID, `{}`), b, a))
	if err == nil {
		t.Fatal("CreateMessage with a file id taken succeeded")
	}
	f.hasFile(t, "beside a taken id", b.ID, store.File{})
	if _, err := f.s.Message(f.ctx, 9003); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("the message whose files failed: Message = %v, want ErrNotFound", err)
	}

	// An answer whose fn fails writes no file.
	in := interaction(8001, textID, guildID)
	must(t, f.s.CreateInteraction(f.ctx, in))
	c := upload(5003, 1)
	refused := errors.New("refused")
	_, err = f.s.AnswerInteraction(f.ctx, in.ID, func(cur store.Interaction) (store.Answer, error) {
		m := withFiles(msg(9004, textID, guildID, appID, `{}`), c)
		return store.Answer{Interaction: cur, Put: &m}, refused
	})
	if !errors.Is(err, refused) {
		t.Fatalf("AnswerInteraction = %v, want %v", err, refused)
	}
	f.hasFile(t, "after a refused answer", c.ID, store.File{})
}

func testFilesEdits(t *testing.T, open func(t *testing.T) store.Store) {
	f := messagesFixture(t, open)
	a, b, c := upload(5001, 3), upload(5002, 4), upload(5003, 5)
	m := withFiles(msg(9001, textID, guildID, aliceID, `{}`), a, b)
	must(t, f.s.CreateMessage(f.ctx, m))

	// Without files, an edit leaves them.
	must(t, f.s.UpdateMessage(f.ctx, m.ID, []byte(`{"content":"x"}`), nil))
	f.hasFile(t, "edit without files", a.ID, of(a, m))
	f.hasFile(t, "edit without files", b.ID, of(b, m))

	// Keep a, drop b, add c.
	must(t, f.s.UpdateMessage(f.ctx, m.ID, []byte(`{"content":"y"}`), &store.FileWrite{Keep: []snowflake.ID{a.ID}, Add: []store.File{c}}))
	f.hasFile(t, "kept", a.ID, of(a, m))
	f.hasFile(t, "dropped", b.ID, store.File{})
	f.hasFile(t, "added by the edit", c.ID, of(c, m))

	// An edit keeping nothing drops all.
	must(t, f.s.UpdateMessage(f.ctx, m.ID, []byte(`{"content":"z"}`), &store.FileWrite{}))
	f.hasFile(t, "all dropped", a.ID, store.File{})
	f.hasFile(t, "all dropped", c.ID, store.File{})
	err := f.s.UpdateMessage(f.ctx, 9999, []byte(`{}`), &store.FileWrite{Add: []store.File{upload(5004, 1)}})
	if !errors.Is(err, store.ErrNotFound) {
		t.Errorf("UpdateMessage of an unknown message with files = %v, want ErrNotFound", err)
	}
	f.hasFile(t, "edit of an unknown message", 5004, store.File{})

	// An answer replacing a message whole (UPDATE_MESSAGE) keeps what it
	// names.
	d, e := upload(5005, 1), upload(5006, 2)
	comp := withFiles(msg(9002, textID, guildID, appID, `{}`), d)
	must(t, f.s.CreateMessage(f.ctx, comp))
	in := interaction(8001, textID, guildID)
	in.MessageID = comp.ID
	must(t, f.s.CreateInteraction(f.ctx, in))
	_, err = f.s.AnswerInteraction(f.ctx, in.ID, func(cur store.Interaction) (store.Answer, error) {
		cur.ResponseType, cur.OriginalMessageID = 7, comp.ID
		put := msg(comp.ID, textID, guildID, appID, `{"content":"updated"}`)
		put.Files = &store.FileWrite{Add: []store.File{e}}
		return store.Answer{Interaction: cur, Put: &put}, nil
	})
	must(t, err)
	f.hasFile(t, "replaced, not kept", d.ID, store.File{})
	f.hasFile(t, "replaced, added", e.ID, of(e, comp))
}

func testFilesDeleted(t *testing.T, open func(t *testing.T) store.Store) {
	f := messagesFixture(t, open)
	write := func(id, ch, g snowflake.ID, file snowflake.ID) store.File {
		u := upload(file, 2)
		m := withFiles(msg(id, ch, g, aliceID, `{}`), u)
		must(t, f.s.CreateMessage(f.ctx, m))
		return of(u, m)
	}
	deleted := write(9001, textID, guildID, 5001)
	other := write(9002, textID, guildID, 5002)
	must(t, f.s.DeleteMessage(f.ctx, 9001))
	f.hasFile(t, "DeleteMessage", deleted.ID, store.File{})
	f.hasFile(t, "another message's", other.ID, other)

	inThread := write(9003, threadID, guildID, 5003)
	must(t, f.s.DeleteChannel(f.ctx, guildID, textID))
	f.hasFile(t, "DeleteChannel", other.ID, store.File{})
	f.hasFile(t, "DeleteChannel (its thread)", inThread.ID, store.File{})

	inText2 := write(9004, text2ID, guildID, 5004)
	otherGuild := write(9005, g2TextID, guild2ID, 5005)
	must(t, f.s.DeleteGuild(f.ctx, guildID))
	f.hasFile(t, "DeleteGuild", inText2.ID, store.File{})
	f.hasFile(t, "another guild's", otherGuild.ID, otherGuild)
}

func testFilesQuota(t *testing.T, open func(t *testing.T) store.Store) {
	f := messagesFixture(t, open)
	var stored []store.File
	write := func(id snowflake.ID, quota int64, files ...store.File) *store.FileWrite {
		m := msg(id, textID, guildID, aliceID, `{}`)
		m.Files = &store.FileWrite{Add: files, Quota: quota}
		must(t, f.s.CreateMessage(f.ctx, m))
		for _, u := range files {
			stored = append(stored, of(u, m))
		}
		return m.Files
	}
	if fw := write(9001, 100, upload(5001, 40), upload(5002, 30)); fw.Evicted != 0 {
		t.Errorf("70 bytes of 100: evicted %d", fw.Evicted)
	}
	if fw := write(9002, 100, upload(5003, 30)); fw.Evicted != 0 {
		t.Errorf("100 bytes of 100: evicted %d", fw.Evicted)
	}
	// 5 more bytes: the oldest file (40 bytes) goes, the rest fit.
	fw := write(9003, 100, upload(5004, 5))
	if fw.Evicted != 1 || fw.EvictedBytes != 40 {
		t.Errorf("evicted %d files, %d bytes; want 1, 40", fw.Evicted, fw.EvictedBytes)
	}
	f.hasFile(t, "oldest", 5001, store.File{})
	for _, u := range stored[1:] {
		f.hasFile(t, "within the quota", u.ID, u)
	}
	// A write that needs more room than the oldest file makes takes
	// several (90+5 fit, the two 30-byte files before them do not).
	fw = write(9004, 100, upload(5005, 90))
	if fw.Evicted != 2 || fw.EvictedBytes != 60 {
		t.Errorf("evicted %d files, %d bytes; want 2, 60", fw.Evicted, fw.EvictedBytes)
	}
	for _, id := range []snowflake.ID{5002, 5003} {
		f.hasFile(t, "evicted", id, store.File{})
	}
	f.hasFile(t, "kept", 5004, stored[3])
	f.hasFile(t, "new", 5005, stored[4])
	// The message of an evicted file stays.
	if _, err := f.s.Message(f.ctx, 9001); err != nil {
		t.Errorf("the message of evicted files: %v", err)
	}
}

func testFileSigningKey(t *testing.T, open func(t *testing.T) store.Store) {
	f := newFixture(t, open)
	first, err := f.s.FileSigningKey(f.ctx, []byte("first key"))
	must(t, err)
	second, err := f.s.FileSigningKey(f.ctx, []byte("second key"))
	must(t, err)
	if string(first) != "first key" || string(second) != "first key" {
		t.Errorf("FileSigningKey = %q then %q, want the first candidate both times", first, second)
	}
}
