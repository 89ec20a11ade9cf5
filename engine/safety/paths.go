package safety

import (
	"errors"
	"io/fs"
	"os"
	"os/user"
	"path"
	"strings"

	"cockpit/live/jsonv"
	"cockpit/live/pystr"
)

// PathError is a refused path, typed like the reference's exceptions (ValueError,
// RuntimeError, WorkspaceScopeError) so messages and types compare with its vectors.
type PathError struct {
	Type string
	Msg  string
}

func (e *PathError) Error() string { return e.Msg }

func valueErr(msg string) error { return &PathError{Type: "ValueError", Msg: msg} }

// Paths resolves and contains paths the way the reference's path_utils does, with every
// input injected: the package root, the user's home, the working directory, the runtime
// root's directory name and the environment (COCKPIT_HOME and COCKPIT_ALLOWED_*_ROOTS).
type Paths struct {
	Agent     string                            // the installed package root (A)
	Home      string                            // the user's home directory (~)
	Cwd       string                            // relative paths resolve here
	DirName   string                            // the default runtime root under home, ".cockpit"
	EnvPrefix string                            // "COCKPIT_": COCKPIT_HOME, COCKPIT_ALLOWED_FILE_ROOTS, …
	Getenv    func(string) string               // nil: os.Getenv
	User      func(name string) (string, error) // ~name lookup; nil: os/user
}

// DefaultPaths are cockpit's: the runtime root's directory as the package root, the real
// home and working directory, COCKPIT_* variables.
func DefaultPaths(runtimeRoot string) Paths {
	home, _ := os.UserHomeDir()
	cwd, _ := os.Getwd()
	return Paths{Agent: runtimeRoot, Home: home, Cwd: cwd, DirName: ".cockpit", EnvPrefix: "COCKPIT_"}
}

func (p Paths) env(name string) string {
	if p.Getenv != nil {
		return p.Getenv(p.EnvPrefix + name)
	}
	return os.Getenv(p.EnvPrefix + name)
}

// rejectUNC refuses "\\" and "//" prefixes (and so "///").
func rejectUNC(s string) error {
	if strings.HasPrefix(s, `\\`) || strings.HasPrefix(s, "//") {
		return valueErr("UNC paths are not allowed: " + pystr.Repr(s))
	}
	return nil
}

// purePath normalises like pathlib.Path(s): repeated slashes and "." parts go, ".." stays,
// no trailing slash; "" is ".".
func purePath(s string) string {
	abs := strings.HasPrefix(s, "/")
	var parts []string
	for _, c := range strings.Split(s, "/") {
		if c != "" && c != "." {
			parts = append(parts, c)
		}
	}
	out := strings.Join(parts, "/")
	switch {
	case abs:
		return "/" + out
	case out == "":
		return "."
	}
	return out
}

// parts are pathlib's parts of a relative path.
func parts(s string) []string {
	p := purePath(s)
	if p == "." {
		return nil
	}
	return strings.Split(strings.TrimPrefix(p, "/"), "/")
}

// expandUser is pathlib's expanduser: "~" and "~/…" from the home directory, "~name/…" from
// the user database; an unknown user is a RuntimeError.
func (p Paths) expandUser(s string) (string, error) {
	if !strings.HasPrefix(s, "~") {
		return s, nil
	}
	first, rest, _ := strings.Cut(purePath(s), "/")
	var home string
	if first == "~" {
		home = p.Home
	} else {
		lookup := p.User
		if lookup == nil {
			lookup = func(name string) (string, error) {
				u, err := user.Lookup(name)
				if err != nil {
					return "", err
				}
				return u.HomeDir, nil
			}
		}
		h, err := lookup(first[1:])
		if err != nil || h == "" {
			return "", &PathError{Type: "RuntimeError", Msg: "Could not determine home directory."}
		}
		home = h
	}
	if rest == "" {
		return home, nil
	}
	return home + "/" + rest, nil
}

// Resolve is pathlib's non-strict resolve(): relative to Cwd, every existing symlink
// followed (dangling ones too), missing tails kept as written, ".." applied to the resolved
// prefix.
func (p Paths) Resolve(s string) (string, error) {
	if strings.ContainsRune(s, 0) {
		return "", valueErr("embedded null byte")
	}
	if !strings.HasPrefix(s, "/") {
		s = p.Cwd + "/" + s
	}
	out, ok := realpath("", s, map[string]*string{})
	if !ok {
		return "", &PathError{Type: "RuntimeError", Msg: "Symlink loop from " + pystr.Repr(s)}
	}
	return path.Clean("/" + strings.TrimPrefix(out, "/")), nil
}

