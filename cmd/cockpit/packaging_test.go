package main

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// unitFile reads a systemd unit's Key=Value lines (a key set twice keeps every value).
func unitFile(t *testing.T, path string) map[string][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	kv := map[string][]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "[") {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			t.Fatalf("%s: %q is not Key=Value", path, line)
		}
		kv[k] = append(kv[k], v)
	}
	return kv
}

// TestSystemdUnits: each packaged unit runs a real cockpit verb with flags that verb has, on
// the runtime root it may write and nothing else, as the cockpit-trading user, hardened; and
// the release config ships every unit.
func TestSystemdUnits(t *testing.T) {
	const root = "/var/lib/cockpit-trading"
	units, err := filepath.Glob("../../packaging/systemd/*.service")
	if err != nil || len(units) != 3 {
		t.Fatalf("units = %v (%v), want serve-mcp, serve-ssh and fleet", units, err)
	}
	release, err := os.ReadFile("../../.goreleaser.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range units {
		t.Run(filepath.Base(u), func(t *testing.T) {
			kv := unitFile(t, u)
			exec := strings.Fields(strings.Join(kv["ExecStart"], " "))
			if len(exec) < 2 || exec[0] != "/usr/bin/cockpit" {
				t.Fatalf("ExecStart = %q, want /usr/bin/cockpit VERB …", exec)
			}
			var verb, flags []string
			for i, a := range exec[1:] {
				if strings.HasPrefix(a, "--") {
					flags = append(flags, exec[1+i:]...)
					break
				}
				verb = append(verb, a)
			}
			help, errOut, code := run(t, t.TempDir(), "", append(append([]string{}, verb...), "--help")...)
			if code != exitOK {
				t.Fatalf("cockpit %s --help: exit %d %s", strings.Join(verb, " "), code, errOut)
			}
			home := ""
			for i, f := range flags {
				if !strings.HasPrefix(f, "--") {
					continue
				}
				name, _, _ := strings.Cut(strings.TrimPrefix(f, "--"), "=")
				if !strings.Contains(help, "\n  -"+name+" ") && !strings.Contains(help, "\n  -"+name+"\n") {
					t.Errorf("ExecStart passes --%s, which `cockpit %s` does not have", name, strings.Join(verb, " "))
				}
				if name == "home" && i+1 < len(flags) {
					home = flags[i+1]
				}
			}
			for key, want := range map[string]string{"ReadWritePaths": root, "User": "cockpit-trading", "NoNewPrivileges": "yes",
				"ProtectSystem": "strict", "ProtectHome": "yes", "PrivateTmp": "yes", "Environment": "COCKPIT_HOME=" + root} {
				if got := strings.Join(kv[key], " "); got != want {
					t.Errorf("%s=%q, want %q", key, got, want)
				}
			}
			if home != root {
				t.Errorf("ExecStart --home %q, want the writable root %s", home, root)
			}
			if !strings.Contains(string(release), "src: packaging/systemd/"+filepath.Base(u)) {
				t.Errorf(".goreleaser.yaml does not package %s", filepath.Base(u))
			}
		})
	}
}

// TestReleaseStampsVersion: the release config and the Dockerfile stamp the variables
// `cockpit --version` reads (packaging/check.sh builds a snapshot and runs it).
func TestReleaseStampsVersion(t *testing.T) {
	for _, f := range []string{"../../.goreleaser.yaml", "../../Dockerfile"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"-X cockpit/internal/buildinfo.version=", "-X cockpit/internal/buildinfo.commit="} {
			if !strings.Contains(string(b), want) {
				t.Errorf("%s does not stamp %q", f, want)
			}
		}
	}
}
