package strictmode_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cockpit/internal/strictmode"
)

// otherUID owns what tests make "someone else's" (chown needs root; those cases skip otherwise).
const otherUID = 4242

// mkdir makes dir with exactly mode (umask does not apply to Chmod).
func mkdir(t *testing.T, dir string, mode fs.FileMode) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, mode); err != nil {
		t.Fatal(err)
	}
	return dir
}

// write makes a file with exactly mode.
func write(t *testing.T, path string, mode fs.FileMode) string {
	t.Helper()
	if err := os.WriteFile(path, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
	return path
}

// chown gives path to otherUID, or skips the test when it cannot (not root).
func chown(t *testing.T, path string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("giving a file to another uid needs root")
	}
	if err := os.Lchown(path, otherUID, otherUID); err != nil {
		t.Fatal(err)
	}
}

func TestCheck(t *testing.T) {
	cases := []struct {
		name string
		// setup makes the tree under base and returns the root, the file and the path the
		// refusal must name ("" when the check must pass).
		setup    func(t *testing.T, base string) (root, file, bad string)
		badOwner bool
		above    bool // the refusal is of a directory above (or outside) the root
	}{
		{name: "OK fresh root", setup: func(t *testing.T, base string) (string, string, string) {
			root := mkdir(t, filepath.Join(base, "home"), 0o700)
			return root, write(t, filepath.Join(root, "config.toml"), 0o600), ""
		}},
		{name: "OK 0755 and 0644", setup: func(t *testing.T, base string) (string, string, string) {
			root := mkdir(t, filepath.Join(base, "home"), 0o755)
			mkdir(t, filepath.Join(root, "ssh"), 0o755)
			return root, write(t, filepath.Join(root, "ssh", "authorized_keys"), 0o644), ""
		}},
		{name: "OK sticky directory above the root", setup: func(t *testing.T, base string) (string, string, string) {
			shared := mkdir(t, filepath.Join(base, "shared"), 0o777|fs.ModeSticky)
			root := mkdir(t, filepath.Join(shared, "home"), 0o700)
			return root, write(t, filepath.Join(root, "config.toml"), 0o600), ""
		}},
		{name: "ErrRootWorldWritable", setup: func(t *testing.T, base string) (string, string, string) {
			root := mkdir(t, filepath.Join(base, "home"), 0o777)
			return root, write(t, filepath.Join(root, "config.toml"), 0o600), root
		}},
		{name: "ErrRootStickyIsNotEnough", setup: func(t *testing.T, base string) (string, string, string) {
			root := mkdir(t, filepath.Join(base, "home"), 0o777|fs.ModeSticky)
			return root, write(t, filepath.Join(root, "config.toml"), 0o600), root
		}},
		{name: "ErrRootGroupWritable", setup: func(t *testing.T, base string) (string, string, string) {
			root := mkdir(t, filepath.Join(base, "home"), 0o770)
			return root, write(t, filepath.Join(root, "config.toml"), 0o600), root
		}},
		{name: "ErrDirectoryAboveTheRootWritable", above: true, setup: func(t *testing.T, base string) (string, string, string) {
			srv := mkdir(t, filepath.Join(base, "srv"), 0o777)
			root := mkdir(t, filepath.Join(srv, "home"), 0o700)
			return root, write(t, filepath.Join(root, "config.toml"), 0o600), srv
		}},
		{name: "ErrSubdirectoryWritable", setup: func(t *testing.T, base string) (string, string, string) {
			root := mkdir(t, filepath.Join(base, "home"), 0o700)
			ssh := mkdir(t, filepath.Join(root, "ssh"), 0o777)
			return root, write(t, filepath.Join(ssh, "authorized_keys"), 0o600), ssh
		}},
		{name: "ErrStickySubdirectory", setup: func(t *testing.T, base string) (string, string, string) {
			root := mkdir(t, filepath.Join(base, "home"), 0o700)
			ssh := mkdir(t, filepath.Join(root, "ssh"), 0o777|fs.ModeSticky)
			return root, write(t, filepath.Join(ssh, "authorized_keys"), 0o600), ssh
		}},
		{name: "ErrFileWorldWritable", setup: func(t *testing.T, base string) (string, string, string) {
			root := mkdir(t, filepath.Join(base, "home"), 0o700)
			f := write(t, filepath.Join(root, "config.toml"), 0o666)
			return root, f, f
		}},
		{name: "ErrFileGroupWritable", setup: func(t *testing.T, base string) (string, string, string) {
			root := mkdir(t, filepath.Join(base, "home"), 0o700)
			f := write(t, filepath.Join(root, "config.toml"), 0o620)
			return root, f, f
		}},
		{name: "ErrFileOwnedBySomeoneElse", badOwner: true, setup: func(t *testing.T, base string) (string, string, string) {
			root := mkdir(t, filepath.Join(base, "home"), 0o700)
			f := write(t, filepath.Join(root, "config.toml"), 0o644)
			chown(t, f)
			return root, f, f
		}},
		{name: "ErrRootOwnedBySomeoneElse", badOwner: true, setup: func(t *testing.T, base string) (string, string, string) {
			root := mkdir(t, filepath.Join(base, "home"), 0o755)
			f := write(t, filepath.Join(root, "config.toml"), 0o644)
			chown(t, root)
			return root, f, root
		}},
		{name: "ErrStickyDirectoryAboveOwnedBySomeoneElse", badOwner: true, above: true, setup: func(t *testing.T, base string) (string, string, string) {
			shared := mkdir(t, filepath.Join(base, "shared"), 0o777|fs.ModeSticky)
			chown(t, shared)
			root := mkdir(t, filepath.Join(shared, "home"), 0o700)
			return root, write(t, filepath.Join(root, "config.toml"), 0o600), shared
		}},
		{name: "ErrLinkToAFileInAWritableDirectory", above: true, setup: func(t *testing.T, base string) (string, string, string) {
			root := mkdir(t, filepath.Join(base, "home"), 0o700)
			drop := mkdir(t, filepath.Join(base, "drop"), 0o777)
			target := write(t, filepath.Join(drop, "config.toml"), 0o600)
			link := filepath.Join(root, "config.toml")
			if err := os.Symlink(target, link); err != nil {
				t.Fatal(err)
			}
			return root, link, drop
		}},
		{name: "ErrLinkInAWritableDirectory", above: true, setup: func(t *testing.T, base string) (string, string, string) {
			drop := mkdir(t, filepath.Join(base, "drop"), 0o777)
			real := mkdir(t, filepath.Join(base, "real"), 0o700)
			write(t, filepath.Join(real, "config.toml"), 0o600)
			link := filepath.Join(drop, "home")
			if err := os.Symlink(real, link); err != nil {
				t.Fatal(err)
			}
			return link, filepath.Join(link, "config.toml"), drop
		}},
		{name: "OK relative link inside the root", setup: func(t *testing.T, base string) (string, string, string) {
			root := mkdir(t, filepath.Join(base, "home"), 0o700)
			mkdir(t, filepath.Join(root, "conf"), 0o700)
			write(t, filepath.Join(root, "conf", "config.toml"), 0o600)
			link := filepath.Join(root, "config.toml")
			if err := os.Symlink("conf/../conf/config.toml", link); err != nil {
				t.Fatal(err)
			}
			return root, link, ""
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root, file, bad := tc.setup(t, t.TempDir())
			err := strictmode.Check(root, file)
			if bad == "" {
				if err != nil {
					t.Fatalf("Check(%s, %s) = %v, want nil", root, file, err)
				}
				return
			}
			var e *strictmode.Error
			if !errors.As(err, &e) {
				t.Fatalf("Check(%s, %s) = %v, want an *Error naming %s", root, file, err, bad)
			}
			if got, want := e.Path, bad; got != want {
				t.Errorf("Path = %s, want %s", got, want)
			}
			if got, want := e.BadOwner, tc.badOwner; got != want {
				t.Errorf("BadOwner = %v, want %v", got, want)
			}
			if got, want := e.Above, tc.above; got != want {
				t.Errorf("Above = %v, want %v", got, want)
			}
			if !errors.Is(err, strictmode.ErrUnsafe) {
				t.Errorf("errors.Is(%v, ErrUnsafe) = false, want true", err)
			}
		})
	}
}

