package storetest

import (
	"errors"
	"reflect"
	"sync"
	"testing"

	"github.com/slashd/slashd/internal/guild"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
)

// Ids of the private channels fixture: a fourth person, and channel ids
// apart from the guild channels'.
const (
	daveID  snowflake.ID = 5
	dmID    snowflake.ID = 7001
	dm2ID   snowflake.ID = 7002
	groupID snowflake.ID = 7101
	pcMs                 = 1_730_000_000_000
)

func testPrivateChannels(t *testing.T, open func(t *testing.T) store.Store) {
	t.Run("OpenDM", func(t *testing.T) { testOpenDM(t, open) })
	t.Run("concurrent OpenDM", func(t *testing.T) { testConcurrentOpenDM(t, open) })
	t.Run("CreateGroupDM", func(t *testing.T) { testCreateGroupDM(t, open) })
	t.Run("PrivateChannels", func(t *testing.T) { testListPrivateChannels(t, open) })
	t.Run("messages", func(t *testing.T) { testPrivateMessages(t, open) })
	t.Run("DeletePrivateChannel", func(t *testing.T) { testDeletePrivateChannel(t, open) })
	t.Run("DeleteUser", func(t *testing.T) { testDeleteUserPrivate(t, open) })
}

// privateFixture is the messages fixture (alice, bob, guild channels)
// with carol and dave.
func privateFixture(t *testing.T, open func(t *testing.T) store.Store) *fixture {
	t.Helper()
	f := messagesFixture(t, open)
	f.user(t, carolID, "carol")
	f.user(t, daveID, "dave")
	return f
}

func dm(id snowflake.ID, users ...snowflake.ID) store.PrivateChannel {
	return store.PrivateChannel{ID: id, Type: guild.ChannelDM, Recipients: users, CreatedAt: ms(pcMs + int64(id))}
}

func groupDM(id, owner snowflake.ID, name string, users ...snowflake.ID) store.PrivateChannel {
	return store.PrivateChannel{ID: id, Type: guild.ChannelGroupDM, Name: name, OwnerID: owner, Recipients: users,
		CreatedAt: ms(pcMs + int64(id))}
}

func (f *fixture) privateChannel(t *testing.T, want store.PrivateChannel) {
	t.Helper()
	got, err := f.s.PrivateChannel(f.ctx, want.ID)
	if err != nil {
		t.Errorf("PrivateChannel(%d): %v", want.ID, err)
		return
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("PrivateChannel(%d):\n got  %+v\n want %+v", want.ID, got, want)
	}
}

func (f *fixture) privateChannels(t *testing.T, user snowflake.ID) []store.PrivateChannel {
	t.Helper()
	cs, err := f.s.PrivateChannels(f.ctx, user)
	if err != nil {
		t.Fatalf("PrivateChannels(%d): %v", user, err)
	}
	if cs == nil {
		t.Fatalf("PrivateChannels(%d): nil slice, want non-nil", user)
	}
	return cs
}

func privateIDs(cs []store.PrivateChannel) []snowflake.ID {
	out := make([]snowflake.ID, len(cs))
	for i, c := range cs {
		out[i] = c.ID
	}
	return out
}

