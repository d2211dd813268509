// Command seed fills a slashd data directory with a large world for the
// scale benchmarks: one bootstrapped application whose guild holds 100
// commands, plus enough other guilds (each with the app installed) to reach
// the requested total of commands. Every guild is whole: its @everyone
// role, its owner and -members-1 more users as members, -channels text
// channels, -roles more roles, and the app's bot as a member (with its
// managed role) in the first -bot-in guilds, the app's own first. It writes
// directly with multi-row transactions, so a million commands take
// seconds, not hours.
//
//	go run ./tools/seed -data bench-data/1m -guilds 100000 -commands 1000000
//	go run ./tools/seed -data bench-data/10k -guilds 10000 -commands 10000 -members 1 -channels 1 -bot-in all
//
// Then: SLASHD_BENCH_DATA=bench-data/1m go test -run '^$' -bench GuildCommands1M ./internal/api
package main

import (
	"context"
	"crypto/rand"
	"database/sql"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/slashd/slashd/internal/bootstrap"
	"github.com/slashd/slashd/internal/command"
	"github.com/slashd/slashd/internal/guild"
	"github.com/slashd/slashd/internal/jsonenc"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store/sqlite"
)

// options say what to seed.
type options struct {
	guilds   int // guilds in all, the app's own included
	commands int // guild commands in all
	members  int // members per guild, its owner included (the bot comes on top)
	botIn    int // guilds the bot is a member of, the app's own first
	channels int // text channels per guild
	roles    int // roles per guild beside @everyone and the bot's managed role
}

func main() {
	dataDir := flag.String("data", "bench-data/1m", "data directory to create")
	var o options
	flag.IntVar(&o.guilds, "guilds", 100000, "number of guilds")
	flag.IntVar(&o.commands, "commands", 1000000, "number of guild commands in all")
	flag.IntVar(&o.members, "members", 1, "members per guild, its owner included (the bot's membership comes on top)")
	botIn := flag.String("bot-in", "all", `number of guilds the app's bot is a member of (installed with the bot scope), the app's own first, or "all"`)
	flag.IntVar(&o.channels, "channels", 1, "text channels per guild")
	flag.IntVar(&o.roles, "roles", 0, "roles per guild beside @everyone and the bot's managed role")
	flag.Parse()
	var err error
	if o.botIn, err = parseBotIn(*botIn, o.guilds); err != nil {
		log.Fatal(err)
	}
	if o.guilds < 1 || o.members < 1 || o.channels < 0 || o.roles < 0 || o.commands < 100 {
		log.Fatal("want -guilds ≥ 1, -members ≥ 1 (the owner), -channels ≥ 0, -roles ≥ 0 and -commands ≥ 100 (the app's own guild holds 100)")
	}
	if err := seed(context.Background(), *dataDir, o); err != nil {
		log.Fatal(err)
	}
}

