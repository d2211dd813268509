package access

import (
	"math/rand/v2"
	"testing"

	"github.com/slashd/slashd/internal/command"
	"github.com/slashd/slashd/internal/guild"
	"github.com/slashd/slashd/internal/snowflake"
)

// fuzzIDs is a small pool so that users, roles, channels, the guild and
// All Channels collide often.
var fuzzIDs = []snowflake.ID{0, 1, 2, 10, 11, 998, 999, 1000, 1001, 2001, 2002, 2003, 2004, 3001, 3002, 3003}

type fuzzBytes struct{ b []byte }

func (f *fuzzBytes) byte() byte {
	if len(f.b) == 0 {
		return 0
	}
	c := f.b[0]
	f.b = f.b[1:]
	return c
}

func (f *fuzzBytes) bool() bool       { return f.byte()&1 == 1 }
func (f *fuzzBytes) n(max int) int    { return int(f.byte()) % (max + 1) }
func (f *fuzzBytes) id() snowflake.ID { return fuzzIDs[int(f.byte())%len(fuzzIDs)] }

func (f *fuzzBytes) intsOf(max, n int) []int {
	if f.bool() {
		return nil
	}
	l := make([]int, f.n(n))
	for i := range l {
		l[i] = f.n(max)
	}
	return l
}

func (f *fuzzBytes) perms() guild.Permissions {
	var p guild.Permissions
	for range 3 {
		p = p<<8 | guild.Permissions(f.byte())
	}
	p = p<<29 | p // spread over the low and high bits
	if f.byte()%4 != 0 {
		p &^= guild.Administrator // admins are rarer
	}
	return p & guild.All
}

func (f *fuzzBytes) overwrites() []guild.Overwrite {
	l := make([]guild.Overwrite, f.n(4))
	for i := range l {
		l[i] = guild.Overwrite{ID: f.id(), Type: f.n(1), Allow: f.perms(), Deny: f.perms()}
	}
	return l
}

func (f *fuzzBytes) list() []command.Permission {
	if f.bool() {
		return nil
	}
	l := make([]command.Permission, f.n(8))
	for i := range l {
		l[i] = command.Permission{ID: f.id(), Type: command.PermissionType(f.n(4)), Permission: f.bool()}
	}
	return l
}

func (f *fuzzBytes) channel() guild.Channel {
	types := []int{guild.ChannelText, guild.ChannelCategory, guild.ChannelPublicThread, guild.ChannelPrivateThread, guild.ChannelAnnouncementThread, guild.ChannelForum}
	return guild.Channel{ID: f.id(), Type: types[f.n(len(types)-1)], ParentID: f.id(), NSFW: f.bool(), Overwrites: f.overwrites()}
}

func fuzzInput(data []byte) Input {
	f := &fuzzBytes{data}
	g := guild.Guild{ID: 1000, OwnerID: f.id()}
	if f.byte() == 0xff {
		g.ID = f.id() // sometimes a degenerate guild id (0, 1)
	}
	in := Input{Guild: g, Installed: f.byte()%8 != 0, Adult: f.bool()}
	in.Roles = guild.Roles{g.ID: {ID: g.ID, Permissions: f.perms()}}
	for range f.n(4) {
		id := f.id()
		in.Roles[id] = guild.Role{ID: id, Permissions: f.perms()}
	}
	in.Member = guild.Member{GuildID: g.ID, UserID: f.id()}
	for range f.n(5) {
		in.Member.Roles = append(in.Member.Roles, f.id())
	}
	in.Channel = f.channel()
	if f.bool() {
		p := f.channel()
		in.Parent = &p
	}
	c := command.Command{ID: f.id(), ApplicationID: 7, Type: command.ChatInput, NSFW: f.byte()%4 == 0}
	if f.bool() {
		c.GuildID = g.ID
	}
	c.Contexts = f.intsOf(2, 3)
	c.IntegrationTypes = f.intsOf(1, 2)
	switch f.n(5) {
	case 1:
		c.DefaultMemberPermissions = dmp("0")
	case 2, 3:
		c.DefaultMemberPermissions = dmp(f.perms().String())
	case 4:
		s := []string{"", "abc", "-1", "18446744073709551616", "00", "+8", "9007199254740992"}[f.n(6)]
		c.DefaultMemberPermissions = &s
	}
	in.Command = c
	in.CommandPermissions = f.list()
	in.AppPermissions = f.list()
	in.Where = []int{0, 0, 0, 1, 2}[f.n(4)]
	in.UserInstalled = f.byte()%3 == 0
	if f.bool() {
		dm := f.bool()
		in.Command.DMPermission = &dm
	}
	return in
}

var earlyRules = map[Rule]bool{
	RuleNotInstalled: true, RuleContextNotGuild: true, RuleContextNotBotDM: true, RuleContextNotPrivateChannel: true,
	RuleIntegrationNotGuildInstall: true, RuleIntegrationNotUserInstall: true,
	RuleNSFWUserNotAdult: true, RuleNSFWChannelNotAgeRestricted: true, RuleNSFWPrivateChannel: true,
	RuleUserInstall: true, RuleBotDM: true,
}

func FuzzDecide(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte("owner owns everything, unless the app is not installed"))
	f.Add([]byte{1, 7, 1, 1, 3, 9, 0, 1, 4, 2, 0, 0, 0, 0, 1, 3, 8, 0, 3, 1, 1, 1, 0, 2, 2, 2, 1, 0, 0, 5, 3, 7, 9, 11, 13})
	for i := range 64 {
		b := make([]byte, 96)
		for j := range b {
			b[j] = byte(i*31 + j*17 + i*j)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkDecide(t, fuzzInput(data)) })
}

// checkDecide checks the properties every decision has: a known rule that
// gives its answer, a reason, the same answer through the Index path and
// the reference transcription, and the owner and administrators allowed
// unless steps 1-3 deny.
func checkDecide(t *testing.T, in Input) Decision {
	t.Helper()
	d := Decide(in)
	answer, known := allRules[d.Rule]
	if !known || answer != d.Allowed || d.Reason == "" {
		t.Fatalf("decision %+v: rule known %v, answer %v", d, known, answer)
	}
	if alt := viaIndex(in); alt != d {
		t.Fatalf("Index path %+v, Decide %+v", alt, d)
	}
	if ok, r := reference(in); ok != d.Allowed || r != d.Rule {
		t.Fatalf("reference %v %q, Decide %+v", ok, r, d)
	}
	if earlyRules[d.Rule] {
		return d
	}
	switch {
	case in.Member.UserID == in.Guild.OwnerID:
		if !d.Allowed || d.Rule != RuleOwner {
			t.Fatalf("owner not allowed: %+v", d)
		}
	case guild.BasePermissions(in.Guild, in.Roles, in.Member).Has(guild.Administrator):
		if !d.Allowed || d.Rule != RuleAdministrator {
			t.Fatalf("administrator not allowed: %+v", d)
		}
	}
	return d
}

// TestFuzzSeedsCoverRules runs FuzzDecide's checks on 20000 generated
// inputs and checks that the generator reaches every rule.
func TestFuzzSeedsCoverRules(t *testing.T) {
	seen := map[Rule]bool{}
	r := rand.New(rand.NewPCG(1, 2))
	b := make([]byte, 128)
	for range 20000 {
		for j := range b {
			b[j] = byte(r.Uint32())
		}
		seen[checkDecide(t, fuzzInput(b)).Rule] = true
	}
	for r := range allRules {
		if !seen[r] {
			t.Errorf("generator did not reach %q", r)
		}
	}
}