func testOpenDM(t *testing.T, open func(t *testing.T) store.Store) {
	f := privateFixture(t, open)
	// The pair is stored smaller id first, whatever the order asked.
	got, created, err := f.s.OpenDM(f.ctx, dm(dmID, bobID, aliceID))
	want := dm(dmID, aliceID, bobID)
	if err != nil || !created || !reflect.DeepEqual(got, want) {
		t.Fatalf("OpenDM = %+v, %v, %v; want %+v, created", got, created, err, want)
	}
	f.privateChannel(t, want)

	// Opening the pair again, either way round and with another id,
	// finds the DM.
	for _, again := range []store.PrivateChannel{dm(dm2ID, aliceID, bobID), dm(dm2ID, bobID, aliceID)} {
		got, created, err := f.s.OpenDM(f.ctx, again)
		if err != nil || created || !reflect.DeepEqual(got, want) {
			t.Errorf("OpenDM(%v) again = %+v, %v, %v; want %+v, not created", again.Recipients, got, created, err, want)
		}
	}
	if _, err := f.s.PrivateChannel(f.ctx, dm2ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("the id of the second open: %v, want ErrNotFound", err)
	}

	// Another pair with one of them is another DM; a bot may be one of
	// the pair.
	other, created, err := f.s.OpenDM(f.ctx, dm(dm2ID, appID, aliceID))
	if err != nil || !created || !reflect.DeepEqual(other, dm(dm2ID, aliceID, appID)) {
		t.Errorf("OpenDM(alice, the bot) = %+v, %v, %v", other, created, err)
	}

	// An unknown user: ErrNotFound, and nothing is made.
	if _, _, err := f.s.OpenDM(f.ctx, dm(7003, aliceID, unknown)); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("OpenDM with an unknown user: %v, want ErrNotFound", err)
	}
	if _, err := f.s.PrivateChannel(f.ctx, 7003); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("the DM with an unknown user: %v, want ErrNotFound", err)
	}
	// Not a pair: refused.
	for _, bad := range [][]snowflake.ID{{aliceID}, {aliceID, aliceID}, {aliceID, bobID, carolID}, nil} {
		if _, _, err := f.s.OpenDM(f.ctx, dm(7004, bad...)); err == nil {
			t.Errorf("OpenDM(%v): no error", bad)
		}
	}
	if got := privateIDs(f.privateChannels(t, aliceID)); !reflect.DeepEqual(got, []snowflake.ID{dmID, dm2ID}) {
		t.Errorf("alice's private channels: %v", got)
	}
}

// Concurrent opens of one pair make exactly one channel, which every
// open returns.
func testConcurrentOpenDM(t *testing.T, open func(t *testing.T) store.Store) {
	f := privateFixture(t, open)
	const n = 8
	var (
		wg      sync.WaitGroup
		got     [n]store.PrivateChannel
		created [n]bool
		errs    [n]error
	)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			users := []snowflake.ID{aliceID, bobID}
			if i%2 == 1 {
				users = []snowflake.ID{bobID, aliceID}
			}
			got[i], created[i], errs[i] = f.s.OpenDM(f.ctx, dm(dmID+snowflake.ID(i), users...))
		}()
	}
	wg.Wait()
	made := 0
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("open %d: %v", i, errs[i])
		}
		if created[i] {
			made++
		}
		if got[i].ID != got[0].ID || !reflect.DeepEqual(got[i].Recipients, []snowflake.ID{aliceID, bobID}) {
			t.Errorf("open %d = %+v, open 0 = %+v", i, got[i], got[0])
		}
	}
	if made != 1 {
		t.Errorf("%d opens created the DM, want 1", made)
	}
	for _, u := range []snowflake.ID{aliceID, bobID} {
		if cs := f.privateChannels(t, u); len(cs) != 1 || cs[0].ID != got[0].ID {
			t.Errorf("private channels of %d: %+v, want the one DM %d", u, cs, got[0].ID)
		}
	}
}

func testCreateGroupDM(t *testing.T, open func(t *testing.T) store.Store) {
	f := privateFixture(t, open)
	// Recipients are kept sorted, repeats dropped.
	must(t, f.s.CreateGroupDM(f.ctx, groupDM(groupID, bobID, "plans", carolID, bobID, aliceID, carolID)))
	f.privateChannel(t, groupDM(groupID, bobID, "plans", aliceID, bobID, carolID))
	// A group DM of one, without a name.
	must(t, f.s.CreateGroupDM(f.ctx, groupDM(groupID+1, daveID, "", daveID)))
	f.privateChannel(t, groupDM(groupID+1, daveID, "", daveID))

	checkErrs(t, []errCase{
		{"unknown recipient", func() error {
			return f.s.CreateGroupDM(f.ctx, groupDM(groupID+2, aliceID, "", aliceID, unknown))
		}, store.ErrNotFound},
		{"taken id", func() error {
			return f.s.CreateGroupDM(f.ctx, groupDM(groupID, aliceID, "", aliceID, daveID))
		}, store.ErrConflict},
	})
	if _, err := f.s.PrivateChannel(f.ctx, groupID+2); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("group DM with an unknown recipient: %v, want ErrNotFound", err)
	}
	for name, bad := range map[string]store.PrivateChannel{
		"owner not a recipient": groupDM(groupID+3, daveID, "", aliceID, bobID),
		"no recipients":         groupDM(groupID+3, daveID, ""),
		"a DM's type":           {ID: groupID + 3, Type: guild.ChannelDM, OwnerID: aliceID, Recipients: []snowflake.ID{aliceID, bobID}},
	} {
		if err := f.s.CreateGroupDM(f.ctx, bad); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if _, err := f.s.PrivateChannel(f.ctx, groupID+3); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a refused group DM: %v, want ErrNotFound", err)
	}
	// A group DM does not stand for a DM: the pair still opens one.
	if _, created, err := f.s.OpenDM(f.ctx, dm(dmID, aliceID, bobID)); err != nil || !created {
		t.Errorf("OpenDM beside a group DM: created %v, %v", created, err)
	}
	if _, err := f.s.PrivateChannel(f.ctx, textID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("PrivateChannel of a guild channel: %v, want ErrNotFound", err)
	}
}

