// Command gwbench measures the gateway with many idle sessions: the
// memory each costs the server, and how long one event takes to reach
// all of them. The server (an in-process slashd on a temporary SQLite
// store) and the clients run in two processes, since each side needs a
// file descriptor per connection.
//
//	go run ./tools/gwbench -sessions 10000 -events 5
//
// It prints the server's memory (heap and goroutine stacks) and
// goroutines per session, and for each event the time until the first,
// the median and the last session had it. -bare measures a bare
// coder/websocket server with the same client instead (the baseline);
// -compress zlib-stream or zstd-stream has the clients ask for transport
// compression, -intents 1 for GUILD_CREATEs.
package main

import (
	"bufio"
	"compress/zlib"
	"context"
	"crypto/rand"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
	"github.com/klauspost/compress/zstd"

	"github.com/slashd/slashd/internal/api"
	"github.com/slashd/slashd/internal/bootstrap"
	"github.com/slashd/slashd/internal/event"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store/sqlite"
)

func main() {
	sessions := flag.Int("sessions", 10000, "idle sessions to open")
	events := flag.Int("events", 5, "events to dispatch to all sessions")
	client := flag.String("client", "", "internal: run as the client process against this ws URL")
	token := flag.String("token", "", "internal: the bot token")
	memprofile := flag.String("memprofile", "", "write the server's heap profile with the sessions open to this file")
	intents := flag.Int("intents", 0, "the intents the clients identify with (1: GUILDS, which adds a GUILD_CREATE per guild, kept for resume)")
	compress := flag.String("compress", "", "transport compression the clients ask for: zlib-stream or zstd-stream (not with -bare)")
	bare := flag.Bool("bare", false, "measure a bare coder/websocket server (hello, READY, heartbeat ACKs) with the same client instead of slashd: the baseline")
	flag.Parse()
	heapProfile = *memprofile
	if heapProfile != "" {
		runtime.MemProfileRate = 1 // every allocation: a session's few small ones would be lost in sampling
	}
	if *client != "" {
		runClients(*client, *token, *compress, *intents, *sessions)
		return
	}
	switch *compress {
	case "", "zlib-stream", "zstd-stream":
	default:
		log.Fatalf("-compress %q: want zlib-stream or zstd-stream", *compress)
	}
	if *bare {
		if *compress != "" {
			log.Fatal("-bare does not compress")
		}
		if err := runBare(*sessions); err != nil {
			log.Fatal(err)
		}
		return
	}
	if err := runServer(*sessions, *events, *compress, *intents); err != nil {
		log.Fatal(err)
	}
}

// runServer starts slashd, starts the client process, and measures.
func runServer(n, events int, compress string, intents int) error {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "gwbench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	st, err := sqlite.Open(ctx, filepath.Join(dir, "slashd.db"))
	if err != nil {
		return err
	}
	defer st.Close()
	bus := event.NewMemory()
	ids := snowflake.NewGenerator(0, nil)
	cfg := api.DefaultConfig()
	cfg.RateLimit = false
	// Every session comes from this machine's one address: no cap
	// (the gateway's default allows 1000 per address).
	cfg.Gateway.MaxConnsPerAddress = -1
	handler := api.New(cfg, api.Deps{Store: st, IDs: ids, Now: time.Now, Rand: rand.Reader, Events: bus})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: handler}
	go srv.Serve(ln)
	defer srv.Close()
	creds, err := bootstrap.CreateApp(ctx, bootstrap.Env{Store: st, IDs: ids, Rand: rand.Reader, Now: time.Now},
		bootstrap.AppOptions{Name: "gwbench", BaseURL: "http://" + ln.Addr().String()})
	if err != nil {
		return err
	}
	appID, _ := snowflake.Parse(creds.ApplicationID)
	guildID, _ := snowflake.Parse(creds.GuildID)

	before := heap()
	goroutinesBefore := runtime.NumGoroutine()
	url := "ws://" + ln.Addr().String() + "/gateway?v=10&encoding=json"
	if compress != "" {
		url += "&compress=" + compress
	}
	cmd := exec.Command(os.Args[0], "-client", url, "-token", creds.BotToken, "-sessions", strconv.Itoa(n),
		"-compress", compress, "-intents", strconv.Itoa(intents))
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return err
	}
	lines := bufio.NewScanner(out)
	if !lines.Scan() || lines.Text() != "ready" {
		return fmt.Errorf("client process: %q %v", lines.Text(), lines.Err())
	}
	fmt.Printf("%d sessions identified in %s\n", n, time.Since(start).Round(time.Millisecond))
	time.Sleep(time.Second) // let buffers settle
	after := heap()
	if heapProfile != "" {
		if err := writeHeapProfile(heapProfile); err != nil {
			return err
		}
	}
	perSession("server", before, after, n)
	fmt.Printf("server goroutines: %d per session\n", (runtime.NumGoroutine()-goroutinesBefore)/max(n, 1))

	for i := 0; i < events; i++ {
		sent := time.Now()
		bus.Publish(ctx, event.Event{Type: event.InteractionCreate, ApplicationID: appID, GuildID: guildID,
			Data: map[string]any{"sent": sent.UnixNano(), "i": i}})
		if !lines.Scan() {
			return fmt.Errorf("client process ended: %v", lines.Err())
		}
		fmt.Printf("event %d: %s\n", i, lines.Text())
	}
	in.Close()
	return cmd.Wait()
}

