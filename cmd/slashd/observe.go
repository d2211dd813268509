package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/pprof"
	"time"
)

// Log formats of --log-format.
const (
	logText = "text"
	logJSON = "json"
)

// observeFlags registers serve's observability flags: the log format,
// where /metrics is served, and the opt-in profiler.
func observeFlags(fs *flagSet, cfg *serveConfig) {
	fs.envString(&cfg.logFormat, "log-format", logText,
		"log `FORMAT`: text, or json (one object a line; stdout then carries nothing else)")
	fs.envString(&cfg.metricsAddr, "metrics-addr", "",
		"serve /metrics on this `ADDR` only (host:port) instead of on --addr; unset: /metrics on --addr, without auth like /healthz")
	fs.envString(&cfg.pprofAddr, "pprof-addr", "",
		"serve Go's profiler (/debug/pprof/) on this `ADDR`, e.g. 127.0.0.1:6060 (keep it on loopback); unset: off")
}

// checkObserve checks the observability flags once parsed.
func (c serveConfig) checkObserve() error {
	if c.logFormat != logText && c.logFormat != logJSON {
		return fmt.Errorf("--log-format %q: want text or json", c.logFormat)
	}
	return nil
}

// newLogger writes the server's log to w in the configured format.
func newLogger(w io.Writer, format string, level slog.Level) *slog.Logger {
	opts := &slog.HandlerOptions{Level: level}
	if format == logJSON {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

// sideServer is a listener beside the API's: /metrics on its own
// address, or the profiler.
type sideServer struct {
	srv *http.Server
	url string
}

// startSide listens on addr and serves h there until shutdown.
func startSide(name, addr string, h http.Handler, log *slog.Logger) (*sideServer, error) {
	ln, err := listen(name+"-addr", addr)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	s := &sideServer{url: "http://" + ln.Addr().String(),
		// No write timeout: a CPU profile or trace streams for as long as
		// it was asked to (30 s by default).
		srv: &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 120 * time.Second}}
	go func() {
		if err := s.srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			log.Error(name+" listener failed", "err", err)
		}
	}()
	return s, nil
}

// shutdown stops the listener (nil: none was started).
func (s *sideServer) shutdown(ctx context.Context) {
	if s == nil {
		return
	}
	_ = s.srv.Shutdown(ctx) // the main server's shutdown reports what matters
}

// pprofHandler serves the runtime profiles. net/http/pprof also
// registers them on http.DefaultServeMux, which slashd never serves.
func pprofHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index) // heap, goroutine, allocs, block, mutex, threadcreate by name
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return mux
}

// startSideServers starts the metrics listener (when --metrics-addr is
// set) and the profiler (when --pprof-addr is).
func startSideServers(cfg serveConfig, metrics http.Handler, log *slog.Logger) (metricsSide, pprofSide *sideServer, err error) {
	if cfg.metricsAddr != "" {
		mux := http.NewServeMux()
		mux.Handle("GET /metrics", metrics)
		if metricsSide, err = startSide("metrics", cfg.metricsAddr, mux, log); err != nil {
			return nil, nil, err
		}
	}
	if cfg.pprofAddr != "" {
		if pprofSide, err = startSide("pprof", cfg.pprofAddr, pprofHandler(), log); err != nil {
			metricsSide.shutdown(context.Background())
			return nil, nil, err
		}
	}
	return metricsSide, pprofSide, nil
}
