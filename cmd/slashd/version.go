package main

import (
	"context"
	"fmt"
	"io"

	"github.com/slashd/slashd/internal/buildinfo"
)

// Release builds stamp these with the linker (tools/release):
//
//	-ldflags "-X main.version=v1.2.3 -X main.revision=<commit> -X main.revisionTime=<RFC 3339> -X main.modified=false"
//
// They are the one package-level state of the command, written only by
// the linker. Left empty, the toolchain's build information speaks: the
// module version for go install …@v1.2.3, the commit for a go build in a
// clone.
var (
	version      string
	revision     string
	revisionTime string
	modified     string
)

// currentBuild is this binary's build information.
func currentBuild() buildinfo.Info {
	return buildinfo.Read(buildinfo.Info{Version: version, Revision: revision, Time: revisionTime, Modified: modified == "true"})
}

// defineVersion is `slashd version`.
func defineVersion(fs *flagSet) runFunc {
	asJSON := fs.Bool("json", false, "print JSON: the fields GET /healthz adds to its status")
	return func(ctx context.Context, out io.Writer) error {
		info := currentBuild()
		if *asJSON {
			return printJSON(out, info)
		}
		fmt.Fprint(out, describeBuild(info))
		return nil
	}
}

// describeBuild is the text of `slashd version`.
func describeBuild(info buildinfo.Info) string {
	s := fmt.Sprintf("slashd %s\n  built with %s for %s\n", info.Version, info.Go, info.Platform)
	if info.Revision == "" {
		return s + "  revision unknown: this build recorded none (go run, go test, go build -buildvcs=false, or go install of a module)\n"
	}
	s += "  revision " + info.Revision
	if info.Modified {
		s += " with uncommitted changes"
	}
	if info.Time != "" {
		s += " (" + info.Time + ")"
	}
	return s + "\n"
}