func TestMissing(t *testing.T) {
	cases := []struct {
		name       string
		dirMode    fs.FileMode
		wantUnsafe bool
	}{
		{"OK missing file in a safe root", 0o700, false},
		{"ErrMissingFileInAWritableRoot", 0o777, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := mkdir(t, filepath.Join(t.TempDir(), "home"), tc.dirMode)
			err := strictmode.Check(root, filepath.Join(root, "ssh", "authorized_keys"))
			if got, want := errors.Is(err, strictmode.ErrUnsafe), tc.wantUnsafe; got != want {
				t.Fatalf("errors.Is(%v, ErrUnsafe) = %v, want %v", err, got, want)
			}
			if got, want := errors.Is(err, fs.ErrNotExist), !tc.wantUnsafe; got != want {
				t.Fatalf("errors.Is(%v, fs.ErrNotExist) = %v, want %v", err, got, want)
			}
		})
	}
}

func TestMissingRootChecksWhatIsAboveIt(t *testing.T) {
	srv := mkdir(t, filepath.Join(t.TempDir(), "srv"), 0o777)
	err := strictmode.Root(filepath.Join(srv, "home"))
	var e *strictmode.Error
	if !errors.As(err, &e) || e.Path != srv {
		t.Fatalf("Root(missing under %s) = %v, want an *Error naming %s", srv, err, srv)
	}
}