// parseBotIn reads -bot-in: "all" (every guild) or a count up to guilds.
func parseBotIn(v string, guilds int) (int, error) {
	if v == "all" {
		return guilds, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 || n > guilds {
		return 0, fmt.Errorf(`-bot-in %q: want "all" or a count from 0 to -guilds (%d)`, v, guilds)
	}
	return n, nil
}

// statements are the seed's prepared INSERTs, one per table.
type statements struct {
	guild, role, user, member, channel, install, command *sql.Stmt
}

func prepare(ctx context.Context, tx *sql.Tx) (*statements, error) {
	var st statements
	for _, p := range []struct {
		stmt  **sql.Stmt
		query string
	}{
		{&st.guild, `INSERT INTO guilds (id, name, owner_id, created_at) VALUES ($1, $2, $3, $4)`},
		{&st.role, `INSERT INTO roles (id, guild_id, name, permissions, position, managed) VALUES ($1, $2, $3, $4, $5, $6)`},
		{&st.user, `INSERT INTO users (id, username, created_at) VALUES ($1, $2, $3)`},
		{&st.member, `INSERT INTO members (guild_id, user_id, roles, joined_at) VALUES ($1, $2, $3, $4)`},
		{&st.channel, `INSERT INTO channels (id, guild_id, type, name, position) VALUES ($1, $2, $3, $4, $5)`},
		{&st.install, `INSERT INTO installations (guild_id, application_id, scopes, created_at) VALUES ($1, $2, $3, $4)`},
		{&st.command, `INSERT INTO commands (id, application_id, guild_id, type, name, version, body) VALUES ($1, $2, $3, $4, $5, $6, $7)`},
	} {
		var err error
		if *p.stmt, err = tx.PrepareContext(ctx, p.query); err != nil {
			return nil, fmt.Errorf("prepare %q: %w", p.query, err)
		}
	}
	return &st, nil
}

// seeder writes one world in one transaction.
type seeder struct {
	ctx     context.Context
	st      *statements
	ids     *snowflake.Generator
	app     snowflake.ID
	appName string
	owner   snowflake.ID
	now     int64
	users   int // users made so far, for their names
	written int // commands written so far
}

func seed(ctx context.Context, dataDir string, o options) error {
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
	const appName = "bench"
	creds, err := bootstrap.CreateApp(ctx, env, bootstrap.AppOptions{Name: appName, BaseURL: "http://127.0.0.1:8080"})
	if err != nil {
		return err
	}
	if err := bootstrap.WriteFile(dataDir, creds); err != nil {
		return err
	}
	appID, _ := snowflake.Parse(creds.ApplicationID)
	target, _ := snowflake.Parse(creds.GuildID)
	owner, _ := snowflake.Parse(creds.OwnerUserID)
	if o.botIn == 0 {
		// CreateApp installed the app in its guild with the bot; take the
		// bot out as an installation without the bot scope would.
		if err := withoutBot(ctx, env, target, appID); err != nil {
			return err
		}
	}

	start := time.Now()
	db := st.DB()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	// The inserts leave GUILD_* changes in the world-events outbox (its
	// triggers); the seeded world is one at rest, whose changes were
	// announced long ago, so they are dropped below, past this mark.
	var mark int64
	if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(id), 0) FROM world_events`).Scan(&mark); err != nil {
		return fmt.Errorf("world events: %w", err)
	}
	stmts, err := prepare(ctx, tx)
	if err != nil {
		return err
	}
	s := &seeder{ctx: ctx, st: stmts, ids: ids, app: appID, appName: appName, owner: owner, now: time.Now().UnixMilli()}

	// The app's own guild has its @everyone role, owner and bot already.
	if err := s.fill(target, o); err != nil {
		return err
	}
	if err := s.addCommands(target, 100); err != nil {
		return err
	}
	others := o.guilds - 1
	perGuild := (o.commands - 100) / max(others, 1)
	extra := (o.commands - 100) - perGuild*others
	for g := 0; g < others; g++ {
		gid := ids.Next()
		if err := s.guild(gid, fmt.Sprintf("guild %d", g), g+1 < o.botIn); err != nil {
			return err
		}
		if err := s.fill(gid, o); err != nil {
			return err
		}
		n := perGuild
		if g < extra {
			n++
		}
		if err := s.addCommands(gid, n); err != nil {
			return err
		}
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM world_events WHERE id > $1`, mark); err != nil {
		return fmt.Errorf("drop the seed's world events: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	if _, err := db.ExecContext(ctx, `ANALYZE`); err != nil {
		return err
	}
	fmt.Printf("seeded %d commands in %d guilds (%d members, %d channels and %d more roles each; the bot in %d) into %s in %s (target guild %s)\n",
		s.written, o.guilds, o.members, o.channels, o.roles, o.botIn, dataDir, time.Since(start).Round(time.Millisecond), creds.GuildID)
	return nil
}

