package main

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/slashd/slashd/internal/metrics"
	"github.com/slashd/slashd/internal/metrics/metricstest"
)

// jsonLog parses serve's output as JSON log lines: each line must be one.
func jsonLog(t *testing.T, out string) []map[string]any {
	t.Helper()
	var recs []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("not a JSON log line: %v: %q\nwhole output:\n%s", err, line, out)
		}
		for _, k := range []string{"time", "level", "msg"} {
			if _, ok := rec[k]; !ok {
				t.Fatalf("log line without %s: %s", k, line)
			}
		}
		recs = append(recs, rec)
	}
	return recs
}

func findRecord(recs []map[string]any, msg string) map[string]any {
	for _, r := range recs {
		if r["msg"] == msg {
			return r
		}
	}
	return nil
}

// serve --log-format json --metrics-addr --pprof-addr: stdout holds JSON
// lines only, from the start line to the shutdown line; /metrics moves
// to its own address; the profiler answers on its.
func TestServeJSONLogsMetricsAddrAndPprof(t *testing.T) {
	t.Parallel()
	dir := dataDirWithStore(t)
	srv := startServeConfig(t, serveConfig{addr: "127.0.0.1:0", dataDir: dir, logLevel: slog.LevelInfo, logFormat: logJSON,
		metricsAddr: "127.0.0.1:0", pprofAddr: "127.0.0.1:0", nodeID: -1})

	start := findRecord(jsonLog(t, srv.out.String()), "slashd listening")
	if start == nil {
		t.Fatalf("no start line:\n%s", srv.out)
	}
	credsPath := filepath.Join(dir, "bootstrap.json")
	if start["url"] != srv.base || start["store"] != "sqlite" || start["data"] != dir || start["credentials"] != credsPath ||
		start["level"] != "INFO" {
		t.Fatalf("start line %v", start)
	}
	metricsURL, _ := start["metrics"].(string)
	pprofURL, _ := start["pprof"].(string)
	if !strings.HasPrefix(metricsURL, "http://127.0.0.1:") || strings.HasPrefix(metricsURL, srv.base) ||
		!strings.HasSuffix(pprofURL, "/debug/pprof/") {
		t.Fatalf("metrics %q, pprof %q", metricsURL, pprofURL)
	}

	// The API's address no longer serves /metrics; the metrics address
	// serves only that.
	if status, body := call(t, "GET", srv.base+"/metrics", "", ""); status != http.StatusNotFound {
		t.Fatalf("GET /metrics on the API's address: %d %s", status, body)
	}
	raw, err := os.ReadFile(credsPath)
	if err != nil {
		t.Fatal(err)
	}
	creds := checkCredentials(t, "bootstrap.json", raw)
	createGuildCommand(t, srv.base, creds["application_id"], creds["guild_id"], creds["bot_token"], "observed")
	resp, err := httpClient.Get(metricsURL)
	if err != nil {
		t.Fatal(err)
	}
	raw, err = io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	body := string(raw)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != metrics.ContentType {
		t.Fatalf("metrics: %d %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	exp, err := metricstest.Parse(body)
	if err != nil {
		t.Fatalf("metrics do not parse: %v\n%s", err, body)
	}
	created := map[string]string{"route": "/api/v10/applications/{application_id}/guilds/{guild_id}/commands",
		"method": "POST", "code": "201"}
	if v, _ := exp.Value("slashd_http_requests_total", created); v != 1 {
		t.Errorf("created commands counted %v, want 1", v)
	}
	if v, _ := exp.Value("slashd_http_requests_total", map[string]string{"route": "unmatched", "method": "GET", "code": "404"}); v != 1 {
		t.Errorf("the 404 of /metrics on the API's address counted %v, want 1", v)
	}
	if status, _ := call(t, "GET", strings.TrimSuffix(metricsURL, "/metrics")+"/healthz", "", ""); status != http.StatusNotFound {
		t.Errorf("the metrics address serves more than /metrics: %d", status)
	}

	// The profiler, on its own address only.
	for _, path := range []string{"", "cmdline", "goroutine?debug=1"} {
		if status, body := call(t, "GET", pprofURL+path, "", ""); status != http.StatusOK {
			t.Errorf("pprof %s: %d %.200s", path, status, body)
		}
	}
	if status, _ := call(t, "GET", srv.base+"/debug/pprof/", "", ""); status != http.StatusNotFound {
		t.Errorf("the API's address serves the profiler: %d", status)
	}

	srv.stop(t)
	recs := jsonLog(t, srv.out.String())
	if findRecord(recs, "commands changed") == nil {
		t.Errorf("no commands changed event:\n%s", srv.out)
	}
	last := recs[len(recs)-2:]
	if last[0]["msg"] != "slashd shutting down" || last[1]["msg"] != "slashd stopped" {
		t.Errorf("the log ends with %v, want the shutdown lines", last)
	}
	// JSON logs carry no secret (the first run's are in the file only).
	for _, k := range []string{"bot_token", "client_secret", "owner_bearer_token", "owner_client_token", "admin_token"} {
		if strings.Contains(srv.out.String(), creds[k]) {
			t.Errorf("%s is on stdout", k)
		}
	}
	if _, err := httpClient.Get(pprofURL); err == nil {
		t.Error("the profiler still answers after shutdown")
	}
}

// Without --pprof-addr nothing serves the profiler, and /metrics is on
// the API's address.
func TestServeDefaultsMetricsOnAPIAddressNoPprof(t *testing.T) {
	t.Parallel()
	srv := startServeConfig(t, serveConfig{addr: "127.0.0.1:0", dataDir: dataDirWithStore(t), logLevel: slog.LevelInfo, nodeID: -1})
	out := srv.out.String()
	line := ""
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, `msg="slashd listening"`) {
			line = l
		}
	}
	if line == "" || !strings.Contains(line, "metrics="+srv.base+"/metrics") || strings.Contains(line, "pprof=") {
		t.Fatalf("start line %q", line)
	}
	if !strings.Contains(out, "Try it:") {
		t.Errorf("text logs keep the first run's instructions:\n%s", out)
	}
	status, body := call(t, "GET", srv.base+"/metrics", "", "")
	if status != http.StatusOK {
		t.Fatalf("/metrics: %d", status)
	}
	if _, err := metricstest.Parse(string(body)); err != nil {
		t.Fatal(err)
	}
	if status, _ := call(t, "GET", srv.base+"/debug/pprof/", "", ""); status != http.StatusNotFound {
		t.Errorf("/debug/pprof/ without --pprof-addr: %d", status)
	}
}