// realpath is posixpath._joinrealpath.
func realpath(base, rest string, seen map[string]*string) (string, bool) {
	if strings.HasPrefix(rest, "/") {
		rest, base = rest[1:], "/"
	}
	for rest != "" {
		var name string
		name, rest, _ = strings.Cut(rest, "/")
		switch name {
		case "", ".":
			continue
		case "..":
			if base == "" {
				base = ".."
			} else {
				dir, last := path.Split(base)
				if dir != "/" {
					dir = strings.TrimSuffix(dir, "/")
				}
				base = dir
				if last == ".." {
					base = path.Join(base, "..", "..")
				}
			}
			continue
		}
		next := join(base, name)
		st, err := os.Lstat(next)
		if err != nil || st.Mode()&fs.ModeSymlink == 0 {
			base = next
			continue
		}
		if prev, ok := seen[next]; ok {
			if prev != nil {
				base = *prev
				continue
			}
			return join(next, rest), false // a loop
		}
		seen[next] = nil
		target, err := os.Readlink(next)
		if err != nil {
			base = next
			continue
		}
		resolved, ok := realpath(base, target, seen)
		if !ok {
			return join(resolved, rest), false
		}
		base = resolved
		seen[next] = &resolved
	}
	return base, true
}

func join(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	case strings.HasSuffix(a, "/"):
		return a + b
	}
	return a + "/" + b
}

// Within reports whether resolved path lies at or under resolved root (component-wise).
func Within(p, root string) bool {
	return p == root || root == "/" || strings.HasPrefix(p, root+"/")
}

// ResolveUser resolves a path someone typed (configuration, a tool argument): UNC paths are
// refused, "~" and "~name" expanded, then Resolve.
func (p Paths) ResolveUser(s string) (string, error) {
	if err := rejectUNC(s); err != nil {
		return "", err
	}
	x, err := p.expandUser(s)
	if err != nil {
		return "", err
	}
	return p.Resolve(x)
}

// SafePath resolves p inside workdir; it refuses anything that ends up outside.
func (p Paths) SafePath(s, workdir string) (string, error) {
	if err := rejectUNC(s); err != nil {
		return "", err
	}
	base, err := p.Resolve(workdir)
	if err != nil {
		return "", err
	}
	exp, err := p.expandUser(s)
	if err != nil {
		return "", err
	}
	target := base + "/" + s
	if strings.HasPrefix(exp, "/") {
		target = exp
	}
	cand, err := p.Resolve(target)
	if err != nil {
		return "", err
	}
	if !Within(cand, base) {
		return "", valueErr("Path " + pystr.Repr(s) + " escapes the workspace root")
	}
	return cand, nil
}

// RuntimeRoot is COCKPIT_HOME (expanded) when set, else ~/<DirName>.
func (p Paths) RuntimeRoot() (string, error) {
	if v := p.env("HOME"); pystr.Strip(v) != "" {
		if err := rejectUNC(v); err != nil {
			return "", err
		}
		return p.expandUser(v)
	}
	return p.Home + "/" + p.DirName, nil
}

// Roots resolves a default list plus the comma-separated entries of the environment variable
// EnvPrefix+envName (UNC refused, "~" expanded), dropping duplicates.
func (p Paths) Roots(defaults []string, envName string) ([]string, error) {
	var all []string
	for _, d := range defaults {
		all = append(all, d)
	}
	for _, e := range strings.Split(p.env(envName), ",") {
		e = pystr.Strip(e)
		if e == "" {
			continue
		}
		if err := rejectUNC(e); err != nil {
			return nil, err
		}
		x, err := p.expandUser(e)
		if err != nil {
			return nil, err
		}
		all = append(all, x)
	}
	var out []string
	seen := map[string]bool{}
	for _, r := range all {
		res, err := p.Resolve(r)
		if err != nil {
			return nil, err
		}
		if !seen[res] {
			seen[res] = true
			out = append(out, res)
		}
	}
	return out, nil
}