func testListPrivateChannels(t *testing.T, open func(t *testing.T) store.Store) {
	f := privateFixture(t, open)
	// Made out of id order.
	must(t, f.s.CreateGroupDM(f.ctx, groupDM(groupID, carolID, "g", aliceID, carolID, daveID)))
	if _, _, err := f.s.OpenDM(f.ctx, dm(dm2ID, aliceID, carolID)); err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.s.OpenDM(f.ctx, dm(dmID, bobID, aliceID)); err != nil {
		t.Fatal(err)
	}
	want := map[snowflake.ID][]store.PrivateChannel{
		aliceID: {dm(dmID, aliceID, bobID), dm(dm2ID, aliceID, carolID), groupDM(groupID, carolID, "g", aliceID, carolID, daveID)},
		bobID:   {dm(dmID, aliceID, bobID)},
		carolID: {dm(dm2ID, aliceID, carolID), groupDM(groupID, carolID, "g", aliceID, carolID, daveID)},
		daveID:  {groupDM(groupID, carolID, "g", aliceID, carolID, daveID)},
		unknown: {},
		appID:   {},
	}
	for user, w := range want {
		if got := f.privateChannels(t, user); !reflect.DeepEqual(got, w) {
			t.Errorf("PrivateChannels(%d):\n got  %+v\n want %+v", user, got, w)
		}
	}
}

func testPrivateMessages(t *testing.T, open func(t *testing.T) store.Store) {
	f := privateFixture(t, open)
	if _, _, err := f.s.OpenDM(f.ctx, dm(dmID, aliceID, appID)); err != nil {
		t.Fatal(err)
	}
	must(t, f.s.CreateGroupDM(f.ctx, groupDM(groupID, aliceID, "", aliceID, bobID)))
	// Messages outside guilds have no guild.
	inDM := msg(9101, dmID, 0, appID, `{"content":"hi alice"}`)
	inGroup := msg(9102, groupID, 0, bobID, `{"content":"hi all"}`)
	for _, m := range []store.Message{inDM, inGroup} {
		must(t, f.s.CreateMessage(f.ctx, m))
		f.message(t, m)
	}
	if got := f.channelMessages(t, dmID, aliceID, 0, 50); !reflect.DeepEqual(got, []snowflake.ID{9101}) {
		t.Errorf("messages of the DM: %v", got)
	}
	// A message needs a channel of either kind.
	if err := f.s.CreateMessage(f.ctx, msg(9103, unknown, 0, aliceID, `{}`)); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("CreateMessage in no channel: %v, want ErrNotFound", err)
	}
	// An interaction in the DM gets its answer there.
	in := interaction(8101, dmID, 0)
	must(t, f.s.CreateInteraction(f.ctx, in))
	answer := msg(9104, dmID, 0, appID, `{"content":"answer"}`)
	answer.InteractionID = in.ID
	if _, err := f.s.AnswerInteraction(f.ctx, in.ID, func(cur store.Interaction) (store.Answer, error) {
		cur.ResponseType, cur.OriginalMessageID = 4, answer.ID
		return store.Answer{Interaction: cur, Put: &answer}, nil
	}); err != nil {
		t.Fatalf("answer in the DM: %v", err)
	}
	f.message(t, answer)
	// Guild channels keep working beside them.
	must(t, f.s.CreateMessage(f.ctx, msg(9105, textID, guildID, aliceID, `{}`)))
}

