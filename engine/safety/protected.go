package safety

import (
	"os"
	"path/filepath"
	"strings"
)

// AgentAreas are the runtime root's sub-directories that belong to the agent's tools (the
// default read and write roots); everything else under the root is cockpit's own state.
var AgentAreas = []string{"uploads", "imports", "runs"}

// Protected is what no agent tool may read, write, run in or mount, whatever the configured
// roots say: the runtime root (as given and with symlinks resolved) except its agent areas,
// and named files (the database, its WAL/SHM, the config and the log) wherever they live.
// Paths compare case-insensitively and by identity (same device and inode), so a different
// spelling on a case-insensitive disk, a bind mount or a hard link does not get around it.
type Protected struct {
	Roots []string // the runtime root's spellings, absolute, cleaned
	Files []string // protected files outside or inside the root, absolute, cleaned
}

// ProtectRuntime builds the protection of runtimeRoot and its state files: cockpit.db with
// its -wal, -shm and -journal companions, config.toml and cockpit.log, plus extra files (a
// database configured elsewhere). A relative root resolves against the working directory.
func ProtectRuntime(p Paths, runtimeRoot string, extra ...string) *Protected {
	g := &Protected{}
	abs, err := filepath.Abs(runtimeRoot)
	if err != nil {
		abs = runtimeRoot
	}
	abs = filepath.Clean(abs)
	g.Roots = appendUnique(g.Roots, abs)
	if res, err := p.Resolve(abs); err == nil {
		g.Roots = appendUnique(g.Roots, res)
	}
	files := []string{"cockpit.db", "cockpit.db-wal", "cockpit.db-shm", "cockpit.db-journal", "config.toml", "cockpit.log"}
	for _, f := range files {
		g.addFile(p, filepath.Join(abs, f))
	}
	for _, f := range extra {
		for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
			g.addFile(p, f+suffix)
		}
	}
	return g
}

func (g *Protected) addFile(p Paths, f string) {
	abs, err := filepath.Abs(f)
	if err != nil {
		abs = f
	}
	g.Files = appendUnique(g.Files, filepath.Clean(abs))
	if res, err := p.Resolve(abs); err == nil {
		g.Files = appendUnique(g.Files, res)
	}
}

func appendUnique(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

// withinFold is Within compared case-insensitively (a stricter test on a case-sensitive disk).
func withinFold(p, root string) bool {
	lp, lr := strings.ToLower(p), strings.ToLower(root)
	return Within(lp, lr)
}

// Check reports the protected path a resolved path falls under, if any. A path inside the
// runtime root is allowed only below one of its agent areas, spelled exactly.
func (g *Protected) Check(resolved string) (string, bool) {
	if g == nil {
		return "", false
	}
	resolved = filepath.Clean(resolved)
	for _, f := range g.Files {
		if strings.EqualFold(resolved, f) || sameFile(resolved, f) {
			return f, true
		}
	}
	for _, r := range g.Roots {
		if !withinFold(resolved, r) {
			continue
		}
		// A case variant whose bytes do not line up with the root's (a letter whose other
		// case has another length) cannot be split at the root: refused as the root.
		if len(resolved) < len(r) || !strings.EqualFold(resolved[:len(r)], r) || !inAgentArea(resolved[len(r):]) {
			return r, true
		}
	}
	// The same directory under another name (a bind mount, a case variant): compare each
	// existing ancestor with the root by identity.
	for a := resolved; ; a = filepath.Dir(a) {
		for _, r := range g.Roots {
			if sameFile(a, r) && !inAgentArea(strings.TrimPrefix(resolved, a)) {
				return r, true
			}
		}
		if a == "/" || a == "." {
			break
		}
	}
	return "", false
}

// Overlaps reports the protected path a resolved directory overlaps: one it is inside (as
// Check), or one inside it — a root like "~" that contains the runtime root.
func (g *Protected) Overlaps(resolvedDir string) (string, bool) {
	if g == nil {
		return "", false
	}
	if p, ok := g.Check(resolvedDir); ok {
		return p, true
	}
	dir := filepath.Clean(resolvedDir)
	for _, p := range append(append([]string(nil), g.Roots...), g.Files...) {
		if withinFold(p, dir) {
			return p, true
		}
		for a := filepath.Dir(p); ; a = filepath.Dir(a) {
			if sameFile(a, dir) {
				return p, true
			}
			if a == "/" || a == "." {
				break
			}
		}
	}
	return "", false
}

// inAgentArea reports whether rel ("/uploads/x", relative to the root, with its leading
// slash) lies in one of the agent areas.
func inAgentArea(rel string) bool {
	first, _, _ := strings.Cut(strings.TrimPrefix(rel, "/"), "/")
	for _, a := range AgentAreas {
		if first == a {
			return true
		}
	}
	return false
}

// sameFile reports whether a and b both exist and are the same file or directory.
func sameFile(a, b string) bool {
	sa, err := os.Stat(a)
	if err != nil {
		return false
	}
	sb, err := os.Stat(b)
	return err == nil && os.SameFile(sa, sb)
}
