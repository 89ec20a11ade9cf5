// Package buildinfo says which cockpit this is: the version and commit a release build stamps
// in with -ldflags, else what the Go toolchain recorded in the binary.
package buildinfo

import (
	"fmt"
	"runtime/debug"
)

// Stamped by a release build (.goreleaser.yaml):
//
//	-X cockpit/internal/buildinfo.version=1.2.3 -X cockpit/internal/buildinfo.commit=<sha>
var (
	version string
	commit  string
)

// Info is one binary's identity.
type Info struct {
	Version string // "1.2.3", a module version ("v1.2.3", "v0.0.0-…"), or "dev"
	Commit  string // the VCS revision, "<sha>-dirty" for a modified tree, or "unknown"
	Go      string // the toolchain that built it, e.g. go1.26.8
}

// String is the line `cockpit --version` prints.
func (i Info) String() string {
	return fmt.Sprintf("cockpit %s (commit %s, %s)", i.Version, i.Commit, i.Go)
}

// Read returns this binary's Info.
func Read() Info {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		bi = nil
	}
	return From(version, commit, bi)
}

// From builds an Info from stamped values, falling back to the build info (nil: none).
func From(stampedVersion, stampedCommit string, bi *debug.BuildInfo) Info {
	i := Info{Version: stampedVersion, Commit: stampedCommit, Go: "unknown"}
	if bi != nil {
		i.Go = bi.GoVersion
		if i.Version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			i.Version = bi.Main.Version
		}
		if i.Commit == "" {
			i.Commit = vcsCommit(bi.Settings)
		}
	}
	if i.Version == "" {
		i.Version = "dev"
	}
	if i.Commit == "" {
		i.Commit = "unknown"
	}
	return i
}

// vcsCommit is the revision `go build` recorded, marked -dirty when the tree was modified.
func vcsCommit(settings []debug.BuildSetting) string {
	rev, dirty := "", false
	for _, s := range settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev != "" && dirty {
		rev += "-dirty"
	}
	return rev
}
