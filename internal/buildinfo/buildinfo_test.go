package buildinfo

import (
	"runtime/debug"
	"testing"
)

func TestFrom(t *testing.T) {
	vcs := func(rev, modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified}}
	}
	tests := []struct {
		name            string
		version, commit string
		bi              *debug.BuildInfo
		want            Info
	}{
		{"stamped wins", "1.2.3", "abc123", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v9.9.9"}, Settings: vcs("fff", "true")},
			Info{Version: "1.2.3", Commit: "abc123", Go: "go1.26.8"}},
		{"go build in a clean checkout", "", "", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}, Settings: vcs("0123456789abcdef", "false")},
			Info{Version: "dev", Commit: "0123456789abcdef", Go: "go1.26.8"}},
		{"modified tree", "", "", &debug.BuildInfo{GoVersion: "go1.26.8", Settings: vcs("0123", "true")},
			Info{Version: "dev", Commit: "0123-dirty", Go: "go1.26.8"}},
		{"go install at a version", "", "", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.4.0"}},
			Info{Version: "v1.4.0", Commit: "unknown", Go: "go1.26.8"}},
		{"no build info", "", "", nil, Info{Version: "dev", Commit: "unknown", Go: "unknown"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := From(tt.version, tt.commit, tt.bi); got != tt.want {
				t.Errorf("From = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestString(t *testing.T) {
	got := Info{Version: "1.2.3", Commit: "abc", Go: "go1.26.8"}.String()
	if want := "cockpit 1.2.3 (commit abc, go1.26.8)"; got != want {
		t.Errorf("String = %q, want %q", got, want)
	}
}