func testDeletePrivateChannel(t *testing.T, open func(t *testing.T) store.Store) {
	f := privateFixture(t, open)
	if _, _, err := f.s.OpenDM(f.ctx, dm(dmID, aliceID, bobID)); err != nil {
		t.Fatal(err)
	}
	must(t, f.s.CreateGroupDM(f.ctx, groupDM(groupID, aliceID, "", aliceID, bobID)))
	f.seedMessages(t, map[snowflake.ID]snowflake.ID{dmID: 0, groupID: 0, textID: guildID})

	must(t, f.s.DeletePrivateChannel(f.ctx, dmID))
	f.hasMessages(t, "after DeletePrivateChannel", false, dmID)
	f.hasMessages(t, "after DeletePrivateChannel", true, groupID, textID)
	if _, err := f.s.PrivateChannel(f.ctx, dmID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("the deleted DM: %v, want ErrNotFound", err)
	}
	if got := privateIDs(f.privateChannels(t, aliceID)); !reflect.DeepEqual(got, []snowflake.ID{groupID}) {
		t.Errorf("alice's private channels after: %v", got)
	}
	checkErrs(t, []errCase{
		{"again", func() error { return f.s.DeletePrivateChannel(f.ctx, dmID) }, store.ErrNotFound},
		{"a guild channel", func() error { return f.s.DeletePrivateChannel(f.ctx, textID) }, store.ErrNotFound},
	})
	// The pair can open a new DM.
	again, created, err := f.s.OpenDM(f.ctx, dm(dm2ID, aliceID, bobID))
	if err != nil || !created || again.ID != dm2ID {
		t.Errorf("OpenDM after the delete = %+v, %v, %v", again, created, err)
	}
	// A guild channel's deletion leaves private channels alone.
	must(t, f.s.DeleteGuild(f.ctx, guildID))
	f.hasMessages(t, "after DeleteGuild", true, groupID)
}

// Deleting a user deletes their DMs and takes them out of group DMs.
func testDeleteUserPrivate(t *testing.T, open func(t *testing.T) store.Store) {
	f := privateFixture(t, open)
	for _, c := range []store.PrivateChannel{dm(dmID, aliceID, bobID), dm(dm2ID, bobID, carolID)} {
		if _, _, err := f.s.OpenDM(f.ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	owned := groupDM(groupID, aliceID, "owned", aliceID, carolID, daveID)
	joined := groupDM(groupID+1, carolID, "joined", aliceID, carolID)
	alone := groupDM(groupID+2, aliceID, "alone", aliceID)
	for _, g := range []store.PrivateChannel{owned, joined, alone} {
		must(t, f.s.CreateGroupDM(f.ctx, g))
	}
	f.seedMessages(t, map[snowflake.ID]snowflake.ID{dmID: 0, dm2ID: 0, owned.ID: 0, alone.ID: 0})

	must(t, f.s.DeleteUser(f.ctx, aliceID))
	// Her DM is gone with its messages; bob's other DM stays.
	f.hasMessages(t, "alice's DM", false, dmID)
	f.hasMessages(t, "bob and carol's DM", true, dm2ID)
	f.privateChannel(t, dm(dm2ID, bobID, carolID))
	// The group she owned passes to carol, the first left, with its
	// messages; the one she joined loses her; the one she was alone in
	// is gone.
	f.privateChannel(t, groupDM(groupID, carolID, "owned", carolID, daveID))
	f.hasMessages(t, "the owned group DM", true, owned.ID)
	f.privateChannel(t, groupDM(groupID+1, carolID, "joined", carolID))
	if _, err := f.s.PrivateChannel(f.ctx, alone.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("the group DM she was alone in: %v, want ErrNotFound", err)
	}
	f.hasMessages(t, "the group DM she was alone in", false, alone.ID)
	if got := f.privateChannels(t, aliceID); len(got) != 0 {
		t.Errorf("private channels of the deleted user: %+v", got)
	}
	if got := privateIDs(f.privateChannels(t, bobID)); !reflect.DeepEqual(got, []snowflake.ID{dm2ID}) {
		t.Errorf("bob's private channels: %v", got)
	}
	// MaxID counts private channels.
	const top = 3 * idBase
	must(t, f.s.CreateGroupDM(f.ctx, groupDM(top, bobID, "", bobID)))
	if max, err := f.s.MaxID(f.ctx); err != nil || max != top {
		t.Errorf("MaxID = %d, %v; want %d", max, err, top)
	}
}
