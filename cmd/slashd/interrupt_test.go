package main

// Ctrl-C on a running verb: a real slashd process, a real SIGINT.

import (
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/bootstrap"
)

// deferringEndpoint is an Interactions Endpoint URL that verifies the
// service's signatures as an app must, answers PINGs, and defers every
// command without ever filling its answer in.
func deferringEndpoint(t *testing.T, publicKey string) *httptest.Server {
	t.Helper()
	key, err := hex.DecodeString(publicKey)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		sig, err := hex.DecodeString(r.Header.Get("X-Signature-Ed25519"))
		if err != nil || !ed25519.Verify(key, append([]byte(r.Header.Get("X-Signature-Timestamp")), body...), sig) {
			http.Error(w, "invalid request signature", http.StatusUnauthorized)
			return
		}
		var in struct {
			Type int `json:"type"`
		}
		json.Unmarshal(body, &in)
		w.Header().Set("Content-Type", "application/json")
		if in.Type == 1 {
			io.WriteString(w, `{"type":1}`)
			return
		}
		io.WriteString(w, `{"type":5}`) // "thinking…", forever
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestInvokeInterrupted: Ctrl-C while invoke waits for a deferred answer
// says it was interrupted, not that the wait ran out, and exits 130 as
// a shell expects of a process Ctrl-C stopped.
func TestInvokeInterrupted(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("SIGINT")
	}
	dir := dataDirWithStore(t)
	srv := startServe(t, dir)
	creds := readCredentials(t, filepath.Join(dir, bootstrap.FileName))
	endpoint := deferringEndpoint(t, creds["public_key"])
	if status, body := call(t, "POST", srv.base+"/api/v10/applications/"+creds["application_id"]+"/guilds/"+creds["guild_id"]+"/commands",
		"Bot "+creds["bot_token"], `{"name":"slow","description":"Never answers"}`); status != http.StatusCreated {
		t.Fatalf("register /slow: %d %s", status, body)
	}
	if status, body := call(t, "PUT", srv.base+"/admin/v1/applications/"+creds["application_id"]+"/interactions-endpoint",
		"Admin "+creds["admin_token"], `{"interactions_endpoint_url":"`+endpoint.URL+`"}`); status != http.StatusOK {
		t.Fatalf("set the endpoint: %d %s", status, body)
	}

	// invoke talks to the server through a proxy that tells the test
	// when it reads the channel's messages: it waits for the answer.
	target, _ := url.Parse(srv.base)
	proxy := httputil.NewSingleHostReverseProxy(target)
	waiting := make(chan struct{}, 1)
	observer := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/messages") {
			select {
			case waiting <- struct{}{}:
			default:
			}
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(observer.Close)
	viaProxy := t.TempDir()
	creds["base_url"] = observer.URL
	b, _ := json.Marshal(creds)
	if err := os.WriteFile(filepath.Join(viaProxy, bootstrap.FileName), b, 0o600); err != nil {
		t.Fatal(err)
	}

	cmd := exec.Command(slashdBinary(t), "invoke", "--data", viaProxy, "/slow")
	cmd.Env = cleanEnv()
	var stdout, stderr syncBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-waiting:
	case err := <-done:
		t.Fatalf("invoke ended before waiting for the answer: %v\nstdout %q\nstderr %q", err, stdout.String(), stderr.String())
	case <-time.After(time.Minute):
		cmd.Process.Kill()
		t.Fatalf("invoke never waited for the answer\nstderr %q", stderr.String())
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	var err error
	select {
	case err = <-done:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatal("invoke did not stop after SIGINT")
	}
	code := cmd.ProcessState.ExitCode()
	want := "slashd: invoke: /slow: interrupted while waiting for the application to fill in its deferred answer\n"
	if code != 130 || stdout.String() != "" || stderr.String() != want {
		t.Errorf("after SIGINT: %v, exit %d, stdout %q, stderr %q\nwant exit 130 and %q", err, code, stdout.String(), stderr.String(), want)
	}
}
