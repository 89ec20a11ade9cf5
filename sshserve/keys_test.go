package sshserve

import (
	"crypto/ed25519"
	"crypto/rand"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	gossh "golang.org/x/crypto/ssh"
)

func pubLine(t *testing.T) string {
	t.Helper()
	pub, _, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	k, err := gossh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(gossh.MarshalAuthorizedKey(k)))
}

// TestParseAuthorizedKeys: a role prefix on every key line; anything else refuses the whole
// file with the line's number.
func TestParseAuthorizedKeys(t *testing.T) {
	a, b := pubLine(t), pubLine(t)
	tests := []struct {
		name, file string
		wantErr    string
		wantIDs    []string // Name (Role)
	}{
		{"roles and comments", "# ops\n\nrole=viewer " + a + " alice@laptop\nrole=admin " + b + "\n", "", []string{"alice@laptop viewer", "SHA256: admin"}},
		{"no role", "role=viewer " + a + " alice\n" + b + " bob\n", "line 2: no role", nil},
		{"unknown role", "role=root " + a + " alice\n", `line 1: role="root"`, nil},
		{"option instead of role", `from="10.0.0.1" ` + a + " alice\n", "line 1: no role", nil},
		{"OpenSSH options after the role", "role=viewer no-pty " + a + " alice\n", "line 1:", nil},
		{"not a key", "role=viewer ssh-ed25519 AAAAnope alice\n", "line 1:", nil},
		{"same key twice", "role=viewer " + a + " alice\nrole=admin " + a + " alice2\n", "line 2: the key of line 1 again", nil},
		{"same comment twice", "role=viewer " + a + " alice\nrole=admin " + b + " alice\n", `line 2: "alice" is already line 1's name`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ids, err := ParseAuthorizedKeys([]byte(tt.file))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want it to contain %q", err, tt.wantErr)
				}
				if ids != nil {
					t.Fatalf("a refused file still gave keys: %+v", ids)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, id := range ids {
				n := id.Name()
				if strings.HasPrefix(n, "SHA256:") {
					n = "SHA256:"
				}
				got = append(got, n+" "+id.Role.String())
			}
			if strings.Join(got, "|") != strings.Join(tt.wantIDs, "|") {
				t.Fatalf("got %q, want %q", got, tt.wantIDs)
			}
		})
	}
}

// TestKeyFileUnreadable: a missing file authorizes nobody.
func TestKeyFileUnreadable(t *testing.T) {
	f := &KeyFile{Path: filepath.Join(t.TempDir(), "authorized_keys")}
	if _, err := f.Load(); err == nil {
		t.Fatal("a missing file loaded")
	}
	k, _ := gossh.ParsePublicKey(mustKey(t).PublicKey().Marshal())
	if _, ok := f.Lookup(k); ok {
		t.Fatal("a missing file authorized a key")
	}
}

func mustKey(t *testing.T) gossh.Signer {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	s, err := gossh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestHostKey: generated once with mode 0600, the same key on the next start; a key file
// others may read is refused.
func TestHostKey(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ssh", "host_ed25519")
	first, err := HostKey(path)
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := st.Mode().Perm(); got != 0o600 {
		t.Fatalf("host key mode %o, want 600", got)
	}
	again, err := HostKey(path)
	if err != nil {
		t.Fatal(err)
	}
	if gossh.FingerprintSHA256(first.PublicKey()) != gossh.FingerprintSHA256(again.PublicKey()) {
		t.Fatal("the host key changed between starts")
	}
	if first.PublicKey().Type() != gossh.KeyAlgoED25519 {
		t.Fatalf("host key type %s, want ed25519", first.PublicKey().Type())
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := HostKey(path); err == nil || !strings.Contains(err.Error(), "others may read it") {
		t.Fatalf("a 0644 host key: err = %v", err)
	}
}

// TestListenLoopbackOnly: a non-loopback address needs allowRemote.
func TestListenLoopbackOnly(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", ":0", "192.0.2.1:2222"} {
		if ln, err := Listen(addr, false); err == nil {
			ln.Close()
			t.Errorf("Listen(%q) without allowRemote: accepted", addr)
		} else if !strings.Contains(err.Error(), "--allow-remote") {
			t.Errorf("Listen(%q): %v, want it to name --allow-remote", addr, err)
		}
	}
	for _, addr := range []string{"127.0.0.1:0", "localhost:0"} {
		ln, err := Listen(addr, false)
		if err != nil {
			t.Fatalf("Listen(%q): %v", addr, err)
		}
		if !net.ParseIP(hostOf(ln.Addr())).IsLoopback() {
			t.Errorf("Listen(%q) is on %s", addr, ln.Addr())
		}
		ln.Close()
	}
}

// TestKeyFileWritableByOthersRefused: an authorized_keys file that group or others may write
// authorizes nobody (anyone who can write it could add their own operator key), as OpenSSH's
// StrictModes does; 0600 and 0644 load.
func TestKeyFileWritableByOthersRefused(t *testing.T) {
	pub := string(gossh.MarshalAuthorizedKey(mustKey(t).PublicKey()))
	for _, tt := range []struct {
		mode os.FileMode
		ok   bool
	}{{0o600, true}, {0o644, true}, {0o664, false}, {0o606, false}} {
		f := &KeyFile{Path: filepath.Join(t.TempDir(), "authorized_keys")}
		if err := os.WriteFile(f.Path, []byte("role=viewer "+pub), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(f.Path, tt.mode); err != nil {
			t.Fatal(err)
		}
		_, err := f.Load()
		if got := err == nil; got != tt.ok {
			t.Errorf("mode %#o: loaded %v (%v), want %v", tt.mode, got, err, tt.ok)
		}
	}
}
