// Command perfbench runs the benchmarks of issues 15 and 28, each beside
// the baseline it is measured against in the same run, and prints a table
// of ratios (with the goal, where the issue sets one):
//
//	go run ./tools/perfbench [-n 2000] [-sessions 2000] [-only identify,fanout]
//
//	  - read: GET a guild's 25 commands vs a bare net/http handler serving
//	    the same bytes (BenchmarkRatioRead, requests per second);
//	  - write: PUT bulk overwrite of 100 commands vs its honest floor: a bare
//	    net/http handler on the same loopback that decodes the same body,
//	    writes the same 100 rows with one prepared INSERT into slashd's
//	    schema in one transaction (same driver and pragmas) and answers the
//	    same bytes, sent by the same client (BenchmarkRatioWrite, p50);
//	  - invoke: invoke → signed delivery → inline answer → stored message vs
//	    two loopback hops and one, and vs its floor: the same hops with only
//	    the work no design can leave out (an Ed25519 signature, the same SDK
//	    app verifying and decoding, one SQLite commit) (BenchmarkRatioInvoke,
//	    p50, the four taking turns in blocks of 50 requests);
//	  - members: invoke in a guild of 100,000 members vs the same in a
//	    guild of 10, same store and server, alternating (BenchmarkRatioMembers,
//	    p50; it should stay flat);
//	  - channels: the same in a guild of 500 channels (two permission
//	    overwrites each) and 250 roles vs a guild of one channel
//	    (BenchmarkRatioChannels, p50; it should stay flat);
//	  - gateway: heap per idle session vs a bare coder/websocket server with
//	    the same client (tools/gwbench and gwbench -bare);
//	  - identify: IDENTIFY to the last GUILD_CREATE of shard 3 of 8 of a bot
//	    in 10,000 guilds vs the same 1,250 guilds for a bot in only those
//	    (goal ≤ 1.3), and vs a bare coder/websocket server sending the
//	    frames slashd sent in the same run, byte for byte, read by the same
//	    client (goal ≤ 5) (BenchmarkIdentifyShard, p50, the three
//	    alternating);
//	  - fanout: one world event (a channel's rename, through the outbox to
//	    a CHANNEL_UPDATE) until the last of -fanout-sessions sessions has
//	    it vs a bare coder/websocket server writing the same frame to all
//	    of them, same client (gwbench -event world and gwbench -bare
//	    -frame, running side by side, their events alternating; p50 over
//	    the events; goal ≤ 1.5), and each server's CPU per event;
//	  - worlds: POST /admin/v1/worlds and a world's reset vs the same rows
//	    written by one transaction of plain prepared statements
//	    (BenchmarkWorlds, p50).
//
// -only runs the named rows alone (comma-separated); the default is all.
// Run it from the repository's root.
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// rows are the table's rows, in the order they print.
var rows = []string{"read", "write", "invoke", "members", "channels", "gateway", "identify", "fanout", "worlds"}

// options are the command's flags.
type options struct {
	n, sessions               int
	identifyN, fanoutSessions int
	fanoutEvents, worldsN     int
}

func main() {
	var o options
	flag.IntVar(&o.n, "n", 2000, "iterations of each HTTP benchmark (and of its baseline)")
	flag.IntVar(&o.sessions, "sessions", 2000, "idle gateway sessions (the gateway row)")
	flag.IntVar(&o.identifyN, "identify-n", 20, "identifies of each kind (the identify row)")
	flag.IntVar(&o.fanoutSessions, "fanout-sessions", 10000, "sessions an event fans out to (the fanout row)")
	flag.IntVar(&o.fanoutEvents, "fanout-events", 10, "events of each server, alternating (the fanout row)")
	flag.IntVar(&o.worldsN, "worlds-n", 100, "iterations of each worlds benchmark")
	only := flag.String("only", strings.Join(rows, ","), "the rows to run, comma-separated: "+strings.Join(rows, ","))
	flag.Parse()

	want := map[string]bool{}
	for _, r := range strings.Split(*only, ",") {
		if !slices.Contains(rows, r) {
			log.Fatalf("-only: no row %q (rows: %s)", r, strings.Join(rows, ","))
		}
		want[r] = true
	}
	defer os.Remove(gwbenchPath())
	fmt.Printf("%-8s %-50s %-66s %s\n", "path", "slashd", "baseline (same run)", "ratio")
	if want["read"] || want["write"] || want["invoke"] || want["members"] || want["channels"] {
		ratioRows(o, want)
	}
	if want["gateway"] {
		gatewayRow(o)
	}
	if want["identify"] {
		identifyRow(o)
	}
	if want["fanout"] {
		fanoutRow(o)
	}
	if want["worlds"] {
		worldsRows(o)
	}
}

