package sshserve

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	gossh "golang.org/x/crypto/ssh"

	"cockpit/internal/strictmode"
)

// TestSwappedKeyFileInAWritableDirectory is issue 27 item 5: with ssh/ writable by others,
// another user replaces authorized_keys with their own file (their key as admin, readable,
// not writable by others); an unknown key must not become admin, and Load names the directory.
func TestSwappedKeyFileInAWritableDirectory(t *testing.T) {
	cases := []struct {
		name     string
		dirMode  os.FileMode
		otherUID bool // the swapped file is owned by uid 4242 (needs root)
		bad      string
	}{
		{name: "OK the owner's own file", dirMode: 0o700},
		{name: "ErrSshDir0777", dirMode: 0o777, bad: "ssh"},
		{name: "ErrSshDir0777SomeoneElsesFile", dirMode: 0o777, otherUID: true, bad: "ssh"},
		{name: "ErrSshDirSticky", dirMode: 0o777 | os.ModeSticky, bad: "ssh"},
		{name: "ErrSomeoneElsesFile", dirMode: 0o700, otherUID: true, bad: "ssh/authorized_keys"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := filepath.Join(t.TempDir(), "home")
			dir := filepath.Join(root, "ssh")
			if err := os.MkdirAll(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			stranger := mustKey(t).PublicKey()
			f := &KeyFile{Root: root, Path: filepath.Join(dir, "authorized_keys")}
			if err := os.WriteFile(f.Path, []byte("role=admin "+string(gossh.MarshalAuthorizedKey(stranger))), 0o644); err != nil {
				t.Fatal(err)
			}
			if tc.otherUID {
				if os.Geteuid() != 0 {
					t.Skip("giving a file to another uid needs root")
				}
				if err := os.Chown(f.Path, 4242, 4242); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.Chmod(dir, tc.dirMode); err != nil {
				t.Fatal(err)
			}
			id, ok := f.Lookup(stranger)
			_, err := f.Load()
			if tc.bad == "" {
				if err != nil || !ok || id.Role != RoleAdmin {
					t.Fatalf("Load = %v, Lookup = %v %v; want the owner's file to load", err, id.Role, ok)
				}
				return
			}
			if ok {
				t.Errorf("Lookup(a key from the swapped file) = %v, true; want false", id.Role)
			}
			var e *strictmode.Error
			if !errors.As(err, &e) || e.Path != filepath.Join(root, tc.bad) {
				t.Fatalf("Load = %v, want a StrictModes refusal naming %s", err, filepath.Join(root, tc.bad))
			}
		})
	}
}

// TestHostKeyInAWritableDirectory: a host key in a directory others may write is refused
// (they could swap in a key they know, and be the server), and none is generated there.
func TestHostKeyInAWritableDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ssh")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "host_ed25519")
	if _, err := HostKey(path); !errors.Is(err, strictmode.ErrUnsafe) {
		t.Fatalf("HostKey in a 0777 directory: err = %v, want a StrictModes refusal", err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a host key was generated in the 0777 directory (stat: %v)", err)
	}
}
