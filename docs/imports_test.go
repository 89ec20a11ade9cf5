package docs

import (
	"bufio"
	"bytes"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestImportRules holds the import rules architecture.md states, read from `go list`.
func TestImportRules(t *testing.T) {
	imports := packageImports(t)
	for _, r := range importRules {
		for pkg := range imports {
			if !r.applies(pkg) {
				continue
			}
			for _, dep := range deps(imports, pkg) {
				if slices.ContainsFunc(r.never, func(p string) bool { return under(dep, p) }) {
					t.Errorf("%s depends on %s: %s", pkg, dep, r.why)
				}
			}
		}
	}
	// live itself: value packages only.
	for _, dep := range imports["cockpit/live"] {
		if strings.HasPrefix(dep, "cockpit/") && !slices.Contains([]string{"cockpit/live/jsonv", "cockpit/live/money", "cockpit/live/pystr"}, dep) {
			t.Errorf("cockpit/live imports %s; architecture.md says it imports only live/jsonv, live/money and live/pystr", dep)
		}
	}
	// The one read model is what these read state through.
	for _, pkg := range []string{"cockpit/session", "cockpit/tui", "cockpit/sshserve", "cockpit/cmd/cockpit"} {
		if !slices.Contains(imports[pkg], "cockpit/readmodel") {
			t.Errorf("%s does not import cockpit/readmodel", pkg)
		}
	}
	for _, never := range []string{"cockpit/store", "cockpit/session"} {
		if slices.Contains(imports["cockpit/tui"], never) {
			t.Errorf("cockpit/tui imports %s; it reads through its Backend", never)
		}
	}
}

// TestImportRulesCatchAViolation: the rule check sees an import it forbids, directly or
// through another package.
func TestImportRulesCatchAViolation(t *testing.T) {
	imports := map[string][]string{
		"cockpit/live/gate": {"cockpit/live/x"},
		"cockpit/live/x":    {"cockpit/store"},
		"cockpit/store":     {"cockpit/live"},
	}
	got := deps(imports, "cockpit/live/gate")
	if !slices.Contains(got, "cockpit/store") {
		t.Errorf("deps(live/gate) = %q, want it to reach cockpit/store through live/x", got)
	}
	r := importRules[0]
	if !r.applies("cockpit/live/gate") || r.applies("cockpit/livestock") {
		t.Errorf("the live rule applies to the wrong packages")
	}
}

type importRule struct {
	pkg   string   // the package and those under it
	never []string // none of these (or packages under them) may be among its dependencies
	why   string
}

func (r importRule) applies(pkg string) bool { return under(pkg, r.pkg) }

var importRules = []importRule{
	{"cockpit/live", []string{"cockpit/engine", "cockpit/tui", "cockpit/store", "cockpit/session", "cockpit/fleet", "cockpit/readmodel", "cockpit/sshserve", "cockpit/notify", "cockpit/cmd"},
		"live imports nothing from engine, tui, store, session, fleet or readmodel"},
	{"cockpit/session", []string{"cockpit/tui", "cockpit/themes", "cockpit/sshserve"}, "session has no screen types"},
	{"cockpit/readmodel", []string{"cockpit/engine", "cockpit/session", "cockpit/tui", "cockpit/sshserve", "cockpit/fleet", "cockpit/cmd"},
		"the read model is imported by the windows, not the other way round"},
	{"cockpit/store", []string{"cockpit/engine", "cockpit/session", "cockpit/tui", "cockpit/readmodel"}, "store serves the domain's interfaces"},
}

// under reports pkg is p or a package under it.
func under(pkg, p string) bool { return pkg == p || strings.HasPrefix(pkg, p+"/") }

// deps is every cockpit package pkg depends on, directly or not.
func deps(imports map[string][]string, pkg string) []string {
	seen := map[string]bool{}
	var walk func(string)
	walk = func(p string) {
		for _, d := range imports[p] {
			if strings.HasPrefix(d, "cockpit/") && !seen[d] {
				seen[d] = true
				walk(d)
			}
		}
	}
	walk(pkg)
	var out []string
	for d := range seen {
		out = append(out, d)
	}
	slices.Sort(out)
	return out
}

// packageImports is each cockpit package's non-test imports, from `go list ./...`.
func packageImports(t *testing.T) map[string][]string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH: the import rules are not checked")
	}
	cmd := exec.Command(goTool, "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "./...")
	cmd.Dir = ".."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	imports := map[string][]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) > 0 {
			imports[f[0]] = f[1:]
		}
	}
	if len(imports) < 10 || imports["cockpit/live"] == nil {
		t.Fatalf("go list gave %d packages, without cockpit/live: %s", len(imports), out)
	}
	return imports
}
