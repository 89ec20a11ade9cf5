package wasmplugin_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// The modules are built once per test binary with the installed toolchain.
var (
	buildDir  string
	buildMu   sync.Mutex
	built     = map[string]string{}
	buildErrs = map[string]error{}
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "wasmplugin-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	buildDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// sources maps a module name to its Go package, relative to this package.
var sources = map[string]string{
	"meanrev":   "../../../examples/plugins/meanrev",
	"loop":      "./testdata/loop",
	"bomb":      "./testdata/bomb",
	"trap":      "./testdata/trap",
	"ungranted": "./testdata/ungranted",
	"bench":     "./testdata/bench",
}

// module returns the path of a built module, building it on first use.
func module(tb testing.TB, name string) string {
	tb.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		tb.Skip("the go toolchain is not on PATH: cannot build the wasip1 plugin modules")
	}
	buildMu.Lock()
	defer buildMu.Unlock()
	if p, ok := built[name]; ok {
		return p
	}
	if err := buildErrs[name]; err != nil {
		tb.Fatal(err)
	}
	out := filepath.Join(buildDir, name+".wasm")
	cmd := exec.Command(goBin, "build", "-buildmode=c-shared", "-o", out, sources[name])
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
	if b, err := cmd.CombinedOutput(); err != nil {
		buildErrs[name] = fmt.Errorf("build %s: %v\n%s", name, err, b)
		tb.Fatal(buildErrs[name])
	}
	built[name] = out
	return out
}
