package safety

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// The oracle vectors (cmd/conformance) pin the reference's behaviour; these tests cover what
// cockpit adds or relies on beyond them.

func TestNumericHost(t *testing.T) {
	tests := []struct {
		host string
		want string // "" = not numeric
	}{
		{"127.0.0.1", "127.0.0.1"},
		{"127.1", "127.0.0.1"},
		{"0x7f.0.0.1", "127.0.0.1"},
		{"2130706433", "127.0.0.1"},
		{"017700000001", "127.0.0.1"},
		{"10.0x10000", "10.1.0.0"},
		{"::1", "::1"},
		{"::ffff:127.0.0.1", "::ffff:127.0.0.1"},
		{"127.0.0.1.", ""},
		{"256.1.1.1", ""},
		{"1.2.3.4.5", ""},
		{"4294967296", ""},
		{"08.1.1.1", ""}, // 08 is not octal
		{"example.com", ""},
		{"", ""},
		{"1..1", ""},
	}
	for _, tt := range tests {
		a, ok := NumericHost(tt.host)
		got := ""
		if ok {
			got = a.String()
		}
		if got != tt.want {
			t.Errorf("NumericHost(%q) = %q, want %q", tt.host, got, tt.want)
		}
	}
}

type mapResolver map[string][]string

func (m mapResolver) Resolve(_ context.Context, host string) ([]string, error) {
	if a, ok := m[host]; ok {
		return a, nil
	}
	return nil, ErrNoSuchHost
}

func TestValidateURLTarget(t *testing.T) {
	r := mapResolver{
		"public.test":   {"93.184.216.34"},
		"rebind.test":   {"93.184.216.34", "10.0.0.5"}, // one private answer is enough to refuse
		"local.test":    {"127.0.0.1", "::1"},
		"mixed.test":    {"127.0.0.1", "93.184.216.34"},
		"metadata.test": {"169.254.169.254"},
	}
	tests := []struct {
		url      string
		loopback bool
		ok       bool
		msg      string
	}{
		{"https://public.test/x", false, true, ""},
		{"https://rebind.test/", false, false, "private/internal address 10.0.0.5"},
		{"http://metadata.test/latest", false, false, "169.254.169.254"},
		{"http://local.test:8080/", false, false, "127.0.0.1"},
		{"http://local.test:8080/", true, true, ""},
		{"http://mixed.test/", true, false, "127.0.0.1"},
		{"ftp://public.test/", false, false, "Only http/https allowed, got 'ftp'"},
		{"https://nowhere.test/", false, false, "Cannot resolve hostname: nowhere.test"},
		{"https:///path", false, false, "Missing domain"},
	}
	for _, tt := range tests {
		ok, msg := ValidateURLTarget(context.Background(), tt.url, tt.loopback, r)
		if ok != tt.ok || !strings.Contains(msg, tt.msg) {
			t.Errorf("ValidateURLTarget(%q, loopback=%v) = %v %q, want %v containing %q", tt.url, tt.loopback, ok, msg, tt.ok, tt.msg)
		}
	}
}

func TestWebReaderAllowed(t *testing.T) {
	tests := []struct {
		url  string
		want bool
	}{
		{"https://example.com/a", true},
		{"  https://example.com/a  ", true},
		{"http://localhost/", false},
		{"http://api.localhost/", false},
		{"http://printer.local/", false},
		{"http://user:pw@example.com/", false},
		{"http://10.1.2.3/", false},
		{"http://[::1]/", false},
		{"http://8.8.8.8/", true},
		{"file:///etc/passwd", false},
		{"javascript:alert(1)", false},
	}
	for _, tt := range tests {
		if got := WebReaderAllowed(tt.url); got != tt.want {
			t.Errorf("WebReaderAllowed(%q) = %v, want %v", tt.url, got, tt.want)
		}
	}
}

func TestHostGuard(t *testing.T) {
	allowed := ParseAllowedHosts(" Example.COM:8080, *.Trusted.io ,[::1]:9000")
	if want := []string{"example.com", "*.trusted.io", "::1"}; !reflect.DeepEqual(allowed, want) {
		t.Fatalf("ParseAllowedHosts = %q, want %q", allowed, want)
	}
	if got := ParseAllowedHosts(" , "); !reflect.DeepEqual(got, []string{"127.0.0.1", "::1", "localhost"}) {
		t.Errorf("empty list = %q, want the loopback defaults", got)
	}
	tests := []struct {
		host string
		want bool
	}{
		{"example.com", true},
		{"www.example.com", false},
		{"trusted.io", true},
		{"a.b.trusted.io", true},
		{"eviltrusted.io", false},
		{"::1", true},
		{"127.0.0.1", false},
	}
	for _, tt := range tests {
		if got := HostMatches(tt.host, allowed); got != tt.want {
			t.Errorf("HostMatches(%q) = %v, want %v", tt.host, got, tt.want)
		}
	}
	null, evil, ok := "null", "https://evil.test", "https://a.trusted.io:443"
	for _, c := range []struct {
		origin *string
		want   bool
	}{{nil, true}, {&null, false}, {&evil, false}, {&ok, true}} {
		if got := OriginAllowed(c.origin, allowed); got != c.want {
			t.Errorf("OriginAllowed(%v) = %v, want %v", c.origin, got, c.want)
		}
	}
}

