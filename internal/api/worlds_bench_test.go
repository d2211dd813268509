package api_test

import (
	"context"
	"crypto/rand"
	"database/sql"
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/form"
	"github.com/slashd/slashd/internal/jsonenc"
	"github.com/slashd/slashd/internal/store"
	"github.com/slashd/slashd/internal/testenv"
	worldspec "github.com/slashd/slashd/internal/world"
)

// benchWorld is the measured world: 1 app, 1 guild, 3 roles,
// 3 channels and 5 members (the owner among them), with one command.
const benchWorld = `{"name": %q,
 "users": {"u1": {}, "u2": {}, "u3": {}, "u4": {}, "u5": {}},
 "apps": {"bot": {"commands": [{"name": "ban", "description": "Ban someone",
   "options": [{"type": 6, "name": "user", "description": "Who", "required": true}]}]}},
 "guilds": {"club": {"owner": "u1",
   "roles": {"r1": {"permissions": ["BAN_MEMBERS"]}, "r2": {}, "r3": {}},
   "channels": {"c1": {}, "c2": {}, "c3": {"overwrites": {"@everyone": {"deny": ["VIEW_CHANNEL"]}, "r1": {"allow": ["VIEW_CHANNEL"]}}}},
   "members": {"u1": {"roles": ["r1"]}, "u2": {"roles": ["r2"]}, "u3": {}, "u4": {}, "u5": {"nick": "five"}},
   "install": {"bot": {}}}}}`

// p50 reports the median of ds in ms.
func p50(b *testing.B, ds []time.Duration, name string) {
	slices.Sort(ds)
	b.ReportMetric(float64(ds[len(ds)/2].Microseconds())/1000, name+"-p50-ms")
}

func do(b *testing.B, e *testenv.Env, method, path, body string, want int) time.Duration {
	b.Helper()
	start := time.Now()
	res := e.Do(method, path, e.AdminAuth(), body)
	d := time.Since(start)
	if res.Status != want {
		b.Fatalf("%s %s: %d %s", method, path, res.Status, res.Body)
	}
	return d
}

// BenchmarkWorlds measures POST /admin/v1/worlds, DELETE and reset of the
// issue's world through HTTP on SQLite, beside a baseline measured in the
// same run: the same rows written by one transaction of plain prepared
// statements (no HTTP, no decoding, no checks).
func BenchmarkWorlds(b *testing.B) {
	e := testenv.New(b)
	b.Run("Create", func(b *testing.B) {
		ds := make([]time.Duration, 0, b.N)
		// Names unique across runs (-count) of the one server.
		for b.Loop() {
			ds = append(ds, do(b, e, "POST", "/admin/v1/worlds", fmt.Sprintf(benchWorld, fmt.Sprintf("c-%d", e.IDs.Next())), http.StatusCreated))
		}
		p50(b, ds, "create")
	})
	b.Run("Delete", func(b *testing.B) {
		ds := make([]time.Duration, 0, b.N)
		for b.Loop() {
			b.StopTimer()
			name := fmt.Sprintf("d-%d", e.IDs.Next())
			do(b, e, "POST", "/admin/v1/worlds", fmt.Sprintf(benchWorld, name), http.StatusCreated)
			b.StartTimer()
			ds = append(ds, do(b, e, "DELETE", "/admin/v1/worlds/"+name, "", http.StatusNoContent))
		}
		p50(b, ds, "delete")
	})
	b.Run("Reset", func(b *testing.B) {
		name := fmt.Sprintf("r-%d", e.IDs.Next())
		do(b, e, "POST", "/admin/v1/worlds", fmt.Sprintf(benchWorld, name), http.StatusCreated)
		ds := make([]time.Duration, 0, b.N)
		for b.Loop() {
			ds = append(ds, do(b, e, "POST", "/admin/v1/worlds/"+name+"/reset", "", http.StatusOK))
		}
		p50(b, ds, "reset")
	})
	// An export (one read-only transaction of the world's rows, then the
	// spec), beside GET /admin/v1/worlds/{world} (the worlds row alone)
	// as its baseline, on the same server, same world.
	exported := fmt.Sprintf("x-%d", e.IDs.Next())
	do(b, e, "POST", "/admin/v1/worlds", fmt.Sprintf(benchWorld, exported), http.StatusCreated)
	b.Run("Export", func(b *testing.B) {
		ds := make([]time.Duration, 0, b.N)
		for b.Loop() {
			ds = append(ds, do(b, e, "GET", "/admin/v1/worlds/"+exported+"/export", "", http.StatusOK))
		}
		p50(b, ds, "export")
	})
	b.Run("Get", func(b *testing.B) {
		ds := make([]time.Duration, 0, b.N)
		for b.Loop() {
			ds = append(ds, do(b, e, "GET", "/admin/v1/worlds/"+exported, "", http.StatusOK))
		}
		p50(b, ds, "get")
	})
	b.Run("Baseline", func(b *testing.B) {
		ctx := context.Background()
		db := e.Store.DB()
		ds := make([]time.Duration, 0, b.N)
		for b.Loop() {
			b.StopTimer()
			body, _ := form.DecodeJSON(fmt.Appendf(nil, benchWorld, fmt.Sprintf("b-%d", e.IDs.Next())))
			spec, err := worldspec.Decode(body)
			if err != nil {
				b.Fatal(err)
			}
			plan, _, err := worldspec.Plan(spec, e.IDs.Next(), worldspec.State{}, worldspec.Sources{IDs: e.IDs.Next, Rand: rand.Reader, Now: time.Now()})
			if err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			start := time.Now()
			if err := writePlanPlain(ctx, db, plan); err != nil {
				b.Fatal(err)
			}
			ds = append(ds, time.Since(start))
		}
		p50(b, ds, "baseline")
	})
}

