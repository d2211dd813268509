// Command seed fills a slashd data directory with a large command set for
// the scale benchmark: one bootstrapped application whose guild holds 100
// commands, plus enough other guilds (each with the app installed) to reach
// the requested total. It writes directly with multi-row transactions, so
// a million commands take seconds, not hours.
//
//	go run ./tools/seed -data bench-data/1m -guilds 100000 -commands 1000000
//
// Then: SLASHD_BENCH_DATA=bench-data/1m go test -run '^$' -bench GuildCommands1M ./internal/api
package main

import (
	"context"
	"crypto/rand"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/slashd/slashd/internal/bootstrap"
	"github.com/slashd/slashd/internal/command"
	"github.com/slashd/slashd/internal/jsonenc"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store/sqlite"
)

func main() {
	dataDir := flag.String("data", "bench-data/1m", "data directory to create")
	guilds := flag.Int("guilds", 100000, "number of guilds")
	total := flag.Int("commands", 1000000, "number of guild commands in all")
	flag.Parse()
	if err := seed(context.Background(), *dataDir, *guilds, *total); err != nil {
		log.Fatal(err)
	}
}

func seed(ctx context.Context, dataDir string, guilds, total int) error {
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return err
	}
	st, err := sqlite.Open(ctx, filepath.Join(dataDir, "slashd.db"))
	if err != nil {
		return err
	}
	defer st.Close()
	ids := snowflake.NewGenerator(7, nil)
	env := bootstrap.Env{Store: st, IDs: ids, Rand: rand.Reader, Now: time.Now}
	creds, err := bootstrap.CreateApp(ctx, env, bootstrap.AppOptions{Name: "bench", BaseURL: "http://127.0.0.1:8080"})
	if err != nil {
		return err
	}
	if err := bootstrap.WriteFile(dataDir, creds); err != nil {
		return err
	}
	appID, _ := snowflake.Parse(creds.ApplicationID)
	target, _ := snowflake.Parse(creds.GuildID)
	owner, _ := snowflake.Parse(creds.OwnerUserID)

	start := time.Now()
	db := st.DB()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	insGuild, err := tx.PrepareContext(ctx, `INSERT INTO guilds (id, name, owner_id, created_at) VALUES ($1, $2, $3, $4)`)
	if err != nil {
		return err
	}
	insInst, err := tx.PrepareContext(ctx, `INSERT INTO installations (guild_id, application_id, scopes, created_at) VALUES ($1, $2, $3, $4)`)
	if err != nil {
		return err
	}
	insCmd, err := tx.PrepareContext(ctx, `INSERT INTO commands (id, application_id, guild_id, type, name, version, body) VALUES ($1, $2, $3, $4, $5, $6, $7)`)
	if err != nil {
		return err
	}
	now := time.Now().UnixMilli()
	written := 0
	addCommands := func(guild snowflake.ID, n int) error {
		for i := 0; i < n; i++ {
			c := benchCommand(appID, guild, i, ids)
			body, err := jsonenc.Marshal(&c)
			if err != nil {
				return err
			}
			if _, err := insCmd.ExecContext(ctx, int64(c.ID), int64(appID), int64(guild), int(c.Type), c.Name, int64(c.Version), string(body)); err != nil {
				return fmt.Errorf("insert command: %w", err)
			}
			written++
		}
		return nil
	}
	if err := addCommands(target, 100); err != nil {
		return err
	}
	others := guilds - 1
	perGuild := (total - 100) / max(others, 1)
	extra := (total - 100) - perGuild*others
	for g := 0; g < others; g++ {
		gid := ids.Next()
		if _, err := insGuild.ExecContext(ctx, int64(gid), fmt.Sprintf("guild %d", g), int64(owner), now); err != nil {
			return err
		}
		if _, err := insInst.ExecContext(ctx, int64(gid), int64(appID), "applications.commands bot", now); err != nil {
			return err
		}
		n := perGuild
		if g < extra {
			n++
		}
		if err := addCommands(gid, n); err != nil {
			return err
		}
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	if _, err := db.ExecContext(ctx, `ANALYZE`); err != nil {
		return err
	}
	fmt.Printf("seeded %d commands in %d guilds into %s in %s (target guild %s)\n",
		written, guilds, dataDir, time.Since(start).Round(time.Millisecond), creds.GuildID)
	return nil
}

// benchCommand is a realistic slash command: two options, one with choices,
// and a localized name.
func benchCommand(app, guild snowflake.ID, i int, ids *snowflake.Generator) command.Command {
	minV, maxV := 1.0, 100.0
	return command.Command{
		ID: ids.Next(), Type: command.ChatInput, ApplicationID: app, GuildID: guild,
		Name: fmt.Sprintf("cmd-%d", i), NameLocalizations: command.Localizations{"de": fmt.Sprintf("befehl-%d", i)},
		Description: "A benchmark command " + strings.Repeat("x", 20),
		Options: []command.Option{
			{Type: command.String, Name: "query", Description: "What to look for", Required: true,
				Choices: []command.Choice{{Name: "One", Value: "one"}, {Name: "Two", Value: "two"}}},
			{Type: command.Integer, Name: "count", Description: "How many", MinValue: &minV, MaxValue: &maxV},
		},
		DefaultPermission: true, IntegrationTypes: []int{0}, Contexts: []int{0, 1, 2}, Version: ids.Next(),
	}
}