// TestSafePathSymlinks: containment is decided on the resolved path, so a link inside the
// workspace that points out of it is refused, and so is a dangling link aimed outside.
func TestSafePathSymlinks(t *testing.T) {
	ws := t.TempDir()
	outside := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(ws, "sub"), 0o755))
	must(t, os.WriteFile(filepath.Join(outside, "secret"), []byte("x"), 0o600))
	must(t, os.Symlink(outside, filepath.Join(ws, "out")))
	must(t, os.Symlink(filepath.Join(outside, "later"), filepath.Join(ws, "dangling")))
	must(t, os.Symlink(filepath.Join(ws, "sub"), filepath.Join(ws, "in")))
	p := Paths{Home: t.TempDir(), Cwd: ws, DirName: ".cockpit", EnvPrefix: "COCKPIT_", Getenv: func(string) string { return "" }}
	real, err := filepath.EvalSymlinks(ws)
	must(t, err)
	tests := []struct {
		path string
		want string // "" = refused
	}{
		{"sub/file.txt", real + "/sub/file.txt"},
		{"in/file.txt", real + "/sub/file.txt"},
		{"sub/../sub/new.txt", real + "/sub/new.txt"},
		{real + "/sub/abs.txt", real + "/sub/abs.txt"},
		{"../escape.txt", ""},
		{"out/secret", ""},
		{"dangling", ""},
		{"sub/../../x", ""},
		{"/etc/passwd", ""},
		{`\\server\share`, ""},
		{"//server/share", ""},
	}
	for _, tt := range tests {
		got, err := p.SafePath(tt.path, ws)
		if tt.want == "" {
			var pe *PathError
			if err == nil || !errors.As(err, &pe) {
				t.Errorf("SafePath(%q) = %q, %v; want a PathError", tt.path, got, err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("SafePath(%q) = %q, %v; want %q", tt.path, got, err, tt.want)
		}
	}
}

func TestSplitCommand(t *testing.T) {
	tests := []struct {
		cmd  string
		want []string // nil = refused
	}{
		{"ls -la", []string{"ls", "-la"}},
		{`grep "two words" 'file name.txt'`, []string{"grep", "two words", "file name.txt"}},
		{`echo a""b`, []string{"echo", "ab"}},
		{"ls; rm -rf /", nil},
		{"cat a | sh", nil},
		{"echo $(id)", nil},
		{"echo `id`", nil},
		{`echo "$HOME"`, nil},
		{"ls *.go", nil},
		{"ls ~", nil},
		{"a && b", nil},
		{"echo 'unterminated", nil},
		{"echo a\nrm b", nil},
		{"   ", nil},
	}
	for _, tt := range tests {
		got, err := SplitCommand(tt.cmd)
		if tt.want == nil {
			if err == nil {
				t.Errorf("SplitCommand(%q) = %q, want a refusal", tt.cmd, got)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("SplitCommand(%q) = %q, %v; want %q", tt.cmd, got, err, tt.want)
		}
	}
}

func TestBroadPythonKill(t *testing.T) {
	tests := []struct {
		cmd  string
		want bool
	}{
		{"pkill python", true},
		{"killall python3", true},
		{"echo hi; pkill -f python", true},
		{`taskkill /IM "python.exe" /F`, true},
		{"kill 12345", false},
		{"python -c 'print(1)'", false},
		{"ls && echo python", false},
	}
	for _, tt := range tests {
		if got := BroadPythonKill(tt.cmd); got != tt.want {
			t.Errorf("BroadPythonKill(%q) = %v, want %v", tt.cmd, got, tt.want)
		}
	}
}

func TestRedactInternalPaths(t *testing.T) {
	roots := InternalRoots("/srv/cockpit/home", "/srv/cockpit/home", "")
	got := RedactInternalPaths("failed reading /srv/cockpit/home/live/HALT and /tmp/x", roots)
	if strings.Contains(got, "/srv/cockpit/home") || !strings.Contains(got, "/tmp/x") {
		t.Errorf("RedactInternalPaths = %q: the internal root must go, other paths stay", got)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
