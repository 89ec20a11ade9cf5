package tokenfile_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cockpit/internal/strictmode"
	"cockpit/internal/tokenfile"
)

// TestTokenOthersCouldChange is issue 27 item 5: a token (or creds) file someone other than
// the user or root owns, or one in a directory others may write, is refused by Read and by
// Ensure, which makes no token there either.
func TestTokenOthersCouldChange(t *testing.T) {
	token := strings.Repeat("ab", 32)
	cases := []struct {
		name     string
		dirMode  os.FileMode
		write    bool // a token file is there already
		otherUID bool // owned by uid 4242 (needs root)
		unsafe   bool
	}{
		{name: "OK made by Ensure", dirMode: 0o700},
		{name: "OK the user's own", dirMode: 0o755, write: true},
		{name: "ErrDirectory0777", dirMode: 0o777, write: true, unsafe: true},
		{name: "ErrDirectory0777NoTokenYet", dirMode: 0o777, unsafe: true},
		{name: "ErrDirectoryGroupWritable", dirMode: 0o770, write: true, unsafe: true},
		{name: "ErrSomeoneElsesToken", dirMode: 0o700, write: true, otherUID: true, unsafe: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "home")
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, "token")
			if tc.write {
				if err := os.WriteFile(path, []byte(token+"\n"), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			if tc.otherUID {
				if os.Geteuid() != 0 {
					t.Skip("giving a file to another uid needs root")
				}
				if err := os.Chown(path, 4242, 4242); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.Chmod(dir, tc.dirMode); err != nil {
				t.Fatal(err)
			}
			got, err := tokenfile.Ensure(path)
			if !tc.unsafe {
				if err != nil || len(got) < tokenfile.MinLen {
					t.Fatalf("Ensure = %q, %v; want a token", got, err)
				}
				if again, err := tokenfile.Read(path); err != nil || again != got {
					t.Fatalf("Read = %q, %v; want %q", again, err, got)
				}
				return
			}
			if !errors.Is(err, strictmode.ErrUnsafe) || got != "" {
				t.Fatalf("Ensure = %q, %v; want a StrictModes refusal", got, err)
			}
			if _, err := tokenfile.Read(path); !errors.Is(err, strictmode.ErrUnsafe) {
				t.Fatalf("Read = %v, want a StrictModes refusal", err)
			}
			if !tc.write {
				if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
					t.Fatalf("Ensure made a token in a directory others may write (stat: %v)", err)
				}
			}
		})
	}
}

// TestTokenReadableByOthers: a token group or others may read is refused (unchanged).
func TestTokenReadableByOthers(t *testing.T) {
	path := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(path, []byte(strings.Repeat("ab", 32)), 0o640); err != nil {
		t.Fatal(err)
	}
	if _, err := tokenfile.Read(path); err == nil || !strings.Contains(err.Error(), "chmod 600") {
		t.Fatalf("Read(a 0640 token) = %v, want a refusal saying chmod 600", err)
	}
}

// TestReadPrivateUnderStrictModes: a creds file in a directory others may write is refused
// even at 0600 (it could have been swapped), as a token file is.
func TestReadPrivateUnderStrictModes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "fleet")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "fleet.creds")
	if err := os.WriteFile(path, []byte("creds"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, err := tokenfile.ReadPrivate(path); err != nil || string(got) != "creds" {
		t.Fatalf("ReadPrivate = %q, %v; want the content", got, err)
	}
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	var se *strictmode.Error
	if _, err := tokenfile.ReadPrivate(path); !errors.As(err, &se) {
		t.Fatalf("ReadPrivate in a 0777 directory = %v, want a StrictModes refusal", err)
	}
}