// writePlanPlain writes a plan's rows with prepared statements in one
// transaction: the floor a world's creation cannot go below.
func writePlanPlain(ctx context.Context, db *sql.DB, p store.WorldPlan) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	prep := func(q string) *sql.Stmt {
		st, perr := tx.PrepareContext(ctx, q)
		if perr != nil && err == nil {
			err = perr
		}
		return st
	}
	users := prep(`INSERT INTO users (id, username, global_name, bot, locale, adult, created_at, world_id) VALUES ($1, $2, '', $3, 'en-US', 0, 0, $4)`)
	apps := prep(`INSERT INTO applications (id, name, owner_id, flags, integration_types, client_secret_hash, public_key, private_key, created_at, install_params, discoverable, world_id)
		VALUES ($1, $2, $1, 0, '[0,1]', $3, $4, $5, 0, '{}', 0, $6)`)
	guilds := prep(`INSERT INTO guilds (id, name, owner_id, created_at, world_id) VALUES ($1, $2, $3, 0, $4)`)
	roles := prep(`INSERT INTO roles (id, guild_id, name, permissions, position, managed) VALUES ($1, $2, $3, $4, $5, 0)`)
	chans := prep(`INSERT INTO channels (id, guild_id, type, name, parent_id, nsfw, position, overwrites) VALUES ($1, $2, 0, $3, 0, 0, 0, $4)`)
	members := prep(`INSERT INTO members (guild_id, user_id, nick, roles, joined_at) VALUES ($1, $2, '', $3, 0)`)
	insts := prep(`INSERT INTO installations (guild_id, application_id, scopes, created_at) VALUES ($1, $2, 'bot applications.commands', 0)`)
	tokens := prep(`INSERT INTO tokens (hash, kind, application_id, user_id, scopes, expires_at, created_at, grant_id) VALUES ($1, 'bot', $2, $2, 'bot', 0, 0, 0)`)
	clients := prep(`INSERT INTO client_tokens (hash, user_id, created_at) VALUES ($1, $2, 0)`)
	scopes := prep(`INSERT INTO command_scopes (application_id, guild_id, day, creates) VALUES ($1, 0, 0, 0)`)
	cmds := prep(`INSERT INTO commands (id, application_id, guild_id, type, name, version, body) VALUES ($1, $2, 0, 1, $3, $4, $5)`)
	if err != nil {
		return err
	}
	run := func(st *sql.Stmt, args ...any) {
		if err == nil {
			_, err = st.ExecContext(ctx, args...)
		}
	}
	for _, u := range p.Users {
		run(users, int64(u.ID), u.Username, 0, int64(u.WorldID))
	}
	for _, a := range p.Apps {
		run(users, int64(a.Bot.ID), a.Bot.Username, 1, int64(a.Bot.WorldID))
		run(apps, int64(a.App.ID), a.App.Name, a.App.ClientSecretHash, a.App.PublicKey, []byte(a.App.PrivateKey), int64(a.App.WorldID))
	}
	for _, g := range p.Guilds {
		run(guilds, int64(g.ID), g.Name, int64(g.OwnerID), int64(g.WorldID))
	}
	for _, r := range p.Roles {
		run(roles, int64(r.ID), int64(r.GuildID), r.Name, int64(r.Permissions), r.Position)
	}
	for _, c := range p.Channels {
		ow, _ := jsonenc.Marshal(c.Overwrites)
		run(chans, int64(c.ID), int64(c.GuildID), c.Name, string(ow))
	}
	for _, m := range p.Members {
		rs, _ := jsonenc.Marshal(m.Roles)
		run(members, int64(m.GuildID), int64(m.UserID), string(rs))
	}
	for _, in := range p.Installations {
		run(insts, int64(in.GuildID), int64(in.ApplicationID))
	}
	for _, t := range p.Tokens {
		run(tokens, t.Hash, int64(t.ApplicationID))
	}
	for _, c := range p.ClientTokens {
		run(clients, c.Hash, int64(c.UserID))
	}
	for _, wc := range p.Commands {
		run(scopes, int64(wc.Scope.ApplicationID))
		for _, c := range wc.Commands {
			body, _ := jsonenc.Marshal(c)
			run(cmds, int64(c.ID), int64(wc.Scope.ApplicationID), c.Name, int64(c.Version), string(body))
		}
	}
	if err != nil {
		return err
	}
	return tx.Commit()
}
