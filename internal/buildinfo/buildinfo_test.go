package buildinfo

import (
	"runtime/debug"
	"testing"
)

func TestFromBuildInfo(t *testing.T) {
	t.Parallel()
	base := Info{Version: Devel, Go: "go0", Platform: "linux/amd64"}
	vcs := []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "abc123"},
		{Key: "vcs.time", Value: "2026-01-02T03:04:05Z"}, {Key: "vcs.modified", Value: "true"}}
	cases := []struct {
		name string
		bi   debug.BuildInfo
		want Info
	}{
		{"go test", debug.BuildInfo{GoVersion: "go1.26.8"},
			Info{Version: Devel, Go: "go1.26.8", Platform: "linux/amd64"}},
		{"go run", debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/slashd/slashd", Version: "(devel)"}},
			Info{Version: Devel, Go: "go1.26.8", Platform: "linux/amd64"}},
		{"go install @v1.2.3", debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.2.3"}},
			Info{Version: "v1.2.3", Go: "go1.26.8", Platform: "linux/amd64"}},
		{"go build in a clone", debug.BuildInfo{GoVersion: "go1.26.8",
			Main: debug.Module{Version: "v0.0.0-20260102030405-abc123abc123+dirty"}, Settings: vcs},
			Info{Version: "v0.0.0-20260102030405-abc123abc123+dirty", Revision: "abc123", Time: "2026-01-02T03:04:05Z",
				Modified: true, Go: "go1.26.8", Platform: "linux/amd64"}},
	}
	for _, tc := range cases {
		if got := fromBuildInfo(base, &tc.bi); got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

// TestReadStamp: the linker's stamp wins over the toolchain's record.
func TestReadStamp(t *testing.T) {
	t.Parallel()
	plain := Read(Info{})
	if plain.Version == "" || plain.Go == "" || plain.Platform == "" {
		t.Errorf("Read: %+v, want a version, a Go and a platform", plain)
	}
	got := Read(Info{Version: "v9.9.9", Revision: "def", Time: "2026-05-06T07:08:09Z", Modified: true})
	want := Info{Version: "v9.9.9", Revision: "def", Time: "2026-05-06T07:08:09Z", Modified: true, Go: plain.Go, Platform: plain.Platform}
	if got != want {
		t.Errorf("stamped: %+v, want %+v", got, want)
	}
	if got := Read(Info{Version: "v9.9.9"}); got.Version != "v9.9.9" || got.Revision != plain.Revision {
		t.Errorf("a version stamp alone: %+v", got)
	}
}