// withoutBot leaves the app installed in the guild without the bot scope
// and its bot out of the guild.
func withoutBot(ctx context.Context, env bootstrap.Env, guildID, appID snowflake.ID) error {
	inst, err := env.Store.Installation(ctx, guildID, appID)
	if err != nil {
		return err
	}
	inst.Scopes = []string{"applications.commands"}
	if err := env.Store.Install(ctx, inst); err != nil {
		return err
	}
	app, err := env.Store.Application(ctx, appID)
	if err != nil {
		return err
	}
	return bootstrap.SyncBot(ctx, env, guildID, app, false, 0)
}

// guild writes what CreateGuild and an installation write: the guild, its
// @everyone role, its owner as a member and the app's installation; with
// bot, the bot as a member with its managed role, as SyncBot makes it.
func (s *seeder) guild(id snowflake.ID, name string, bot bool) error {
	if _, err := s.st.guild.ExecContext(s.ctx, int64(id), name, int64(s.owner), s.now); err != nil {
		return fmt.Errorf("insert guild: %w", err)
	}
	if err := s.role(guild.EveryoneRoleID(id), id, "@everyone", guild.DefaultEveryone, 0, false); err != nil {
		return err
	}
	if err := s.member(id, s.owner, "[]"); err != nil {
		return err
	}
	scopes := "applications.commands"
	if bot {
		scopes += " bot"
	}
	if _, err := s.st.install.ExecContext(s.ctx, int64(id), int64(s.app), scopes, s.now); err != nil {
		return fmt.Errorf("insert installation: %w", err)
	}
	if !bot {
		return nil
	}
	managed := s.ids.Next()
	if err := s.role(managed, id, s.appName, 0, 1, true); err != nil {
		return err
	}
	roles, err := jsonenc.Marshal([]snowflake.ID{managed}) // as the store encodes a member's roles
	if err != nil {
		return err
	}
	return s.member(id, s.app, string(roles))
}

// fill adds the guild's channels, its further roles and its members
// beside its owner, who is one already.
func (s *seeder) fill(id snowflake.ID, o options) error {
	for i := range o.channels {
		name := "general"
		if i > 0 {
			name = fmt.Sprintf("channel-%d", i)
		}
		if _, err := s.st.channel.ExecContext(s.ctx, int64(s.ids.Next()), int64(id), 0, name, i); err != nil {
			return fmt.Errorf("insert channel: %w", err)
		}
	}
	for i := range o.roles {
		if err := s.role(s.ids.Next(), id, fmt.Sprintf("role-%d", i), 0, 2+i, false); err != nil {
			return err
		}
	}
	for range o.members - 1 {
		user := s.ids.Next()
		s.users++
		if _, err := s.st.user.ExecContext(s.ctx, int64(user), fmt.Sprintf("member%d", s.users), s.now); err != nil {
			return fmt.Errorf("insert user: %w", err)
		}
		if err := s.member(id, user, "[]"); err != nil {
			return err
		}
	}
	return nil
}

func (s *seeder) role(id, guildID snowflake.ID, name string, perms guild.Permissions, position int, managed bool) error {
	m := 0
	if managed {
		m = 1
	}
	if _, err := s.st.role.ExecContext(s.ctx, int64(id), int64(guildID), name, int64(perms), position, m); err != nil {
		return fmt.Errorf("insert role %s: %w", name, err)
	}
	return nil
}

// member adds a membership; roles is the stored JSON list of role ids.
func (s *seeder) member(guildID, user snowflake.ID, roles string) error {
	if _, err := s.st.member.ExecContext(s.ctx, int64(guildID), int64(user), roles, s.now); err != nil {
		return fmt.Errorf("insert member %d of guild %d: %w", user, guildID, err)
	}
	return nil
}

func (s *seeder) addCommands(guildID snowflake.ID, n int) error {
	for i := 0; i < n; i++ {
		c := benchCommand(s.app, guildID, i, s.ids)
		body, err := jsonenc.Marshal(&c)
		if err != nil {
			return err
		}
		if _, err := s.st.command.ExecContext(s.ctx, int64(c.ID), int64(s.app), int64(guildID), int(c.Type), c.Name, int64(c.Version), string(body)); err != nil {
			return fmt.Errorf("insert command: %w", err)
		}
		s.written++
	}
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
