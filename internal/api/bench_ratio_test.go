package api_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/store/sqlite"
	"github.com/slashd/slashd/internal/testenv"
	"github.com/slashd/slashd/sdk/interactions"
)

// The ratio benchmarks of issues 15 and 28: each measures a slashd path
// and, in the same run, the baseline it is compared with, and reports
// both and their ratio. tools/perfbench runs them all (and the gateway's,
// which needs two processes):
//
//	go run ./tools/perfbench
//	go test -run '^$' -bench Ratio -benchtime 3000x ./internal/api

// BenchmarkRatioRead: GET a guild's 25 commands over loopback HTTP (four
// keep-alive clients at once) beside a bare net/http handler serving the
// same bytes to the same clients.
func BenchmarkRatioRead(b *testing.B) {
	e := testenv.New(b)
	path := guildCommandsPath(e.App)
	serveBench(b, e.Server.Config.Handler, "PUT", path, e.Bot(), benchCommands(25, "v1"), 200)
	auth := e.Bot()
	body := getBody(b, e.URL+path, auth)
	bare := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	}))
	defer bare.Close()
	b.ResetTimer()
	slashd := throughput(b, e.URL+path, auth, b.N)
	base := throughput(b, bare.URL, auth, b.N)
	b.ReportMetric(slashd, "slashd-req/s")
	b.ReportMetric(base, "bare-req/s")
	b.ReportMetric(slashd/base, "ratio")
	b.ReportMetric(float64(len(body)), "bytes")
}

func getBody(b *testing.B, url, auth string) []byte {
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("Authorization", auth)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		b.Fatalf("GET %s: %d %s", url, resp.StatusCode, body)
	}
	return body
}

// throughput sends n GETs from four keep-alive clients and returns
// requests per second.
func throughput(b *testing.B, url, auth string, n int) float64 {
	const workers = 4
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: workers}}
	defer client.CloseIdleConnections()
	var left atomic.Int64
	left.Store(int64(n))
	var wg sync.WaitGroup
	var failed atomic.Value
	start := time.Now()
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for left.Add(-1) >= 0 {
				req, _ := http.NewRequest("GET", url, nil)
				req.Header.Set("Authorization", auth)
				resp, err := client.Do(req)
				if err != nil {
					failed.Store(err.Error())
					return
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 {
					failed.Store(fmt.Sprintf("status %d", resp.StatusCode))
					return
				}
			}
		}()
	}
	wg.Wait()
	if f := failed.Load(); f != nil {
		b.Fatalf("GET %s: %v", url, f)
	}
	return float64(n) / time.Since(start).Seconds()
}

// BenchmarkRatioWrite: PUT a bulk overwrite of 100 guild commands (every
// one changed each time) to slashd beside its honest floor (overwriteFloor:
// a bare handler on the same loopback that decodes the same body, writes
// the same 100 rows into slashd's schema in one transaction and answers
// the same bytes). One client sends both the same bodies, alternating
// slashd and floor request by request, so that the load of a shared
// machine falls on both alike.
func BenchmarkRatioWrite(b *testing.B) {
	e := testenv.New(b)
	path := guildCommandsPath(e.App)
	bodies := [][]byte{benchCommands(100, "v1"), benchCommands(100, "v2")}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
	defer client.CloseIdleConnections()
	auth := e.Bot()
	_, _ = putTimed(b, client, e.URL+path, auth, bodies[0])
	_, answer := putTimed(b, client, e.URL+path, auth, bodies[1])
	floor := overwriteFloor(b, answer)

	b.ResetTimer()
	slashd := make([]time.Duration, 0, b.N)
	base := make([]time.Duration, 0, b.N)
	for i := range b.N {
		body := bodies[i%2]
		d, _ := putTimed(b, client, e.URL+path, auth, body)
		slashd = append(slashd, d)
		d, _ = putTimed(b, client, floor.URL, auth, body)
		base = append(base, d)
	}
	b.StopTimer()
	floor.check(b, 100)
	reportLatency(b, "slashd", slashd)
	reportLatency(b, "raw", base) // "raw": the name tools/perfbench reads
	b.ReportMetric(float64(median(slashd))/float64(median(base)), "ratio-p50")
	b.ReportMetric(float64(mean(slashd))/float64(mean(base)), "ratio-mean")
}

