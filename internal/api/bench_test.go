package api_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/api"
	"github.com/slashd/slashd/internal/bootstrap"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store/sqlite"
	"github.com/slashd/slashd/internal/testenv"
)

// benchCommands is a bulk overwrite body of n realistic slash commands.
func benchCommands(n int, tag string) []byte {
	cmds := make([]map[string]any, n)
	for i := range cmds {
		cmds[i] = map[string]any{
			"name": fmt.Sprintf("cmd-%d", i), "description": "A benchmark command " + tag,
			"name_localizations": map[string]string{"de": fmt.Sprintf("befehl-%d", i)},
			"options": []map[string]any{
				{"type": 3, "name": "query", "description": "What to look for", "required": true,
					"choices": []map[string]any{{"name": "One", "value": "one"}, {"name": "Two", "value": "two"}}},
				{"type": 4, "name": "count", "description": "How many", "min_value": 1, "max_value": 100},
			},
		}
	}
	b, _ := json.Marshal(cmds)
	return b
}

// serveBench runs one in-process request and fails on an unexpected status.
func serveBench(b *testing.B, h http.Handler, method, path, auth string, body []byte, want int) {
	req := httptest.NewRequest(method, path, bytes.NewReader(body))
	req.Header.Set("Authorization", auth)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != want {
		b.Fatalf("%s %s: status %d: %s", method, path, rec.Code, rec.Body.String())
	}
}

func guildCommandsPath(c bootstrap.Credentials) string {
	return "/api/v10/applications/" + c.ApplicationID + "/guilds/" + c.GuildID + "/commands"
}

// BenchmarkGetGuildCommands is GET of a guild's 100 commands on a store
// holding only them.
func BenchmarkGetGuildCommands(b *testing.B) {
	e := testenv.New(b)
	path := guildCommandsPath(e.App)
	serveBench(b, e.Server.Config.Handler, "PUT", path, e.Bot(), benchCommands(100, "v1"), 200)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		serveBench(b, e.Server.Config.Handler, "GET", path, e.Bot(), nil, 200)
	}
}

// BenchmarkGetGuildCommands1M is the same GET with 1,000,000 commands
// across 100,000 guilds in the store, seeded beforehand by tools/seed
// (SLASHD_BENCH_DATA names the data directory).
func BenchmarkGetGuildCommands1M(b *testing.B) {
	dir := os.Getenv("SLASHD_BENCH_DATA")
	if dir == "" {
		b.Skip("SLASHD_BENCH_DATA not set: seed with `go run ./tools/seed -data DIR` first")
	}
	raw, err := os.ReadFile(filepath.Join(dir, bootstrap.FileName))
	if err != nil {
		b.Fatal(err)
	}
	var creds bootstrap.Credentials
	if err := json.Unmarshal(raw, &creds); err != nil {
		b.Fatal(err)
	}
	st, err := sqlite.Open(context.Background(), filepath.Join(dir, "slashd.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	cfg := api.DefaultConfig()
	cfg.RateLimit = false
	h := api.New(cfg, api.Deps{Store: st, IDs: snowflake.NewGenerator(9, nil), Now: time.Now, Rand: rand.Reader})
	path := guildCommandsPath(creds)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		serveBench(b, h, "GET", path, "Bot "+creds.BotToken, nil, 200)
	}
}

// BenchmarkBulkOverwrite100 replaces a guild's 100 commands with a changed
// set each time (every command gets a new version).
func BenchmarkBulkOverwrite100(b *testing.B) {
	e := testenv.New(b)
	path := guildCommandsPath(e.App)
	bodies := [][]byte{benchCommands(100, "v1"), benchCommands(100, "v2")}
	b.ReportAllocs()
	b.ResetTimer()
	i := 0
	for b.Loop() {
		serveBench(b, e.Server.Config.Handler, "PUT", path, e.Bot(), bodies[i%2], 200)
		i++
	}
}

// BenchmarkBulkOverwrite100NoOp re-sends an identical set: nothing is
// written and versions stay.
func BenchmarkBulkOverwrite100NoOp(b *testing.B) {
	e := testenv.New(b)
	path := guildCommandsPath(e.App)
	body := benchCommands(100, "v1")
	serveBench(b, e.Server.Config.Handler, "PUT", path, e.Bot(), body, 200)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		serveBench(b, e.Server.Config.Handler, "PUT", path, e.Bot(), body, 200)
	}
}