// ratioRows runs the BenchmarkRatio* benchmarks of the rows wanted.
func ratioRows(o options, want map[string]bool) {
	var names []string
	for _, r := range []string{"read", "write", "invoke", "members", "channels"} {
		if want[r] {
			names = append(names, strings.ToUpper(r[:1])+r[1:])
		}
	}
	m := goBench("Ratio("+strings.Join(names, "|")+")$", o.n)
	if want["read"] {
		fmt.Printf("%-8s %-50s %-66s %.2f\n", "read",
			fmt.Sprintf("%.0f req/s (%.0f bytes)", m["RatioRead"]["slashd-req/s"], m["RatioRead"]["bytes"]),
			fmt.Sprintf("bare net/http: %.0f req/s", m["RatioRead"]["bare-req/s"]), m["RatioRead"]["ratio"])
	}
	if want["write"] {
		w := m["RatioWrite"]
		fmt.Printf("%-8s %-50s %-66s %.2f× (mean %.2f×; goal ≤ 2.2×)\n", "write",
			fmt.Sprintf("p50 %.0f µs, mean %.0f µs", w["slashd-p50-µs"], w["slashd-mean-µs"]),
			fmt.Sprintf("bare handler: decode + 100-row tx: p50 %.0f µs, mean %.0f µs", w["raw-p50-µs"], w["raw-mean-µs"]),
			w["ratio-p50"], w["ratio-mean"])
	}
	if want["invoke"] {
		v := m["RatioInvoke"]
		fmt.Printf("%-8s %-50s %-66s %.1f× two hops (%.1f× one)\n", "invoke",
			fmt.Sprintf("p50 %.0f µs, mean %.0f µs", v["slashd-p50-µs"], v["slashd-mean-µs"]),
			fmt.Sprintf("two hops p50 %.0f µs, one %.0f µs", v["twohop-p50-µs"], v["onehop-p50-µs"]),
			v["ratio-twohop"], v["ratio-onehop"])
		fmt.Printf("%-8s %-50s %-66s %.2f× (the floor is %.1f× one hop; goal ≤ 1.5×)\n", "",
			"", fmt.Sprintf("floor (sign, app, one commit) p50 %.0f µs", v["floor-p50-µs"]),
			v["ratio-floor"], v["floor-onehop"])
	}
	if want["members"] {
		g := m["RatioMembers"]
		fmt.Printf("%-8s %-50s %-66s %.2f× (mean %.2f×; goal ≤ 1.2×)\n", "members",
			fmt.Sprintf("100k-member guild: p50 %.0f µs, mean %.0f µs", g["big-p50-µs"], g["big-mean-µs"]),
			fmt.Sprintf("10-member guild: p50 %.0f µs, mean %.0f µs", g["small-p50-µs"], g["small-mean-µs"]),
			g["ratio-p50"], g["ratio-mean"])
	}
	if want["channels"] {
		g := m["RatioChannels"]
		fmt.Printf("%-8s %-50s %-66s %.2f× (mean %.2f×)\n", "channels",
			fmt.Sprintf("500 channels, 250 roles: p50 %.0f µs, mean %.0f µs", g["big-p50-µs"], g["big-mean-µs"]),
			fmt.Sprintf("1 channel: p50 %.0f µs, mean %.0f µs", g["small-p50-µs"], g["small-mean-µs"]),
			g["ratio-p50"], g["ratio-mean"])
	}
}

// gatewayRow compares the heap of idle sessions.
func gatewayRow(o options) {
	gwbench := buildGwbench()
	perSession := regexp.MustCompile(`([0-9.]+) KiB per session`)
	kib := func(args ...string) float64 {
		out, err := run(gwbench, append([]string{"-sessions", strconv.Itoa(o.sessions)}, args...)...)
		if err != nil {
			log.Fatalf("gwbench %v: %v\n%s", args, err, out)
		}
		sm := perSession.FindSubmatch(out)
		if sm == nil {
			log.Fatalf("gwbench %v: no figure in\n%s", args, out)
		}
		f, _ := strconv.ParseFloat(string(sm[1]), 64)
		return f
	}
	gw := kib("-events", "1", "-event", "interaction")
	bare := kib("-bare", "-events", "0")
	fmt.Printf("%-8s %-50s %-66s %.2f×\n", "gateway",
		fmt.Sprintf("%.1f KiB per idle session (%d)", gw, o.sessions),
		fmt.Sprintf("bare coder/websocket: %.1f KiB", bare), gw/bare)
}

