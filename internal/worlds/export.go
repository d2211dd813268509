package worlds

import (
	"context"
	"fmt"
	"slices"

	"github.com/slashd/slashd/internal/command"
	"github.com/slashd/slashd/internal/guild"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
	"github.com/slashd/slashd/internal/world"
)

// ExportOptions say what an export holds beyond the world's objects.
type ExportOptions struct {
	// Messages: the messages of its channels, DMs and group DMs (the
	// newest world.MaxMessages of each).
	Messages bool
}

// Export reads a world as it is now and writes it as a spec
// (world.Export): what its spec made and everything made in it since.
//
// The rows are read with the store's ordinary reads, one after the
// other: an export taken while the world changes may show a change
// half made (a role made, the member given it not yet). Export a world
// at rest.
func Export(ctx context.Context, st store.Store, w store.TestWorld, o ExportOptions) (world.Document, error) {
	spec, state, err := Load(w)
	if err != nil {
		return world.Document{}, err
	}
	rows, err := worldRows(ctx, st, w.ID, o)
	if err != nil {
		return world.Document{}, fmt.Errorf("export world %q: %w", w.Name, err)
	}
	return world.Export(w.Name, rows, spec, state)
}

// worldRows reads every row of world id, in store.WorldPlan's shape
// (without tokens: secrets are never exported).
func worldRows(ctx context.Context, st store.Store, id snowflake.ID, o ExportOptions) (store.WorldPlan, error) {
	var rows store.WorldPlan
	users, err := st.Users(ctx)
	if err != nil {
		return rows, err
	}
	bots := map[snowflake.ID]store.User{}
	var parties []snowflake.ID
	for _, u := range users {
		switch {
		case u.WorldID != id:
		case u.Bot:
			bots[u.ID] = u
		default:
			rows.Users = append(rows.Users, u)
			parties = append(parties, u.ID)
		}
	}
	apps, err := st.Applications(ctx)
	if err != nil {
		return rows, err
	}
	for _, a := range apps {
		if a.WorldID == id {
			a.PrivateKey, a.ClientSecretHash = nil, nil // never leaves the store through an export
			rows.Apps = append(rows.Apps, store.WorldApp{App: a, Bot: bots[a.ID]})
			parties = append(parties, a.ID)
		}
	}
	guilds, err := st.Guilds(ctx)
	if err != nil {
		return rows, err
	}
	for _, g := range guilds {
		if g.WorldID != id {
			continue
		}
		rows.Guilds = append(rows.Guilds, g)
		if err := guildRows(ctx, st, g.ID, &rows, o); err != nil {
			return rows, err
		}
	}
	for _, a := range rows.Apps {
		scopes := []command.Scope{{ApplicationID: a.App.ID}}
		for _, g := range rows.Guilds {
			scopes = append(scopes, command.Scope{ApplicationID: a.App.ID, GuildID: g.ID})
			perms, err := st.GuildPermissions(ctx, a.App.ID, g.ID)
			if err != nil {
				return rows, err
			}
			rows.Permissions = append(rows.Permissions, perms...)
		}
		for _, sc := range scopes {
			cmds, err := st.Commands(ctx, sc)
			if err != nil {
				return rows, err
			}
			if len(cmds) > 0 {
				rows.Commands = append(rows.Commands, store.WorldCommands{Scope: sc, Commands: cmds})
			}
		}
	}
	seen := map[snowflake.ID]bool{}
	for _, u := range parties {
		ins, err := st.UserInstallations(ctx, u)
		if err != nil {
			return rows, err
		}
		rows.UserInstalls = append(rows.UserInstalls, ins...)
		pcs, err := st.PrivateChannels(ctx, u)
		if err != nil {
			return rows, err
		}
		for _, c := range pcs {
			if seen[c.ID] {
				continue
			}
			seen[c.ID] = true
			rows.Private = append(rows.Private, c)
			if o.Messages {
				if err := channelMessages(ctx, st, c.ID, &rows); err != nil {
					return rows, err
				}
			}
		}
	}
	slices.SortFunc(rows.Private, func(a, b store.PrivateChannel) int { return cmpID(a.ID, b.ID) })
	return rows, nil
}

func guildRows(ctx context.Context, st store.Store, gid snowflake.ID, rows *store.WorldPlan, o ExportOptions) error {
	roles, err := st.Roles(ctx, gid)
	if err != nil {
		return err
	}
	slices.SortFunc(roles, func(a, b guild.Role) int { return cmpID(a.ID, b.ID) })
	rows.Roles = append(rows.Roles, roles...)
	chans, err := st.Channels(ctx, gid)
	if err != nil {
		return err
	}
	// Channels by id: the order handles are derived in, whatever
	// positions they were moved to.
	slices.SortFunc(chans, func(a, b guild.Channel) int { return cmpID(a.ID, b.ID) })
	rows.Channels = append(rows.Channels, chans...)
	members, err := st.Members(ctx, gid)
	if err != nil {
		return err
	}
	rows.Members = append(rows.Members, members...)
	ins, err := st.Installations(ctx, gid)
	if err != nil {
		return err
	}
	rows.Installations = append(rows.Installations, ins...)
	if o.Messages {
		for _, c := range chans {
			if err := channelMessages(ctx, st, c.ID, rows); err != nil {
				return err
			}
		}
	}
	return nil
}

// channelMessages appends the newest world.MaxMessages messages of a
// channel everyone sees, oldest first.
func channelMessages(ctx context.Context, st store.Store, channel snowflake.ID, rows *store.WorldPlan) error {
	var newest []store.Message
	var before snowflake.ID
	for len(newest) < world.MaxMessages {
		page, err := st.ChannelMessages(ctx, channel, 0, before, 100)
		if err != nil {
			return err
		}
		newest = append(newest, page...)
		if len(page) < 100 {
			break
		}
		before = page[len(page)-1].ID
	}
	slices.Reverse(newest)
	rows.Messages = append(rows.Messages, newest...)
	return nil
}

func cmpID(a, b snowflake.ID) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
