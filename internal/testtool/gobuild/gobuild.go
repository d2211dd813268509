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
// Remove once m.Run returned); tests call Path.
type Binary struct {
	Pkg     string // import path, e.g. github.com/slashd/slashd/cmd/slashd
	LDFlags string // -ldflags, e.g. -X main.version=…
	// Static builds as the Dockerfile does: CGO_ENABLED=0 and no
	// sanitizer, whatever the test binary has.
	Static bool

	once sync.Once
	dir  string
	path string
	err  error
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
	return b.path
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
	return path, nil
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
