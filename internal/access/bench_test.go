package access

import (
	"sync"
	"testing"

	"github.com/slashd/slashd/internal/command"
	"github.com/slashd/slashd/internal/guild"
	"github.com/slashd/slashd/internal/snowflake"
)

// pickerWorld is the benchmark's guild: 200 roles, a member holding 50 of
// them, 100 commands each with 100 overwrites (roles, users, channels),
// an app-level list of 100.
type pickerWorld struct {
	ctx   Context
	cmds  []command.Command
	lists []command.GuildPermissions
	ins   []Input // the same, one Input per command
}

func newPickerWorld() *pickerWorld {
	const (
		g      snowflake.ID = 1_000_000
		user   snowflake.ID = 42
		chID   snowflake.ID = 500_001
		role0  snowflake.ID = 10_000
		nRoles              = 200
	)
	roles := guild.Roles{g: {ID: g, Permissions: guild.DefaultEveryone}}
	for i := range nRoles {
		id := role0 + snowflake.ID(i)
		var p guild.Permissions
		if i%25 == 0 {
			p = guild.ManageGuild
		}
		roles[id] = guild.Role{ID: id, Permissions: p}
	}
	var mine []snowflake.ID
	for i := 0; i < nRoles; i += 4 { // 50 roles, every fourth
		mine = append(mine, role0+snowflake.ID(i))
	}
	ch := guild.Channel{ID: chID, Type: guild.ChannelText, Overwrites: []guild.Overwrite{
		{ID: g, Type: guild.OverwriteRole, Deny: guild.SendMessages},
		{ID: role0 + 4, Type: guild.OverwriteRole, Allow: guild.SendMessages},
		{ID: user, Type: guild.OverwriteMember, Deny: guild.ManageGuild},
	}}
	w := &pickerWorld{ctx: Context{
		Guild:     guild.Guild{ID: g, OwnerID: 1},
		Roles:     roles,
		Member:    guild.Member{GuildID: g, UserID: user, Roles: mine},
		Adult:     true,
		Channel:   ch,
		Installed: true,
	}}
	app := make([]command.Permission, 0, 100)
	for j := range 100 {
		switch {
		case j < 5:
			app = append(app, chanP(chID+snowflake.ID(j+1), false))
		case j < 35:
			app = append(app, userP(user+snowflake.ID(j), j%2 == 0))
		default: // roles the member lacks, and one it has, allowed
			app = append(app, roleP(role0+snowflake.ID(4*(j-35)+1), false))
		}
	}
	app[99] = roleP(role0+8, true)
	w.lists = append(w.lists, command.GuildPermissions{ID: 7, ApplicationID: 7, GuildID: g, Permissions: app})
	dmps := []*string{nil, dmp("0"), bits(guild.ManageGuild), bits(guild.SendMessages)}
	for i := range 100 {
		c := command.Command{ID: snowflake.ID(900_000 + i), Type: command.ChatInput, ApplicationID: 7, Name: "c", Description: "d",
			DefaultMemberPermissions: dmps[i%4]}
		l := make([]command.Permission, 0, 100)
		for j := range 100 {
			switch {
			case j < 10: // other channels; All Channels true on some commands
				id := chID + snowflake.ID(j+1)
				if j == 0 && i%3 == 0 {
					id = g - 1
				}
				l = append(l, chanP(id, true))
			case j < 40: // other users
				l = append(l, userP(user+1+snowflake.ID(j*7+i), j%2 == 0))
			default: // roles the member lacks
				l = append(l, roleP(role0+snowflake.ID(4*((j+i)%50)+1+j%3), j%2 == 0))
			}
		}
		switch i % 10 {
		case 0:
			l[11] = userP(user, true)
		case 1:
			l[50] = chanP(chID, false)
		case 2:
			l[60] = roleP(g, true)
		case 3:
			l[61] = roleP(g, false)
		case 4:
			l[70], l[71] = roleP(role0+8, false), roleP(role0+12, true)
		case 5:
			l[70], l[71] = roleP(role0+8, false), roleP(role0+16, false)
		}
		c.DefaultPermission = true
		w.cmds = append(w.cmds, c)
		w.lists = append(w.lists, command.GuildPermissions{ID: c.ID, ApplicationID: 7, GuildID: g, Permissions: l})
		w.ins = append(w.ins, Input{Guild: w.ctx.Guild, Roles: roles, Member: w.ctx.Member, Adult: true, Channel: ch,
			Installed: true, Command: c, CommandPermissions: l, AppPermissions: app})
	}
	return w
}

func TestPickerWorld(t *testing.T) {
	w := newPickerWorld()
	x := NewIndex(7, w.lists)
	got := NewViewer(w.ctx).DecideAll(x, w.cmds, nil)
	rules := map[Rule]int{}
	for i, d := range got {
		if want := Decide(w.ins[i]); d != want {
			t.Fatalf("command %d: %+v, Decide %+v", i, d, want)
		}
		if ok, r := reference(w.ins[i]); ok != d.Allowed || r != d.Rule {
			t.Fatalf("command %d: %+v, reference %v %q", i, d, ok, r)
		}
		rules[d.Rule]++
	}
	if len(rules) < 4 {
		t.Errorf("the benchmark world exercises too few rules: %v", rules)
	}
	t.Logf("rules: %v", rules)
}

// TestPickerConcurrent shares one Index and one Viewer between goroutines
// (run with -race).
func TestPickerConcurrent(t *testing.T) {
	w := newPickerWorld()
	x := NewIndex(7, w.lists)
	v := NewViewer(w.ctx)
	want := v.DecideAll(x, w.cmds, nil)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			got := v.DecideAll(x, w.cmds, nil)
			for i := range got {
				if got[i] != want[i] {
					t.Errorf("command %d: %+v, want %+v", i, got[i], want[i])
				}
			}
		})
	}
	wg.Wait()
}

// BenchmarkDecideIndex is the command picker's work: one member in one
// channel, 100 commands. The Index is built once per change of the lists
// (BenchmarkNewIndex); the Viewer once per request, inside the loop.
func BenchmarkDecideIndex(b *testing.B) {
	w := newPickerWorld()
	x := NewIndex(7, w.lists)
	out := make([]Decision, 0, len(w.cmds))
	b.ReportAllocs()
	for b.Loop() {
		out = NewViewer(w.ctx).DecideAll(x, w.cmds, out[:0])
	}
}

// BenchmarkDecideSimple decides the same 100 commands with Decide.
func BenchmarkDecideSimple(b *testing.B) {
	w := newPickerWorld()
	b.ReportAllocs()
	for b.Loop() {
		for i := range w.ins {
			_ = Decide(w.ins[i])
		}
	}
}

// BenchmarkNewIndex compiles the 101 lists of 100 entries.
func BenchmarkNewIndex(b *testing.B) {
	w := newPickerWorld()
	b.ReportAllocs()
	for b.Loop() {
		_ = NewIndex(7, w.lists)
	}
}