// FileRoots are where documents and user files may be read.
func (p Paths) FileRoots() ([]string, error) {
	r, err := p.RuntimeRoot()
	if err != nil {
		return nil, err
	}
	h := p.Home + "/" + p.DirName
	return p.Roots([]string{p.Agent + "/uploads", p.Agent + "/runs", p.Cwd + "/uploads", p.Cwd + "/data",
		h + "/uploads", h + "/imports", r + "/uploads", r + "/runs", r + "/imports"}, "ALLOWED_FILE_ROOTS")
}

// WriteRoots are where files may be written.
func (p Paths) WriteRoots() ([]string, error) {
	r, err := p.RuntimeRoot()
	if err != nil {
		return nil, err
	}
	h := p.Home + "/" + p.DirName
	return p.Roots([]string{p.Agent + "/uploads", p.Agent + "/runs", p.Cwd + "/uploads", h + "/uploads", h + "/runs",
		r + "/uploads", r + "/runs"}, "ALLOWED_WRITE_ROOTS")
}

// RunRoots are where run directories may live.
func (p Paths) RunRoots() ([]string, error) {
	r, err := p.RuntimeRoot()
	if err != nil {
		return nil, err
	}
	h := p.Home + "/" + p.DirName
	return p.Roots([]string{p.Agent + "/runs", p.Agent + "/.swarm/runs", r + "/swarm/runs", p.Cwd + "/runs",
		h + "/shadow_runs", h + "/runs", r + "/shadow_runs", r + "/runs"}, "ALLOWED_RUN_ROOTS")
}

const mcpHint = "Under an MCP client, set it in that client's server env block — exporting it in a shell does not reach the spawned server."

func listRoots(roots []string) string {
	var b strings.Builder
	b.WriteString("Allowed roots:")
	for _, r := range roots {
		b.WriteString("\n  - " + r)
	}
	return b.String()
}

// SafeUserPath admits a user-supplied file inside the file roots (purpose "user-file").
func (p Paths) SafeUserPath(s string) (string, error) { return p.fileRootPath(s, "user-file") }

// SafeDocumentPath admits a document inside the file roots (purpose "document").
func (p Paths) SafeDocumentPath(s string) (string, error) { return p.fileRootPath(s, "document") }

func (p Paths) fileRootPath(s, purpose string) (string, error) {
	if err := rejectUNC(s); err != nil {
		return "", err
	}
	roots, err := p.FileRoots()
	if err != nil {
		return "", err
	}
	exp, err := p.expandUser(s)
	if err != nil {
		return "", err
	}
	target := exp
	if !strings.HasPrefix(exp, "/") {
		ps := parts(exp)
		r, err := p.RuntimeRoot()
		if err != nil {
			return "", err
		}
		switch {
		case len(ps) > 0 && ps[0] == "uploads":
			target = r + "/uploads/" + strings.Join(ps[1:], "/")
		case len(ps) > 1 && ps[0] == "agent" && ps[1] == "uploads":
			target = r + "/uploads/" + strings.Join(ps[2:], "/")
		default:
			target = p.Cwd + "/" + exp
		}
	}
	cand, err := p.Resolve(target)
	if err != nil {
		return "", err
	}
	for _, root := range roots {
		if Within(cand, root) {
			return cand, nil
		}
	}
	return "", valueErr("Path " + pystr.Repr(s) + " is outside allowed " + purpose + " roots.\n" + listRoots(roots) +
		"\nSet " + p.EnvPrefix + "ALLOWED_FILE_ROOTS to add an import directory. " + mcpHint)
}

// SafeRunDir admits a run directory inside the run roots (it need not exist).
func (p Paths) SafeRunDir(s string) (string, error) {
	if err := rejectUNC(s); err != nil {
		return "", err
	}
	roots, err := p.RunRoots()
	if err != nil {
		return "", err
	}
	cand, err := p.cwdCandidate(s)
	if err != nil {
		return "", err
	}
	for _, root := range roots {
		if Within(cand, root) {
			return cand, nil
		}
	}
	return "", valueErr("run_dir " + pystr.Repr(s) + " is outside allowed run roots.\n" + listRoots(roots) +
		"\nSet " + p.EnvPrefix + "ALLOWED_RUN_ROOTS to add a run directory. " + mcpHint)
}

// cwdCandidate is expanduser(s).resolve() relative to the working directory.
func (p Paths) cwdCandidate(s string) (string, error) {
	exp, err := p.expandUser(s)
	if err != nil {
		return "", err
	}
	return p.Resolve(exp)
}

