// Package gobuild builds the module's commands for tests that run them as
// processes (the slashd binary, examples/bot): once per test binary, in
// TestMain before the tests start, so that no test's deadline, and not
// go test's -timeout either, includes compiling anything.
//
// A binary is built with the test binary's own build settings (-race,
// -tags, -gcflags, CGO_ENABLED, as runtime/debug records them), so the
// packages `go test` has just compiled for the test binary come from the
// build cache: with empty caches the dependencies are compiled once, not
// twice, and the build is the command's own package and a link. A
// Static binary is built as the Dockerfile builds one instead
// (CGO_ENABLED=0, no sanitizer); with cgo on, that compiles every package
// above net and os/user again.
package gobuild

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// Bound is how long one build may take. A cold build of cmd/slashd took
// three minutes on a quiet 2-core machine and several on a loaded one;
// the bound only stops a build that hangs.
const Bound = 15 * time.Minute

// Binary is one main package of the module, built at most once. Declare
// it in a test package's variables and call Build from TestMain (and
// File is the built binary's path (building it first), for a TestMain,
// which has no testing.TB to fail.
func (b *Binary) File() (string, error) {
	if err := b.Build(); err != nil {
		return "", err
	}
	b.statSources()
	return b.path, nil
}

// Remove once m.Run returned); tests call Path.
type Binary struct {
	Pkg     string // import path, e.g. github.com/slashd/slashd/cmd/slashd
	LDFlags string // -ldflags, e.g. -X main.version=…
	// Static builds as the Dockerfile does: CGO_ENABLED=0 and no
	// sanitizer, whatever the test binary has.
	Static bool

	once    sync.Once
	dir     string
	path    string
	sources []string // the module's files compiled into the binary
	err     error

	statOnce sync.Once
}

// Build builds the binary unless it was built (or failed to build)
// before; the error is also what Path reports to each test. It takes at
// most Bound.
func (b *Binary) Build() error {
	b.once.Do(func() { b.path, b.err = b.build() })
	return b.err
}

// Path returns the built binary, building it first if TestMain did not;
// a failed build fails the test.
func (b *Binary) Path(t testing.TB) string {
	t.Helper()
	if err := b.Build(); err != nil {
		t.Fatal(err)
	}
	b.statOnce.Do(b.statSources)
	return b.path
}

// statSources stats every file of the module the binary was built from.
// go test caches a passing run by the test binary and the files the run
// consulted; the binary under test is not part of the test binary, so
// without these the cache would replay a pass after the command's own
// sources changed. It runs from Path, inside m.Run, where go test's file
// log is on (it is not yet in TestMain). A file that vanished is skipped:
// its absence is what the next build sees too.
func (b *Binary) statSources() {
	for _, f := range b.sources {
		os.Stat(f)
	}
}

// Remove deletes the built binary.
func (b *Binary) Remove() {
	if b.dir != "" {
		os.RemoveAll(b.dir)
	}
}

// BuildAll builds bins one after another (each go build uses every core
// already) and returns their errors joined. Call it from TestMain before
// m.Run: a test that needs a binary that failed to build fails with the
// build's error, the others run.
func BuildAll(bins ...*Binary) error {
	var errs []error
	for _, b := range bins {
		errs = append(errs, b.Build())
	}
	return errors.Join(errs...)
}

func (b *Binary) build() (string, error) {
	goTool, err := exec.LookPath("go") // go test puts its own GOROOT/bin first on PATH
	if err != nil {
		return "", fmt.Errorf("build %s: find the go command: %w", b.Pkg, err)
	}
	if b.dir, err = os.MkdirTemp("", "slashd-gobuild-"); err != nil {
		return "", fmt.Errorf("build %s: %w", b.Pkg, err)
	}
	path := filepath.Join(b.dir, filepath.Base(b.Pkg))
	flags, env := b.settings()
	args := append([]string{"build", "-o", path}, flags...)
	if b.LDFlags != "" {
		args = append(args, "-ldflags", b.LDFlags)
	}
	args = append(args, b.Pkg)

	ctx, cancel := context.WithTimeout(context.Background(), Bound)
	defer cancel()
	cmd := exec.CommandContext(ctx, goTool, args...)
	cmd.Env = append(os.Environ(), env...)
	start := time.Now()
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		return "", fmt.Errorf("go %s: not done within %v\n%s", strings.Join(args, " "), Bound, out)
	}
	if err != nil {
		return "", fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	if d := time.Since(start); d > time.Minute {
		// Said where a slow first run can be seen (go test -v).
		fmt.Fprintf(os.Stderr, "gobuild: %s built in %v\n", b.Pkg, d.Round(time.Second))
	}
	if b.sources, err = moduleSources(ctx, goTool, b.Pkg, flags, env); err != nil {
		return "", err
	}
	return path, nil
}

// moduleSourcesFormat lists, for each package of the main module in a
// build, its directory and then its source and embedded files, one a line
// (the directory first, with a tab before it).
const moduleSourcesFormat = `{{if and .Module .Module.Main}}{{printf "\t%s\n" .Dir}}` +
	`{{range .GoFiles}}{{println .}}{{end}}{{range .CgoFiles}}{{println .}}{{end}}` +
	`{{range .EmbedFiles}}{{println .}}{{end}}{{end}}`

// moduleSources returns the paths of the main module's files that the
// build of pkg compiles or embeds, and its go.mod and go.sum.
func moduleSources(ctx context.Context, goTool, pkg string, flags, env []string) ([]string, error) {
	args := append([]string{"list", "-deps", "-f", moduleSourcesFormat}, flags...)
	args = append(args, pkg)
	cmd := exec.CommandContext(ctx, goTool, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("list the sources of %s: %w", pkg, err)
	}
	var files []string
	var dir string
	for line := range strings.Lines(string(out)) {
		line = strings.TrimRight(line, "\n")
		switch {
		case strings.HasPrefix(line, "\t"):
			dir = line[1:]
			if files == nil { // the module's root is the first package's ancestor with a go.mod
				files = append(files, moduleFiles(dir)...)
			}
		case line != "":
			files = append(files, filepath.Join(dir, line))
		}
	}
	return files, nil
}

// moduleFiles returns go.mod and go.sum of the module dir belongs to.
func moduleFiles(dir string) []string {
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return []string{filepath.Join(d, "go.mod"), filepath.Join(d, "go.sum")}
		}
		if filepath.Dir(d) == d {
			return nil
		}
	}
}

// settings are the go build flags and environment variables that build
// the binary the way this test binary was built.
func (b *Binary) settings() (flags, env []string) {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		info = &debug.BuildInfo{}
	}
	return buildSettings(info.Settings, b.Static)
}

// buildSettings picks from a test binary's recorded settings those that
// change how packages compile: the same ones make the same build cache
// entries.
func buildSettings(recorded []debug.BuildSetting, static bool) (flags, env []string) {
	sanitizers := []string{"-race", "-msan", "-asan"}
	for _, s := range recorded {
		switch {
		case slices.Contains(sanitizers, s.Key):
			if s.Value == "true" && !static {
				flags = append(flags, s.Key)
			}
		case s.Key == "-tags" || s.Key == "-gcflags" || s.Key == "-asmflags":
			flags = append(flags, s.Key+"="+s.Value)
		case s.Key == "-trimpath":
			if s.Value == "true" {
				flags = append(flags, s.Key)
			}
		case s.Key == "CGO_ENABLED" && !static:
			env = append(env, "CGO_ENABLED="+s.Value)
		}
	}
	if static {
		env = append(env, "CGO_ENABLED=0")
	}
	return flags, env
}
