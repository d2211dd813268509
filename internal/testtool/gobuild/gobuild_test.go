package gobuild

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
)

var (
	settingsBin = Binary{Pkg: "github.com/slashd/slashd/internal/testtool/gobuild/testdata/settings"}
	staticBin   = Binary{Pkg: settingsBin.Pkg, Static: true}
)

func TestMain(m *testing.M) {
	_ = BuildAll(&settingsBin, &staticBin) // errors fail the tests that use them
	code := m.Run()
	settingsBin.Remove()
	staticBin.Remove()
	os.Exit(code)
}

// compiled are the recorded settings that change how packages compile.
var compiled = []string{"-race", "-msan", "-asan", "-tags", "-gcflags", "-asmflags", "-trimpath", "CGO_ENABLED"}

func settingsOf(t *testing.T, bin string) map[string]string {
	t.Helper()
	out, err := exec.Command(bin).Output()
	if err != nil {
		t.Fatalf("%s: %v", bin, err)
	}
	m := map[string]string{}
	for line := range strings.Lines(string(out)) {
		k, v, _ := strings.Cut(strings.TrimSuffix(line, "\n"), "=")
		if slices.Contains(compiled, k) {
			m[k] = v
		}
	}
	return m
}

// TestBuiltLikeTheTestBinary: the binary records the same compile
// settings as this test binary (so go test's compiled packages were
// reused), whatever flags this test runs with (try -race).
func TestBuiltLikeTheTestBinary(t *testing.T) {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		t.Fatal("the test binary records no build info")
	}
	want := map[string]string{}
	for _, s := range info.Settings {
		if slices.Contains(compiled, s.Key) {
			want[s.Key] = s.Value
		}
	}
	got := settingsOf(t, settingsBin.Path(t))
	for _, k := range compiled {
		if got[k] != want[k] {
			t.Errorf("%s: built with %q, the test binary with %q", k, got[k], want[k])
		}
	}
}

// TestStatic: a Static binary has cgo off and no sanitizer.
func TestStatic(t *testing.T) {
	got := settingsOf(t, staticBin.Path(t))
	if got["CGO_ENABLED"] != "0" || got["-race"] == "true" || got["-msan"] == "true" || got["-asan"] == "true" {
		t.Errorf("static binary settings %v, want CGO_ENABLED=0 and no sanitizer", got)
	}
}

// TestBuildFailure: a package that does not build fails the test that
// needs it with go build's output; it is built only once.
func TestBuildFailure(t *testing.T) {
	b := Binary{Pkg: "github.com/slashd/slashd/internal/testtool/gobuild/testdata/nosuch"}
	err := b.Build()
	if err == nil || !strings.Contains(err.Error(), "go build -o ") || !strings.Contains(err.Error(), "nosuch") {
		t.Fatalf("Build: %v, want go build's failure naming the package", err)
	}
	if again := b.Build(); again != err {
		t.Errorf("second Build: %v, want the first's error again", again)
	}
	b.Remove()
}

func TestBuildSettings(t *testing.T) {
	recorded := []debug.BuildSetting{
		{Key: "-buildmode", Value: "exe"}, {Key: "-compiler", Value: "gc"},
		{Key: "-race", Value: "true"}, {Key: "-tags", Value: "foo,bar"},
		{Key: "-gcflags", Value: "all=-N -l"}, {Key: "-trimpath", Value: "true"},
		{Key: "CGO_ENABLED", Value: "1"}, {Key: "CGO_CFLAGS", Value: ""}, {Key: "GOARCH", Value: "amd64"},
	}
	cases := []struct {
		name   string
		static bool
		flags  []string
		env    []string
	}{
		{"like the test binary", false, []string{"-race", "-tags=foo,bar", "-gcflags=all=-N -l", "-trimpath"}, []string{"CGO_ENABLED=1"}},
		{"static", true, []string{"-tags=foo,bar", "-gcflags=all=-N -l", "-trimpath"}, []string{"CGO_ENABLED=0"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			flags, env := buildSettings(recorded, tc.static)
			if !slices.Equal(flags, tc.flags) || !slices.Equal(env, tc.env) {
				t.Errorf("buildSettings: flags %q env %q, want %q %q", flags, env, tc.flags, tc.env)
			}
		})
	}
}

// TestSourcesListed: the files Path stats so that go test's cache sees
// the binary's sources are the module's files the build compiled: the
// command's main.go and go.mod, and nothing from the standard library.
func TestSourcesListed(t *testing.T) {
	settingsBin.Path(t)
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(wd, "..", "..", "..")
	for _, want := range []string{
		filepath.Join(wd, "testdata", "settings", "main.go"),
		filepath.Join(root, "go.mod"),
	} {
		if !slices.ContainsFunc(settingsBin.sources, func(f string) bool { return sameFile(f, want) }) {
			t.Errorf("sources lack %s: %q", want, settingsBin.sources)
		}
	}
	for _, f := range settingsBin.sources {
		if _, err := os.Stat(f); err != nil && filepath.Base(f) != "go.sum" {
			t.Errorf("listed source %s: %v", f, err)
		}
		if strings.HasPrefix(f, runtime.GOROOT()) {
			t.Errorf("listed a file of the standard library: %s", f)
		}
	}
}

func sameFile(a, b string) bool {
	ai, err1 := os.Stat(a)
	bi, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(ai, bi)
}
