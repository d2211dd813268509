// Command release cross-compiles slashd's release binaries: static
// (CGO_ENABLED=0; the SQLite driver is pure Go), reproducible (-trimpath,
// no VCS probing), and stamped with the version and the commit, which
// `slashd version` and GET /healthz report. It writes them with a
// SHA256SUMS file into the output directory and prints the checksums.
//
//	go run ./tools/release -version v1.2.3            # linux, darwin, windows × amd64, arm64 into dist/
//	go run ./tools/release -targets linux/arm64 -out /tmp/rel
//
// Without -version the version is `git describe --tags --always --dirty`.
// The builds need only the module cache (GOPROXY=off works once the
// modules are downloaded).
package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"strings"
)

// defaultTargets are the platforms of a release.
const defaultTargets = "linux/amd64,linux/arm64,darwin/amd64,darwin/arm64,windows/amd64,windows/arm64"

func main() {
	version := flag.String("version", "", "the release's version (default: git describe --tags --always --dirty)")
	out := flag.String("out", "dist", "output directory")
	targetList := flag.String("targets", defaultTargets, "comma-separated GOOS/GOARCH pairs")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := release(ctx, *version, *out, *targetList, os.Stdout, os.Stderr); err != nil {
		log.Fatal("release: ", err)
	}
}

// release builds every target into out and prints the checksums to
// stdout, its progress to progress.
func release(ctx context.Context, version, out, targetList string, stdout, progress io.Writer) error {
	targets, err := parseTargets(targetList)
	if err != nil {
		return err
	}
	root, err := moduleRoot(ctx)
	if err != nil {
		return err
	}
	s, err := readStamp(ctx, root, version)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	// Every platform's modules before the first build (darwin and windows
	// need some that linux does not), so that a missing one fails now,
	// not half way. Offline (GOPROXY=off) they must be in the module cache.
	if err := downloadModules(ctx, root); err != nil {
		return err
	}
	fmt.Fprintf(progress, "slashd %s (revision %s, modified %t)\n", s.version, orUnknown(s.revision), s.modified)
	var files []string
	for _, t := range targets {
		fmt.Fprintf(progress, "building %s\n", t)
		path, err := build(ctx, root, out, s, t)
		if err != nil {
			return err
		}
		files = append(files, path)
	}
	sums, err := checksums(files)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(out, "SHA256SUMS"), []byte(sums), 0o644); err != nil {
		return err
	}
	fmt.Fprint(stdout, sums)
	return nil
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// target is one platform.
type target struct{ goos, goarch string }

func (t target) String() string { return t.goos + "/" + t.goarch }

func parseTargets(list string) ([]target, error) {
	var out []target
	for _, s := range strings.Split(list, ",") {
		goos, goarch, ok := strings.Cut(strings.TrimSpace(s), "/")
		if !ok || goos == "" || goarch == "" {
			return nil, fmt.Errorf("target %q: want GOOS/GOARCH", s)
		}
		out = append(out, target{goos, goarch})
	}
	return out, nil
}

// stamp is what a release binary is stamped with (cmd/slashd's
// version.go: main.version, main.revision, …).
type stamp struct {
	version, revision, time string
	modified                bool
}

// ldflags stamps s and strips the symbol table and debug information.
func (s stamp) ldflags() string {
	return fmt.Sprintf("-s -w -X main.version=%s -X main.revision=%s -X main.revisionTime=%s -X main.modified=%t",
		s.version, s.revision, s.time, s.modified)
}

// readStamp reads the checkout's commit with git; version, when empty,
// comes from git describe. Without git (a source archive) the revision
// stays unknown and a version must be given.
func readStamp(ctx context.Context, root, version string) (stamp, error) {
	s := stamp{version: version}
	git := func(args ...string) (string, error) {
		cmd := exec.CommandContext(ctx, "git", args...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "TZ=UTC")
		b, err := cmd.Output()
		return strings.TrimSpace(string(b)), err
	}
	if rev, err := git("rev-parse", "HEAD"); err == nil {
		s.revision = rev
		s.time, _ = git("show", "-s", "--date=format-local:%Y-%m-%dT%H:%M:%SZ", "--format=%cd", "HEAD")
		status, _ := git("status", "--porcelain", "--untracked-files=no")
		s.modified = status != ""
	}
	if s.version == "" {
		v, err := git("describe", "--tags", "--always", "--dirty")
		if err != nil || v == "" {
			return s, errors.New("no -version given and git describe failed: give one")
		}
		s.version = v
	}
	if !regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._+-]*$`).MatchString(s.version) {
		return s, fmt.Errorf("version %q: want letters, digits and . _ + - (it names the files)", s.version)
	}
	return s, nil
}

// moduleRoot is the directory of slashd's go.mod.
func moduleRoot(ctx context.Context) (string, error) {
	b, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(b))
	if gomod == "" || gomod == os.DevNull {
		return "", errors.New("not inside the slashd module: run from its checkout")
	}
	return filepath.Dir(gomod), nil
}

// downloadModules fills the module cache with every module of go.mod.
func downloadModules(ctx context.Context, root string) error {
	cmd := exec.CommandContext(ctx, "go", "mod", "download")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go mod download (offline, the modules must be in the module cache): %w\n%s", err, out)
	}
	return nil
}

// artifactName is a target's file name.
func artifactName(version string, t target) string {
	name := fmt.Sprintf("slashd-%s-%s-%s", version, t.goos, t.goarch)
	if t.goos == "windows" {
		name += ".exe"
	}
	return name
}

// build compiles cmd/slashd for t into out.
func build(ctx context.Context, root, out string, s stamp, t target) (string, error) {
	outAbs, err := filepath.Abs(out)
	if err != nil {
		return "", err
	}
	path := filepath.Join(outAbs, artifactName(s.version, t))
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-buildvcs=false", "-ldflags", s.ldflags(),
		"-o", path, "./cmd/slashd")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOOS="+t.goos, "GOARCH="+t.goarch, "CGO_ENABLED=0")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("build %s: %w\n%s", t, err, stderr.String())
	}
	return path, nil
}

// checksums is the SHA256SUMS text of files (sha256sum's format, with
// base names, so `sha256sum -c` works in their directory).
func checksums(files []string) (string, error) {
	var b strings.Builder
	for _, path := range files {
		f, err := os.Open(path)
		if err != nil {
			return "", err
		}
		h := sha256.New()
		_, err = io.Copy(h, f)
		f.Close()
		if err != nil {
			return "", fmt.Errorf("checksum %s: %w", path, err)
		}
		fmt.Fprintf(&b, "%s  %s\n", hex.EncodeToString(h.Sum(nil)), filepath.Base(path))
	}
	return b.String(), nil
}
