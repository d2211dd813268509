// Package buildinfo says which build of slashd is running: the module
// version and the version-control revision it was built from, as the Go
// toolchain records them in the binary, or as a release build stamped
// them with the linker.
package buildinfo

import (
	"runtime"
	"runtime/debug"
)

// Devel is the version of a binary built from a checkout without a
// stamp: what go run, go test and a plain go build report.
const Devel = "(devel)"

// Info describes one build. The JSON names are those of GET /healthz and
// `slashd version --json`.
type Info struct {
	// Version is the module version: the tag for go install …@v1.2.3,
	// the release's stamp, or Devel.
	Version string `json:"version"`
	// Revision is the commit the binary was built from; empty when the
	// build recorded none (go run, go test, -buildvcs=false, a module
	// downloaded by go install).
	Revision string `json:"revision,omitempty"`
	// Time is the commit's time (RFC 3339).
	Time string `json:"time,omitempty"`
	// Modified says the checkout had uncommitted changes.
	Modified bool `json:"modified,omitempty"`
	// Go is the toolchain that built the binary.
	Go string `json:"go"`
	// Platform is GOOS/GOARCH.
	Platform string `json:"platform"`
}

// Read returns the running binary's build information. The non-empty
// fields of stamp, which a release build sets with -ldflags -X, win over
// what the toolchain recorded.
func Read(stamp Info) Info {
	info := Info{Version: Devel, Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if bi, ok := debug.ReadBuildInfo(); ok {
		info = fromBuildInfo(info, bi)
	}
	if stamp.Version != "" {
		info.Version = stamp.Version
	}
	if stamp.Revision != "" {
		info.Revision, info.Time, info.Modified = stamp.Revision, stamp.Time, stamp.Modified
	}
	return info
}

// fromBuildInfo fills info from what the toolchain recorded.
func fromBuildInfo(info Info, bi *debug.BuildInfo) Info {
	// A test binary's main module has no version: keep Devel.
	if v := bi.Main.Version; v != "" {
		info.Version = v
	}
	if bi.GoVersion != "" {
		info.Go = bi.GoVersion
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			info.Revision = s.Value
		case "vcs.time":
			info.Time = s.Value
		case "vcs.modified":
			info.Modified = s.Value == "true"
		}
	}
	return info
}