// SafeRunID finds a bare run directory name under the run roots.
func (p Paths) SafeRunID(id string) (string, error) {
	if err := rejectUNC(id); err != nil {
		return "", err
	}
	ps := parts(id)
	if pystr.Strip(id) == "" || strings.HasPrefix(id, "/") || len(ps) != 1 || ps[0] == ".." {
		return "", valueErr("run_id " + pystr.Repr(id) + " must be a bare run directory name")
	}
	roots, err := p.RunRoots()
	if err != nil {
		return "", err
	}
	for _, root := range roots {
		cand, err := p.Resolve(root + "/" + ps[0])
		if err != nil {
			continue
		}
		if st, err := os.Stat(cand); err == nil && st.IsDir() && Within(cand, root) {
			return cand, nil
		}
	}
	return "", valueErr("run_id " + pystr.Repr(id) + " was not found under allowed run roots.\n" + listRoots(roots))
}

// ResolveSafePath places a file to write: inside run_dir when it is valid and the file
// stays in it, else inside one of allowed (the reference's fallback, kept: W8).
func (p Paths) ResolveSafePath(file string, runDir *string, allowed []string, purpose string) (string, error) {
	if err := rejectUNC(file); err != nil {
		return "", err
	}
	fallback := func() (string, bool) {
		cand, err := p.cwdCandidate(file)
		if err != nil {
			return "", false
		}
		for _, r := range allowed {
			if Within(cand, r) {
				return cand, true
			}
		}
		return "", false
	}
	if runDir != nil {
		runRoot, err := p.SafeRunDir(*runDir)
		if err != nil {
			var pe *PathError
			if errors.As(err, &pe) && pe.Type == "ValueError" {
				if c, ok := fallback(); ok {
					return c, nil
				}
			}
			return "", err
		}
		c, err := p.SafePath(file, runRoot)
		if err == nil {
			return c, nil
		}
		var pe *PathError
		if errors.As(err, &pe) && pe.Type == "ValueError" {
			if c, ok := fallback(); ok {
				return c, nil
			}
			return "", valueErr("Path " + pystr.Repr(file) + " escapes run_dir " + pystr.Repr(*runDir) + " and is not in allowed " + purpose + " roots.")
		}
		return "", err
	}
	if c, ok := fallback(); ok {
		return c, nil
	}
	return "", valueErr("run_dir is required to write/edit " + pystr.Repr(file) + ", or the path must resolve inside allowed " + purpose + " roots.")
}

// IsPathWithin resolves both and checks containment (an equal path is within).
func (p Paths) IsPathWithin(s, root string) bool {
	a, err1 := p.Resolve(s)
	b, err2 := p.Resolve(root)
	return err1 == nil && err2 == nil && Within(a, b)
}

// WorkspaceScope is a client's requested workspace, resolved.
type WorkspaceScope struct {
	Root     string
	Restrict bool
}

// ScopeFromEnvelope is the reference gateway's _scope_from_envelope: a workspace_scope
// object with a non-blank string root, resolved; with the service restricting by default,
// a root outside the workspace is a WorkspaceScopeError. The flag follows Python
// truthiness ("false" is true: W10), defaulting to the service's.
func (p Paths) ScopeFromEnvelope(envelope *jsonv.Object, workspace string, defaultRestrict bool) (*WorkspaceScope, error) {
	raw, _ := envelope.Get("workspace_scope")
	scope, ok := raw.(*jsonv.Object)
	if !ok {
		return nil, nil
	}
	rv, _ := scope.Get("root")
	root, ok := rv.(string)
	if !ok || pystr.Strip(root) == "" {
		return nil, nil
	}
	resolved, err := p.cwdCandidate(root)
	if err != nil {
		return nil, err
	}
	def, err := p.cwdCandidate(workspace)
	if err != nil {
		return nil, err
	}
	if defaultRestrict && !Within(resolved, def) {
		return nil, &PathError{Type: "WorkspaceScopeError", Msg: "workspace root must stay under " + def}
	}
	restrict := defaultRestrict
	if v, ok := scope.Get("restrict_to_workspace"); ok {
		restrict = jsonv.Truthy(v)
	}
	return &WorkspaceScope{Root: resolved, Restrict: restrict}, nil
}