// putTimed PUTs body and returns how long the answer took to arrive in
// full, and the answer; any status but 200 fails the benchmark.
func putTimed(b *testing.B, client *http.Client, url, auth string, body []byte) (time.Duration, []byte) {
	return doTimed(b, client, "PUT", url, auth, body)
}

// doTimed sends a JSON request (with auth, if any) and returns how long
// the answer took to arrive in full, and the answer; any status but 200
// fails the benchmark.
func doTimed(b *testing.B, client *http.Client, method, url, auth string, body []byte) (time.Duration, []byte) {
	req, err := http.NewRequest(method, url, bytes.NewReader(body))
	if err != nil {
		b.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	out, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	d := time.Since(start)
	if err != nil || resp.StatusCode != 200 {
		b.Fatalf("%s %s: %d %s (%v)", method, url, resp.StatusCode, out, err)
	}
	return d, out
}

// floorCommand is a slash command as the floor decodes and stores it:
// the fields of the benchmark's commands, typed, plus what the server
// assigns.
type floorCommand struct {
	ID                int64             `json:"id,string"`
	ApplicationID     int64             `json:"application_id,string"`
	GuildID           int64             `json:"guild_id,string"`
	Version           int64             `json:"version,string"`
	Type              int               `json:"type"`
	Name              string            `json:"name"`
	NameLocalizations map[string]string `json:"name_localizations,omitempty"`
	Description       string            `json:"description"`
	Options           []floorOption     `json:"options,omitempty"`
}

type floorOption struct {
	Type        int           `json:"type"`
	Name        string        `json:"name"`
	Description string        `json:"description"`
	Required    bool          `json:"required,omitempty"`
	Choices     []floorChoice `json:"choices,omitempty"`
	MinValue    *float64      `json:"min_value,omitempty"`
	MaxValue    *float64      `json:"max_value,omitempty"`
}

type floorChoice struct {
	Name  string          `json:"name"`
	Value json.RawMessage `json:"value"`
}

// writeFloor is the floor of a bulk overwrite, serving on loopback.
type writeFloor struct {
	*httptest.Server
	db *sql.DB
}

const (
	floorApp   = 1
	floorGuild = 2
)

// overwriteFloor serves the least work a bulk overwrite can be, to
// measure slashd's against: decode the body with encoding/json into a
// typed slice, and in one transaction on a store of slashd's schema
// (same driver and pragmas) delete the scope's rows and insert the new
// ones with one INSERT prepared once for the server's life, each row's
// body the command encoded with its id; then answer answer, the bytes
// slashd answered. No authentication, no validation, no diff, no
// events: what is left is the HTTP exchange, the decoding, 100 encoded
// rows and one durable commit. The statements use SQLite's positional
// "?" (slashd's "$n", kept for PostgreSQL, costs the driver a parameter
// name lookup per argument).
func overwriteFloor(b *testing.B, answer []byte) *writeFloor {
	b.Helper()
	ctx := context.Background()
	st, err := sqlite.OpenFromTemplate(ctx, filepath.Join(b.TempDir(), "floor.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	db := st.DB()
	del, err := db.PrepareContext(ctx, `DELETE FROM commands WHERE application_id = ? AND guild_id = ?`)
	if err != nil {
		b.Fatal(err)
	}
	ins, err := db.PrepareContext(ctx, `INSERT INTO commands (id, application_id, guild_id, type, name, version, body)
		VALUES (?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { del.Close(); ins.Close() })
	var lastID atomic.Int64
	f := &writeFloor{db: db}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var cmds []floorCommand
		if err := json.NewDecoder(r.Body).Decode(&cmds); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		if err := floorWrite(r.Context(), db, del, ins, cmds, &lastID); err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(answer)
	}))
	b.Cleanup(f.Close)
	return f
}

// floorWrite is the floor's one transaction. The statements are prepared
// on the pool; Tx.StmtContext reuses a statement already prepared on the
// transaction's connection, so nothing is prepared again.
func floorWrite(ctx context.Context, db *sql.DB, del, ins *sql.Stmt, cmds []floorCommand, lastID *atomic.Int64) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.StmtContext(ctx, del).ExecContext(ctx, floorApp, floorGuild); err != nil {
		return fmt.Errorf("delete the scope's commands: %w", err)
	}
	insert := tx.StmtContext(ctx, ins)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	for i := range cmds {
		c := &cmds[i]
		id := lastID.Add(1)
		c.ID, c.ApplicationID, c.GuildID, c.Version = id, floorApp, floorGuild, id
		if c.Type == 0 {
			c.Type = 1
		}
		buf.Reset()
		if err := enc.Encode(c); err != nil {
			return err
		}
		body := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
		if _, err := insert.ExecContext(ctx, id, floorApp, floorGuild, c.Type, c.Name, id, string(body)); err != nil {
			return fmt.Errorf("insert command %s: %w", c.Name, err)
		}
	}
	return tx.Commit()
}

// check fails the benchmark unless the floor's scope holds n commands,
// each with a body that decodes: the floor did what it claims.
func (f *writeFloor) check(b *testing.B, n int) {
	b.Helper()
	rows, err := f.db.Query(`SELECT name, body FROM commands WHERE application_id = $1 AND guild_id = $2`, floorApp, floorGuild)
	if err != nil {
		b.Fatal(err)
	}
	defer rows.Close()
	got := 0
	for rows.Next() {
		var name, body string
		var c floorCommand
		if err := rows.Scan(&name, &body); err != nil {
			b.Fatal(err)
		}
		if err := json.Unmarshal([]byte(body), &c); err != nil || c.Name != name || len(c.Options) != 2 {
			b.Fatalf("the floor stored %s as %s (%v)", name, body, err)
		}
		got++
	}
	if err := rows.Err(); err != nil || got != n {
		b.Fatalf("the floor holds %d commands (%v), want %d", got, err, n)
	}
}

// BenchmarkRatioInvoke: a member invokes a command; slashd delivers the
// signed interaction to the app on loopback, which answers inline, and
// stores the reply. Beside it, its floor (invokeFloor: the same path
// with only the work no design can leave out), two loopback hops (a
// client POSTs to a server that POSTs the body on to another and relays
// its answer) and one bare loopback POST. The four take turns in blocks
// of invokeBlock requests, each over its own keep-alive connection, so
// that the load of a shared machine falls on all alike: measured one after
// the other, the floor's p50 alone moved by a third from run to run on
// the 2-core machine. Blocks, not single requests: what a server does
// after it has answered (its event subscribers, its garbage) must slow
// its own next request, not the next side's; alternated request by
// request, the floor measured 5–10% slower after slashd's requests than
// after the bare hop's.
func BenchmarkRatioInvoke(b *testing.B) {
	e := testenv.New(b)
	w, body := echoInvocation(b, e)
	invokeURL := e.URL + "/api/v10/interactions"

	answer := []byte(`{"type":4,"data":{"content":"hello"}}`)
	far := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(answer)
	}))
	defer far.Close()
	hop := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
	near := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		in, _ := io.ReadAll(r.Body)
		resp, err := hop.Post(far.URL, "application/json", bytes.NewReader(in))
		if err != nil {
			http.Error(w, err.Error(), 502)
			return
		}
		out, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(out)
	}))
	defer near.Close()

	// One invocation first: the floor delivers the payload slashd did.
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
	defer client.CloseIdleConnections()
	postTimed(b, client, invokeURL, w.client, body)
	floorURL := invokeFloor(b, w.last().Raw, answer)

	sides := []struct{ name, url, auth string }{
		{"slashd", invokeURL, w.client},
		{"floor", floorURL, ""},
		{"twohop", near.URL, ""},
		{"onehop", far.URL, ""},
	}
	lat := make([][]time.Duration, len(sides))
	for j := range lat {
		lat[j] = make([]time.Duration, 0, b.N)
	}
	b.ResetTimer()
	for done := 0; done < b.N; done += invokeBlock {
		n := min(invokeBlock, b.N-done)
		for j, s := range sides {
			for range n {
				lat[j] = append(lat[j], postTimed(b, client, s.url, s.auth, body))
			}
		}
	}
	b.StopTimer()
	for j, s := range sides {
		reportLatency(b, s.name, lat[j])
	}
	slashd, floor, two, one := lat[0], lat[1], lat[2], lat[3]
	b.ReportMetric(float64(median(slashd))/float64(median(two)), "ratio-twohop")
	b.ReportMetric(float64(median(slashd))/float64(median(one)), "ratio-onehop")
	b.ReportMetric(float64(median(slashd))/float64(median(floor)), "ratio-floor")
	b.ReportMetric(float64(median(floor))/float64(median(one)), "floor-onehop")
}

// invokeBlock is how many requests each side of BenchmarkRatioInvoke
// sends in a row.
const invokeBlock = 50

// invokeFloor serves the least work an invocation can be on this path, to
// measure slashd's invocations against: decode the client's body, sign
// payload (the bytes slashd delivered) with Ed25519, POST it to an app
// built on the same SDK handler as slashd's (which verifies, decodes and
// answers), decode the answer, store the delivered interaction (what
// its follow-ups need: ids, token hash, time) and the answer as two rows
// in one SQLite transaction (same driver and settings as slashd's store,
// prepared statements) and relay it.
// No authentication, no checks, no permissions, no log: what is left is
// the two hops, the signature, the app and one durable commit.
func invokeFloor(b *testing.B, payload, answer []byte) string {
	b.Helper()
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		b.Fatal(err)
	}
	var mu sync.Mutex
	var got []*interactions.Interaction // as the app beside slashd keeps them
	app := httptest.NewServer(interactions.Handler(hex.EncodeToString(pub),
		func(_ context.Context, i *interactions.Interaction) (interactions.Response, error) {
			mu.Lock()
			got = append(got, i)
			mu.Unlock()
			opt, _ := i.Data.Option("text")
			s, _ := opt.String()
			return interactions.Message(s), nil
		}))
	b.Cleanup(app.Close)

	raw, err := sqlite.OpenFromTemplate(context.Background(), filepath.Join(b.TempDir(), "floor.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { raw.Close() })
	db := raw.DB()
	rec := newFloorRecorder(b, db)
	var sent deliveredInteraction
	if err := json.Unmarshal(payload, &sent); err != nil {
		b.Fatal(err)
	}
	var next atomic.Int64
	hop := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
	b.Cleanup(hop.CloseIdleConnections)
	floor := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var in struct {
			Type int             `json:"type"`
			Data json.RawMessage `json:"data"`
		}
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		ts := strconv.FormatInt(time.Now().Unix(), 10)
		sig := ed25519.Sign(priv, append([]byte(ts), payload...))
		req, _ := http.NewRequestWithContext(r.Context(), "POST", app.URL, bytes.NewReader(payload))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set(interactions.HeaderSignature, hex.EncodeToString(sig))
		req.Header.Set(interactions.HeaderTimestamp, ts)
		resp, err := hop.Do(req)
		if err != nil {
			http.Error(w, err.Error(), 502)
			return
		}
		out, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var ans struct {
			Type int             `json:"type"`
			Data json.RawMessage `json:"data"`
		}
		if err := json.Unmarshal(out, &ans); err != nil || resp.StatusCode != 200 {
			http.Error(w, fmt.Sprintf("app: %d %s", resp.StatusCode, out), 502)
			return
		}
		if err := rec.record(r.Context(), next.Add(1), sent, ans.Data); err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(out)
	}))
	b.Cleanup(floor.Close)
	// The floor must do what it claims: one answer served and stored.
	resp, err := http.Post(floor.URL, "application/json", strings.NewReader(`{"type":2,"data":{}}`))
	if err != nil {
		b.Fatal(err)
	}
	relayed, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var stored string
	if err := db.QueryRow(`SELECT body FROM answers`).Scan(&stored); err != nil ||
		resp.StatusCode != 200 || !strings.Contains(stored, `"content":"hello"`) {
		b.Fatalf("the floor answered %d %s and stored %q (%v), want the content of %s", resp.StatusCode, relayed, stored, err, answer)
	}
	var kept int
	if err := db.QueryRow(`SELECT count(*) FROM delivered WHERE length(token_hash) = 32`).Scan(&kept); err != nil || kept != 1 {
		b.Fatalf("the floor kept %d delivered interactions (%v), want 1", kept, err)
	}
	for _, table := range []string{"answers", "delivered"} {
		if _, err := db.Exec(`DELETE FROM ` + table); err != nil {
			b.Fatal(err)
		}
	}
	return floor.URL
}

// deliveredInteraction is what the floor keeps of the interaction it
// delivered: enough to accept its follow-ups by token.
type deliveredInteraction struct {
	ApplicationID string `json:"application_id"`
	ChannelID     string `json:"channel_id"`
	Token         string `json:"token"`
}

// floorRecorder is the floor's one transaction: the interaction it
// delivered (its token must outlive a restart: follow-ups use it for 15
// minutes, as on slashd) and the answer, two rows in one commit, with
// statements prepared once as a competent server would.
type floorRecorder struct {
	db                *sql.DB
	delivered, answer *sql.Stmt
}

func newFloorRecorder(b *testing.B, db *sql.DB) *floorRecorder {
	b.Helper()
	for _, ddl := range []string{
		`CREATE TABLE answers (id INTEGER PRIMARY KEY, body TEXT NOT NULL)`,
		`CREATE TABLE delivered (id INTEGER PRIMARY KEY, application_id INTEGER NOT NULL,
			channel_id INTEGER NOT NULL, token_hash BLOB NOT NULL, created_at INTEGER NOT NULL)`,
	} {
		if _, err := db.Exec(ddl); err != nil {
			b.Fatal(err)
		}
	}
	delivered, err := db.Prepare(`INSERT INTO delivered (id, application_id, channel_id, token_hash, created_at) VALUES ($1, $2, $3, $4, $5)`)
	if err != nil {
		b.Fatal(err)
	}
	answer, err := db.Prepare(`INSERT INTO answers (id, body) VALUES ($1, $2)`)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { delivered.Close(); answer.Close() })
	return &floorRecorder{db: db, delivered: delivered, answer: answer}
}

func (f *floorRecorder) record(ctx context.Context, id int64, in deliveredInteraction, data []byte) error {
	tx, err := f.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	tokenHash := sha256.Sum256([]byte(in.Token))
	if _, err := tx.StmtContext(ctx, f.delivered).ExecContext(ctx, id, in.ApplicationID, in.ChannelID, tokenHash[:], time.Now().UnixMilli()); err != nil {
		return err
	}
	if _, err := tx.StmtContext(ctx, f.answer).ExecContext(ctx, id, string(data)); err != nil {
		return err
	}
	return tx.Commit()
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

func mean(d []time.Duration) time.Duration {
	var sum time.Duration
	for _, x := range d {
		sum += x
	}
	return sum / time.Duration(len(d))
}

func reportLatency(b *testing.B, name string, d []time.Duration) {
	b.ReportMetric(float64(median(d).Microseconds()), name+"-p50-µs")
	b.ReportMetric(float64(mean(d).Microseconds()), name+"-mean-µs")
}

func mustJSON(b *testing.B, v any) []byte {
	out, err := json.Marshal(v)
	if err != nil {
		b.Fatal(err)
	}
	return out
}