// identifyRow runs BenchmarkIdentifyShard.
func identifyRow(o options) {
	m := goBench("IdentifyShard$", o.identifyN)["IdentifyShard"]
	fmt.Printf("%-8s %-50s %-66s %.2f× (min %.2f×; goal ≤ 1.3×)\n", "identify",
		fmt.Sprintf("shard 3/8 of 10k guilds: p50 %.1f ms (min %.1f)", m["many-p50-ms"], m["many-min-ms"]),
		fmt.Sprintf("the shard's %.0f guilds alone: p50 %.1f ms (min %.1f)", m["shard-guilds"], m["few-p50-ms"], m["few-min-ms"]),
		m["ratio-p50"], m["ratio-min"])
	fmt.Printf("%-8s %-50s %-66s %.2f× (min %.2f×; goal ≤ 5×)\n", "", "",
		fmt.Sprintf("bare coder/websocket, same %.1f MB of frames: p50 %.1f ms (min %.1f)", m["frame-bytes"]/1e6, m["bare-p50-ms"], m["bare-min-ms"]),
		m["ratio-bare-p50"], m["ratio-bare-min"])
}

// fanoutRow runs gwbench for slashd and for the bare server side by
// side, each with -fanout-sessions sessions of its own client process,
// and has them take turns: one event of one, then one of the other, so
// that both see the same load. Each first event is a warm-up (slashd's
// also captures the frame the bare server then sends); the row compares
// the medians of the time the last session had an event.
func fanoutRow(o options) {
	gwbench := buildGwbench()
	frame := filepath.Join(os.TempDir(), fmt.Sprintf("perfbench-frame-%d.json", os.Getpid()))
	defer os.Remove(frame)
	common := []string{"-paced", "-sessions", strconv.Itoa(o.fanoutSessions), "-events", strconv.Itoa(o.fanoutEvents + 1)}
	slashdRun := startPaced(gwbench, append(common, "-intents", "1", "-capture", frame)...)
	slashdRun.next() // the warm-up, which captures the frame
	bareRun := startPaced(gwbench, append(common, "-bare", "-frame", frame)...)
	bareRun.next()
	var slashd, bare []time.Duration
	for range o.fanoutEvents {
		bare = append(bare, bareRun.next())
		slashd = append(slashd, slashdRun.next())
	}
	slashdRun.wait()
	bareRun.wait()
	s, b := median(slashd), median(bare)
	fmt.Printf("%-8s %-50s %-66s %.2f× (goal ≤ 1.5×)\n", "fanout",
		fmt.Sprintf("world event to %d sessions: p50 %.1f ms", o.fanoutSessions, ms(s)),
		fmt.Sprintf("bare coder/websocket, same frame: p50 %.1f ms (%d events each)", ms(b), len(bare)),
		float64(s)/float64(b))
	// CPU is steadier than time on a shared machine (the warm-up
	// event is in both).
	sc, bc := slashdRun.cpuPerEvent(), bareRun.cpuPerEvent()
	fmt.Printf("%-8s %-50s %-66s %.2f×\n", "",
		fmt.Sprintf("server CPU per event: %.1f ms", sc), fmt.Sprintf("bare server's CPU per event: %.1f ms", bc), sc/bc)
}

// pacedRun is a gwbench -paced process.
type pacedRun struct {
	args   []string
	cmd    *exec.Cmd
	in     io.WriteCloser
	lines  *bufio.Scanner
	output bytes.Buffer // its stderr, for errors (written by exec's copier)
	stdout bytes.Buffer // the lines read from its stdout
}

func startPaced(gwbench string, args ...string) *pacedRun {
	r := &pacedRun{args: args, cmd: exec.Command(gwbench, args...)}
	r.cmd.Stderr = &r.output
	out, err := r.cmd.StdoutPipe()
	if err == nil {
		r.in, err = r.cmd.StdinPipe()
	}
	if err == nil {
		err = r.cmd.Start()
	}
	if err != nil {
		log.Fatalf("gwbench %v: %v", args, err)
	}
	r.lines = bufio.NewScanner(out)
	return r
}

// line returns the next line it prints.
func (r *pacedRun) line() string {
	if !r.lines.Scan() {
		log.Fatalf("gwbench %v ended: %v\n%s%s", r.args, r.lines.Err(), r.stdout.Bytes(), r.output.Bytes())
	}
	fmt.Fprintln(&r.stdout, r.lines.Text())
	return r.lines.Text()
}

