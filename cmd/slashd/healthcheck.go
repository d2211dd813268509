package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"
)

// defineHealthcheck is `slashd healthcheck`: GET /healthz of a server,
// for container health checks (distroless and scratch images have no
// curl). It succeeds, exit 0, when the server answers 200 with status
// "ok"; anything else is an error, exit 1.
func defineHealthcheck(fs *flagSet) runFunc {
	var addr string
	addrFlag(fs, &addr, "address of the server to check; a wildcard host is checked on 127.0.0.1")
	timeout := fs.Duration("timeout", 3*time.Second, "how long to wait for the answer")
	return func(ctx context.Context, out io.Writer) error {
		url := baseURLOf(addr) + "/healthz"
		version, err := checkHealth(ctx, url, *timeout)
		if err != nil {
			return fmt.Errorf("healthcheck: %s: %w", url, err)
		}
		fmt.Fprintf(out, "ok: %s (slashd %s)\n", url, version)
		return nil
	}
}

// checkHealth GETs url and returns the server's version when it is
// healthy.
func checkHealth(ctx context.Context, url string, timeout time.Duration) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", err
	}
	// Straight to the server: a proxy from the environment has no say
	// in whether it is healthy.
	client := &http.Client{Transport: &http.Transport{Proxy: nil}}
	defer client.CloseIdleConnections()
	resp, err := client.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var health struct {
		Status  string `json:"status"`
		Version string `json:"version"`
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	if err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("status %d: %.200s", resp.StatusCode, body)
	}
	if err := json.Unmarshal(body, &health); err != nil || health.Status != "ok" {
		return "", fmt.Errorf("not healthy: %.200s", body)
	}
	return health.Version, nil
}
