package api_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/auth"
	"github.com/slashd/slashd/internal/command"
	"github.com/slashd/slashd/internal/guild"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
	"github.com/slashd/slashd/internal/testenv"
)

// BenchmarkCommandIndex is GET /channels/{id}/application-command-index
// for a member with 50 roles in a guild with 100 commands, each carrying
// 100 permission overwrites, plus an app-level list of 100: the whole
// request (reads, decisions, rendering).
func BenchmarkCommandIndex(b *testing.B) {
	e := testenv.New(b)
	ctx := context.Background()
	app, gid := mustID(b, e.App.ApplicationID), mustID(b, e.App.GuildID)
	roles := make([]snowflake.ID, 200)
	for i := range roles {
		roles[i] = e.IDs.Next()
		if err := e.Store.CreateRole(ctx, guild.Role{ID: roles[i], GuildID: gid, Name: fmt.Sprint("r", i), Position: i + 1,
			Permissions: guild.SendMessages}); err != nil {
			b.Fatal(err)
		}
	}
	user := e.IDs.Next()
	if err := e.Store.CreateUser(ctx, store.User{ID: user, Username: "member", CreatedAt: time.Now()}); err != nil {
		b.Fatal(err)
	}
	if err := e.Store.PutMember(ctx, guild.Member{GuildID: gid, UserID: user, Roles: roles[:50], JoinedAt: time.Now()}); err != nil {
		b.Fatal(err)
	}
	channel := e.IDs.Next()
	if err := e.Store.CreateChannel(ctx, guild.Channel{ID: channel, GuildID: gid, Name: "general"}); err != nil {
		b.Fatal(err)
	}
	token := "bench-client-token-0123456789"
	if err := e.Store.CreateClientToken(ctx, auth.Hash(token), user, time.Now()); err != nil {
		b.Fatal(err)
	}
	path := guildCommandsPath(e.App)
	serveBench(b, e.Server.Config.Handler, "PUT", path, e.Bot(), benchCommands(100, "v1"), 200)
	cmds, err := e.Store.Commands(ctx, command.Scope{ApplicationID: app, GuildID: gid})
	if err != nil {
		b.Fatal(err)
	}
	overwrites := func(seed int) []command.Permission {
		out := make([]command.Permission, 100)
		for i := range out {
			switch i % 3 {
			case 0:
				out[i] = command.Permission{ID: roles[(seed+i)%len(roles)], Type: command.PermissionRole, Permission: i%2 == 0}
			case 1:
				out[i] = command.Permission{ID: snowflake.ID(1000 + seed*100 + i), Type: command.PermissionUser, Permission: true}
			default:
				out[i] = command.Permission{ID: snowflake.ID(5000 + seed*100 + i), Type: command.PermissionChannel, Permission: true}
			}
		}
		return out
	}
	set := func(id snowflake.ID, list []command.Permission) {
		if _, err := e.Store.SetCommandPermissions(ctx, app, gid, id, func(bool, []command.Permission) ([]command.Permission, error) {
			return list, nil
		}); err != nil {
			b.Fatal(err)
		}
	}
	for i, c := range cmds {
		set(c.ID, overwrites(i))
	}
	set(app, overwrites(999))
	indexPath := "/api/v10/channels/" + channel.String() + "/application-command-index"
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		serveBench(b, e.Server.Config.Handler, "GET", indexPath, token, nil, 200)
	}
}