// heapProfile is where -memprofile writes.
var heapProfile string

func writeHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return pprof.WriteHeapProfile(f)
}

// memUse is the heap and the goroutine stacks in use, after a GC.
type memUse struct{ heap, stacks uint64 }

func heap() memUse {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return memUse{heap: m.HeapInuse, stacks: m.StackInuse}
}

func (m memUse) total() uint64 { return m.heap + m.stacks }

// perSession prints the memory the n sessions added (heap and stacks
// together, then each).
func perSession(who string, before, after memUse, n int) {
	per := func(a, b uint64) float64 { return (float64(b) - float64(a)) / 1024 / float64(max(n, 1)) }
	fmt.Printf("%s heap in use: %.1f MiB before, %.1f MiB with the sessions: %.1f KiB per session (heap %.1f KiB, stacks %.1f KiB)\n",
		who, mib(before.total()), mib(after.total()), per(before.total(), after.total()),
		per(before.heap, after.heap), per(before.stacks, after.stacks))
}

func mib(b uint64) float64 { return float64(b) / (1 << 20) }

// runClients opens n sessions, prints "ready", then for each event all
// sessions receive prints the latency spread, until stdin closes.
func runClients(url, token, compress string, intents, n int) {
	ctx := context.Background()
	type arrival struct{ at, sent int64 }
	arrivals := make(chan arrival, n)
	var ready sync.WaitGroup
	var failed atomic.Int32
	sem := make(chan struct{}, 64) // dial concurrency
	for i := 0; i < n; i++ {
		ready.Add(1)
		go func() {
			sem <- struct{}{}
			c, err := connect(ctx, url, token, compress, intents)
			<-sem
			ready.Done()
			if err != nil {
				if failed.Add(1) == 1 {
					log.Printf("session: %v", err)
				}
				return
			}
			for {
				msg, err := c.next()
				if err != nil {
					return
				}
				if !strings.Contains(string(msg), `"t":"INTERACTION_CREATE"`) {
					continue // heartbeat ACKs
				}
				var f struct {
					D struct {
						Sent int64 `json:"sent"`
					} `json:"d"`
				}
				_ = json.Unmarshal(msg, &f)
				arrivals <- arrival{at: time.Now().UnixNano(), sent: f.D.Sent}
			}
		}()
	}
	ready.Wait()
	if f := failed.Load(); f > 0 {
		log.Fatalf("%d sessions failed", f)
	}
	fmt.Println("ready")
	go func() { // end when the server closes stdin
		_, _ = bufio.NewReader(os.Stdin).ReadByte()
		os.Exit(0)
	}()
	for {
		lat := make([]time.Duration, 0, n)
		for len(lat) < n {
			a := <-arrivals
			lat = append(lat, time.Duration(a.at-a.sent))
		}
		slices.Sort(lat)
		fmt.Printf("first %s, median %s, p99 %s, last %s (all %d sessions)\n", lat[0].Round(time.Microsecond),
			lat[len(lat)/2].Round(time.Microsecond), lat[len(lat)*99/100].Round(time.Microsecond),
			lat[len(lat)-1].Round(time.Microsecond), n)
	}
}

// gwConn is a client's connection: next returns its payloads, inflated
// when the stream is compressed.
type gwConn struct {
	ws   *websocket.Conn
	next func() ([]byte, error)
}

