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
//
// -event world (the default; needs -intents 1) makes each event a real
// world event: the server renames a channel of the bot's guild in the
// store and publishes the outbox at once, so the CHANNEL_UPDATE goes the
// whole way (outbox, render, bus, the gateway's world dispatch) to every
// session; its clock starts before the write. -event interaction
// publishes an INTERACTION_CREATE on the bus instead. With -bare and
// -events, the bare server writes one pre-rendered frame to every
// session per event, as fast as the sockets allow: the frame of -frame
// (a file; -capture FILE has a slashd run's clients keep the first one
// they got), its clock digits set to the time it starts.
package main

import (
	"bufio"
	"bytes"
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
	"syscall"
	"time"

	"github.com/coder/websocket"
	"github.com/klauspost/compress/zstd"

	"github.com/slashd/slashd/internal/api"
	"github.com/slashd/slashd/internal/bootstrap"
	"github.com/slashd/slashd/internal/event"
	"github.com/slashd/slashd/internal/guild"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store/sqlite"
)

func main() {
	sessions := flag.Int("sessions", 10000, "idle sessions to open")
	events := flag.Int("events", 5, "events to dispatch to all sessions")
	client := flag.String("client", "", "internal: run as the client process against this ws URL")
	token := flag.String("token", "", "internal: the bot token")
	memprofile := flag.String("memprofile", "", "write the server's heap profile with the sessions open to this file")
	paced := flag.Bool("paced", false, "before each event print \"next?\" and wait for a line on stdin (for tools/perfbench, which alternates two servers' events)")
	cpuprofile := flag.String("cpuprofile", "", "write the server's CPU profile of the events (not the connecting) to this file")
	intents := flag.Int("intents", 0, "the intents the clients identify with (1: GUILDS, which adds a GUILD_CREATE per guild, kept for resume)")
	compress := flag.String("compress", "", "transport compression the clients ask for: zlib-stream or zstd-stream (not with -bare)")
	bare := flag.Bool("bare", false, "measure a bare coder/websocket server (hello, READY, heartbeat ACKs) with the same client instead of slashd: the baseline")
	kind := flag.String("event", "world", "what each event is: world (a channel's rename, CHANNEL_UPDATE; needs -intents 1) or interaction (INTERACTION_CREATE on the bus)")
	capture := flag.String("capture", "", "write the first event frame the clients get to this file (for -bare -frame)")
	frame := flag.String("frame", "", "with -bare: the event frame to send (a -capture file); default a CHANNEL_UPDATE of slashd's shape")
	flag.Parse()
	heapProfile, cpuProfile = *memprofile, *cpuprofile
	if *paced {
		pace = bufio.NewReader(os.Stdin)
	}
	if heapProfile != "" {
		runtime.MemProfileRate = 1 // every allocation: a session's few small ones would be lost in sampling
	}
	if *client != "" {
		runClients(*client, *token, *compress, *capture, *intents, *sessions)
		return
	}
	switch *kind {
	case "world":
		if *intents&1 == 0 && !*bare && *events > 0 {
			log.Fatal("-event world needs -intents 1 (GUILDS): CHANNEL_UPDATE is a GUILDS dispatch")
		}
	case "interaction":
	default:
		log.Fatalf("-event %q: want world or interaction", *kind)
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
		tmpl := []byte(defaultFrame)
		if *frame != "" {
			var err error
			if tmpl, err = os.ReadFile(*frame); err != nil {
				log.Fatal(err)
			}
		}
		if err := runBare(*sessions, *events, tmpl); err != nil {
			log.Fatal(err)
		}
		return
	}
	if err := runServer(*sessions, *events, *kind, *compress, *capture, *intents); err != nil {
		log.Fatal(err)
	}
}

// runServer starts slashd, starts the client process, and measures.
func runServer(n, events int, kind, compress, capture string, intents int) error {
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
	// The channel the world events rename, made and published before
	// any session connects.
	channel := guild.Channel{ID: ids.Next(), GuildID: guildID, Type: guild.ChannelText, Name: stampName(0)}
	if err := st.CreateChannel(ctx, channel); err != nil {
		return err
	}
	handler.PublishWorldEvents(ctx)

	before := heap()
	goroutinesBefore := runtime.NumGoroutine()
	url := "ws://" + ln.Addr().String() + "/gateway?v=10&encoding=json"
	if compress != "" {
		url += "&compress=" + compress
	}
	cmd := exec.Command(os.Args[0], "-client", url, "-token", creds.BotToken, "-sessions", strconv.Itoa(n),
		"-compress", compress, "-intents", strconv.Itoa(intents), "-capture", capture)
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

	stop, err := profileEvents()
	if err != nil {
		return err
	}
	defer stop()
	cpu := serverCPU()
	for i := 0; i < events; i++ {
		if err := awaitTurn(); err != nil {
			return err
		}
		sent := time.Now()
		if kind == "world" {
			channel.Name = stampName(sent.UnixNano())
			if err := st.UpdateChannel(ctx, channel); err != nil {
				return err
			}
			handler.PublishWorldEvents(ctx)
		} else {
			bus.Publish(ctx, event.Event{Type: event.InteractionCreate, ApplicationID: appID, GuildID: guildID,
				Data: map[string]any{"sent": sent.UnixNano(), "i": i}})
		}
		if !lines.Scan() {
			return fmt.Errorf("client process ended: %v", lines.Err())
		}
		fmt.Printf("event %d: %s\n", i, lines.Text())
	}
	printCPUPerEvent(cpu, events)
	in.Close()
	return cmd.Wait()
}

