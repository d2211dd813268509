// Command perfbench runs the benchmarks of issues 15 and 28, each beside
// the baseline it is measured against in the same run, and prints a table
// of ratios:
//
//		go run ./tools/perfbench [-n 2000] [-sessions 2000]
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
//	    p50);
//	  - members: invoke in a guild of 100,000 members vs the same in a
//	    guild of 10, same store and server, alternating (BenchmarkRatioMembers,
//	    p50; it should stay flat);
//	  - gateway: heap per idle session vs a bare coder/websocket server with
//	    the same client (tools/gwbench and gwbench -bare).
//
// Run it from the repository's root.
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
)

func main() {
	n := flag.Int("n", 2000, "iterations of each HTTP benchmark (and of its baseline)")
	sessions := flag.Int("sessions", 2000, "idle gateway sessions")
	flag.Parse()

	out, err := run("go", "test", "-run", "^$", "-bench", "Ratio", "-benchtime", strconv.Itoa(*n)+"x", "./internal/api")
	if err != nil {
		log.Fatalf("benchmarks: %v\n%s", err, out)
	}
	m := metrics(out)
	fmt.Printf("%-8s %-44s %-62s %s\n", "path", "slashd", "baseline (same run)", "ratio")
	fmt.Printf("%-8s %-44s %-62s %.2f\n", "read",
		fmt.Sprintf("%.0f req/s (%.0f bytes)", m["RatioRead"]["slashd-req/s"], m["RatioRead"]["bytes"]),
		fmt.Sprintf("bare net/http: %.0f req/s", m["RatioRead"]["bare-req/s"]), m["RatioRead"]["ratio"])
	w := m["RatioWrite"]
	fmt.Printf("%-8s %-44s %-62s %.2f× (mean %.2f×)\n", "write",
		fmt.Sprintf("p50 %.0f µs, mean %.0f µs", w["slashd-p50-µs"], w["slashd-mean-µs"]),
		fmt.Sprintf("bare handler: decode + 100-row tx: p50 %.0f µs, mean %.0f µs", w["raw-p50-µs"], w["raw-mean-µs"]),
		w["ratio-p50"], w["ratio-mean"])
	v := m["RatioInvoke"]
	fmt.Printf("%-8s %-44s %-62s %.1f× two hops (%.1f× one)\n", "invoke",
		fmt.Sprintf("p50 %.0f µs, mean %.0f µs", v["slashd-p50-µs"], v["slashd-mean-µs"]),
		fmt.Sprintf("two hops p50 %.0f µs, one %.0f µs", v["twohop-p50-µs"], v["onehop-p50-µs"]),
		v["ratio-twohop"], v["ratio-onehop"])
	fmt.Printf("%-8s %-44s %-62s %.2f× (the floor is %.1f× one hop)\n", "",
		"", fmt.Sprintf("floor (sign, app, one commit) p50 %.0f µs", v["floor-p50-µs"]),
		v["ratio-floor"], v["floor-onehop"])
	g := m["RatioMembers"]
	fmt.Printf("%-8s %-44s %-62s %.2f× (mean %.2f×)\n", "members",
		fmt.Sprintf("100k-member guild: p50 %.0f µs, mean %.0f µs", g["big-p50-µs"], g["big-mean-µs"]),
		fmt.Sprintf("10-member guild: p50 %.0f µs, mean %.0f µs", g["small-p50-µs"], g["small-mean-µs"]),
		g["ratio-p50"], g["ratio-mean"])

	perSession := regexp.MustCompile(`([0-9.]+) KiB per session`)
	kib := func(args ...string) float64 {
		out, err := run("go", append([]string{"run", "./tools/gwbench", "-sessions", strconv.Itoa(*sessions)}, args...)...)
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
	gw := kib("-events", "1")
	bare := kib("-bare")
	fmt.Printf("%-8s %-44s %-62s %.2f×\n", "gateway",
		fmt.Sprintf("%.1f KiB per idle session (%d)", gw, *sessions),
		fmt.Sprintf("bare coder/websocket: %.1f KiB", bare), gw/bare)
}

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