// newGWConn reads ws's messages, through one inflater for the whole
// connection when compress names a stream (as the libraries do).
func newGWConn(ctx context.Context, ws *websocket.Conn, compress string) *gwConn {
	if compress == "" {
		return &gwConn{ws: ws, next: func() ([]byte, error) {
			_, msg, err := ws.Read(ctx)
			return msg, err
		}}
	}
	pr, pw := io.Pipe()
	go func() {
		for {
			_, msg, err := ws.Read(ctx)
			if err != nil {
				pw.CloseWithError(err)
				return
			}
			if _, err := pw.Write(msg); err != nil {
				return
			}
		}
	}()
	var dec *json.Decoder
	return &gwConn{ws: ws, next: func() ([]byte, error) {
		if dec == nil { // the inflaters read the stream's header at once
			var r io.Reader
			var err error
			if compress == "zlib-stream" {
				r, err = zlib.NewReader(pr)
			} else {
				r, err = zstd.NewReader(pr, zstd.WithDecoderConcurrency(1))
			}
			if err != nil {
				return nil, err
			}
			dec = json.NewDecoder(r)
		}
		var msg json.RawMessage
		err := dec.Decode(&msg)
		return msg, err
	}}
}

// connect identifies one session and waits for READY; a goroutine keeps
// it alive with heartbeats.
func connect(ctx context.Context, url, token, compress string, intents int) (*gwConn, error) {
	ws, _, err := websocket.Dial(ctx, url, nil)
	if err != nil {
		return nil, err
	}
	c := newGWConn(ctx, ws, compress)
	hello, err := c.next()
	if err != nil {
		return nil, err
	}
	var h struct {
		D struct {
			Interval int `json:"heartbeat_interval"`
		} `json:"d"`
	}
	_ = json.Unmarshal(hello, &h)
	identify := `{"op":2,"d":{"token":"` + token + `","intents":` + strconv.Itoa(intents) + `,"properties":{"os":"linux","browser":"gwbench","device":"gwbench"}}}`
	if err := ws.Write(ctx, websocket.MessageText, []byte(identify)); err != nil {
		return nil, err
	}
	if msg, err := c.next(); err != nil || !strings.Contains(string(msg), `"READY"`) {
		return nil, fmt.Errorf("no READY: %s %v", msg, err)
	}
	go func() {
		t := time.NewTicker(time.Duration(h.D.Interval) * time.Millisecond)
		defer t.Stop()
		for range t.C {
			if ws.Write(ctx, websocket.MessageText, []byte(`{"op":1,"d":null}`)) != nil {
				return
			}
		}
	}()
	return c, nil
}

// runBare serves the client process from a bare coder/websocket server
// that speaks just enough of the protocol (hello, READY after identify,
// an ACK per heartbeat) and reports its memory per session as runServer
// does: the baseline for slashd's gateway.
func runBare(n int) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	hello := []byte(`{"op":10,"d":{"heartbeat_interval":41250}}`)
	ready := []byte(`{"op":0,"t":"READY","s":1,"d":{"v":10}}`)
	ack := []byte(`{"op":11}`)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		ctx := r.Context()
		if c.Write(ctx, websocket.MessageText, hello) != nil {
			return
		}
		if _, _, err := c.Read(ctx); err != nil {
			return
		}
		if c.Write(ctx, websocket.MessageText, ready) != nil {
			return
		}
		for {
			if _, _, err := c.Read(ctx); err != nil {
				return
			}
			if c.Write(ctx, websocket.MessageText, ack) != nil {
				return
			}
		}
	})}
	go srv.Serve(ln)
	defer srv.Close()
	before := heap()
	cmd := exec.Command(os.Args[0], "-client", "ws://"+ln.Addr().String()+"/", "-token", "x", "-sessions", strconv.Itoa(n))
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	lines := bufio.NewScanner(out)
	if !lines.Scan() || lines.Text() != "ready" {
		return fmt.Errorf("client process: %q %v", lines.Text(), lines.Err())
	}
	time.Sleep(time.Second) // let buffers settle, as runServer does
	after := heap()
	if heapProfile != "" {
		if err := writeHeapProfile(heapProfile); err != nil {
			return err
		}
	}
	perSession("bare server", before, after, n)
	in.Close()
	return cmd.Wait()
}