func TestFileHoldsItsDirectoryStrictly(t *testing.T) {
	dir := mkdir(t, filepath.Join(t.TempDir(), "tokens"), 0o777|fs.ModeSticky)
	tok := write(t, filepath.Join(dir, "token"), 0o600)
	err := strictmode.File(tok)
	var e *strictmode.Error
	if !errors.As(err, &e) || e.Path != dir {
		t.Fatalf("File(%s) = %v, want an *Error naming %s", tok, err, dir)
	}
}

func TestLinkLoop(t *testing.T) {
	root := mkdir(t, filepath.Join(t.TempDir(), "home"), 0o700)
	link := filepath.Join(root, "config.toml")
	if err := os.Symlink("config.toml", link); err != nil {
		t.Fatal(err)
	}
	if err := strictmode.Check(root, link); err == nil || errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Check(a link to itself) = %v, want an error that is not fs.ErrNotExist", err)
	}
}

func TestErrorMessage(t *testing.T) {
	cases := []struct {
		name  string
		setup func(t *testing.T, base string) (root, file string)
		want  []string
	}{
		{"world-writable root", func(t *testing.T, base string) (string, string) {
			root := mkdir(t, filepath.Join(base, "home"), 0o777)
			return root, write(t, filepath.Join(root, "config.toml"), 0o600)
		}, []string{"unsafe directory ", "/home (owner ", "mode 0777", "group and others can write it", "Fix: chmod go-w ", "/home"}},
		{"group-writable file", func(t *testing.T, base string) (string, string) {
			root := mkdir(t, filepath.Join(base, "home"), 0o700)
			return root, write(t, filepath.Join(root, "config.toml"), 0o664)
		}, []string{"unsafe file ", "/config.toml", "mode 0664", "its group can write it", "chmod go-w "}},
		{"someone else's file", func(t *testing.T, base string) (string, string) {
			root := mkdir(t, filepath.Join(base, "home"), 0o700)
			f := write(t, filepath.Join(root, "config.toml"), 0o646)
			chown(t, f)
			return root, f
		}, []string{"(owner uid 4242, mode 0646)", "its owner is not root, who runs cockpit", "chown root ", " && chmod go-w ", "first check what is in it"}},
		{"writable directory above", func(t *testing.T, base string) (string, string) {
			srv := mkdir(t, filepath.Join(base, "srv"), 0o757)
			root := mkdir(t, filepath.Join(srv, "home"), 0o700)
			return root, root
		}, []string{"unsafe directory above the runtime root ", "mode 0757", "others can write it", "--home", "chmod +t "}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root, file := tc.setup(t, t.TempDir())
			err := strictmode.Check(root, file)
			if err == nil {
				t.Fatalf("Check(%s, %s) = nil, want a refusal", root, file)
			}
			t.Log(err)
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}