// next lets it make one event and returns when its last session had it.
func (r *pacedRun) next() time.Duration {
	for r.line() != "next?" {
	}
	if _, err := io.WriteString(r.in, "\n"); err != nil {
		log.Fatalf("gwbench %v: %v", r.args, err)
	}
	for {
		l := r.line()
		if !strings.HasPrefix(l, "event ") {
			continue
		}
		sm := lastArrival.FindStringSubmatch(l)
		if sm == nil {
			log.Fatalf("gwbench %v: no figure in %q", r.args, l)
		}
		d, err := time.ParseDuration(sm[1])
		if err != nil {
			log.Fatalf("gwbench %v: %v", r.args, err)
		}
		return d
	}
}

func (r *pacedRun) wait() {
	r.in.Close()
	for r.lines.Scan() { // the CPU per event comes last
		fmt.Fprintln(&r.stdout, r.lines.Text())
	}
	if err := r.cmd.Wait(); err != nil {
		log.Fatalf("gwbench %v: %v\n%s%s", r.args, err, r.stdout.Bytes(), r.output.Bytes())
	}
}

// cpuPerEvent is the server's CPU per event the run printed (after
// wait; 0 if none).
func (r *pacedRun) cpuPerEvent() float64 {
	sm := regexp.MustCompile(`server CPU per event: ([0-9.]+) ms`).FindSubmatch(r.stdout.Bytes())
	if sm == nil {
		return 0
	}
	v, _ := strconv.ParseFloat(string(sm[1]), 64)
	return v
}

// lastArrival reads when the last session had an event from a gwbench
// event line.
var lastArrival = regexp.MustCompile(`last ([0-9.]+[a-zµ]+) \(all`)

// worldsRows runs BenchmarkWorlds' create, reset and baseline.
func worldsRows(o options) {
	m := goBench("^BenchmarkWorlds$/^(Create|Reset|Baseline)$", o.worldsN)
	base := m["Worlds/Baseline"]["baseline-p50-ms"]
	for _, r := range []struct{ row, name, metric, what string }{
		{"worlds", "Worlds/Create", "create-p50-ms", "create (POST /admin/v1/worlds)"},
		{"", "Worlds/Reset", "reset-p50-ms", "reset (POST /admin/v1/worlds/{w}/reset)"},
	} {
		v := m[r.name][r.metric]
		if v == 0 || base == 0 {
			log.Fatalf("worlds: no figure for %s", r.name)
		}
		fmt.Printf("%-8s %-50s %-66s %.2f×\n", r.row,
			fmt.Sprintf("%s: p50 %.2f ms", r.what, v),
			fmt.Sprintf("the same rows in one plain tx: p50 %.2f ms", base), v/base)
	}
}

// goBench runs the internal/api benchmarks matching pattern for n
// iterations each and returns their metrics.
func goBench(pattern string, n int) map[string]map[string]float64 {
	out, err := run("go", "test", "-run", "^$", "-bench", pattern, "-benchtime", strconv.Itoa(n)+"x", "./internal/api")
	if err != nil {
		log.Fatalf("benchmarks %s: %v\n%s", pattern, err, out)
	}
	m := metrics(out)
	if len(m) == 0 {
		log.Fatalf("benchmarks %s: no figures in\n%s", pattern, out)
	}
	return m
}

// buildGwbench builds tools/gwbench once: it runs itself as the client
// process.
func buildGwbench() string {
	bin := gwbenchPath()
	if _, err := os.Stat(bin); err == nil {
		return bin
	}
	if out, err := run("go", "build", "-o", bin, "./tools/gwbench"); err != nil {
		log.Fatalf("build gwbench: %v\n%s", err, out)
	}
	return bin
}

func gwbenchPath() string {
	return filepath.Join(os.TempDir(), fmt.Sprintf("perfbench-gwbench-%d", os.Getpid()))
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func run(name string, args ...string) ([]byte, error) {
	cmd := exec.Command(name, args...)
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	err := cmd.Run()
	return buf.Bytes(), err
}

// metrics reads `go test -bench` lines: name, iterations, then value/unit
// pairs.
func metrics(out []byte) map[string]map[string]float64 {
	m := map[string]map[string]float64{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		name := strings.TrimPrefix(f[0], "Benchmark")
		if i := strings.LastIndex(name, "-"); i > 0 {
			name = name[:i]
		}
		vals := map[string]float64{}
		for i := 2; i+1 < len(f); i += 2 {
			if v, err := strconv.ParseFloat(f[i], 64); err == nil {
				vals[f[i+1]] = v
			}
		}
		m[name] = vals
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
	return m
}