// pace, with -paced, is where the go-ahead for each event comes from.
var pace *bufio.Reader

// awaitTurn waits for the go-ahead of the next event, with -paced.
func awaitTurn() error {
	if pace == nil {
		return nil
	}
	fmt.Println("next?")
	if _, err := pace.ReadString('\n'); err != nil {
		return fmt.Errorf("-paced: %w", err)
	}
	return nil
}

// serverCPU is the CPU time this process has used (user and system).
func serverCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// printCPUPerEvent prints the server's CPU per event since start: on a
// shared machine a steadier figure than the time to the last session.
func printCPUPerEvent(start time.Duration, events int) {
	if events > 0 {
		fmt.Printf("server CPU per event: %.1f ms\n", float64(serverCPU()-start)/float64(events)/1e6)
	}
}

// heapProfile and cpuProfile are where -memprofile and -cpuprofile
// write.
var heapProfile, cpuProfile string

// profileEvents starts the CPU profile, if asked for, and returns its
// stop.
func profileEvents() (func(), error) {
	if cpuProfile == "" {
		return func() {}, nil
	}
	f, err := os.Create(cpuProfile)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}

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
func runClients(url, token, compress, capture string, intents, n int) {
	ctx := context.Background()
	type arrival struct{ at, sent int64 }
	arrivals := make(chan arrival, n)
	var ready sync.WaitGroup
	var failed atomic.Int32
	var captured sync.Once
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
				sent, ok := sentAt(msg)
				if !ok {
					continue // heartbeat ACKs, GUILD_CREATEs
				}
				at := time.Now().UnixNano()
				if capture != "" {
					captured.Do(func() {
						if err := os.WriteFile(capture, msg, 0o644); err != nil {
							log.Printf("capture: %v", err)
						}
					})
				}
				arrivals <- arrival{at: at, sent: sent}
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

// stampPrefix marks the clock in a world event's channel name: the
// nanoseconds (19 digits) at which the server began the event.
const stampPrefix = "fanout-"

func stampName(ns int64) string { return fmt.Sprintf("%s%019d", stampPrefix, ns) }

// defaultFrame is the bare server's event frame without -frame: a
// CHANNEL_UPDATE of the shape slashd sends.
const defaultFrame = `{"t":"CHANNEL_UPDATE","s":3,"op":0,"d":{"id":"1317123456789012480","type":0,"guild_id":"1317123456789012479",` +
	`"position":0,"permission_overwrites":[],"name":"fanout-0000000000000000000","nsfw":false,"parent_id":null,"flags":0}}`

// sentAt returns when the server began the event msg is: a
// CHANNEL_UPDATE's stamped name, an INTERACTION_CREATE's "sent".
func sentAt(msg []byte) (int64, bool) {
	switch {
	case bytes.Contains(msg, []byte(`"t":"CHANNEL_UPDATE"`)):
		i := bytes.Index(msg, []byte(stampPrefix))
		if i < 0 || len(msg) < i+len(stampPrefix)+19 {
			return 0, false
		}
		ns, err := strconv.ParseInt(string(msg[i+len(stampPrefix):i+len(stampPrefix)+19]), 10, 64)
		return ns, err == nil
	case bytes.Contains(msg, []byte(`"t":"INTERACTION_CREATE"`)):
		var f struct {
			D struct {
				Sent int64 `json:"sent"`
			} `json:"d"`
		}
		err := json.Unmarshal(msg, &f)
		return f.D.Sent, err == nil
	}
	return 0, false
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
// does: the baseline for slashd's gateway. Each event is frame, its
// clock digits set when the event starts, written to every session by
// one writer per CPU, each over its share of the connections.
func runBare(n, events int, frame []byte) error {
	stamp := bytes.Index(frame, []byte(stampPrefix))
	if stamp < 0 || len(frame) < stamp+len(stampPrefix)+19 {
		return fmt.Errorf("-frame: no %s clock in %s", stampPrefix, frame)
	}
	stamp += len(stampPrefix)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	hello := []byte(`{"op":10,"d":{"heartbeat_interval":41250}}`)
	ready := []byte(`{"op":0,"t":"READY","s":1,"d":{"v":10}}`)
	ack := []byte(`{"op":11}`)
	var mu sync.Mutex
	var conns []*websocket.Conn
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
		mu.Lock()
		conns = append(conns, c)
		mu.Unlock()
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
	mu.Lock()
	all := slices.Clone(conns)
	mu.Unlock()
	stop, err := profileEvents()
	if err != nil {
		return err
	}
	defer stop()
	cpu := serverCPU()
	for i := 0; i < events; i++ {
		if err := awaitTurn(); err != nil {
			return err
		}
		msg := slices.Clone(frame)
		copy(msg[stamp:], fmt.Sprintf("%019d", time.Now().UnixNano()))
		broadcast(all, msg)
		if !lines.Scan() {
			return fmt.Errorf("client process ended: %v", lines.Err())
		}
		fmt.Printf("event %d: %s\n", i, lines.Text())
	}
	printCPUPerEvent(cpu, events)
	in.Close()
	return cmd.Wait()
}

// broadcast writes msg to every connection, one writer per CPU.
func broadcast(conns []*websocket.Conn, msg []byte) {
	ctx := context.Background()
	workers := runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(conns); i += workers {
				_ = conns[i].Write(ctx, websocket.MessageText, msg)
			}
		}()
	}
	wg.Wait()
}
