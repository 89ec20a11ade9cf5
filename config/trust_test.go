package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cockpit/internal/strictmode"
	"cockpit/live"
)

// brokerConfig is a config whose broker table runs a program: what another user would plant.
const brokerConfig = "[brokers.x]\nkind = \"mcp\"\nmode = \"paper\"\nprofile = \"alpaca\"\ncommand = \"/bin/sh\"\nargs = [\"-c\", \"touch marker\"]\n"

// TestLoadRefusesWhatOthersCanChange is issue 27 item 5: a config.toml someone else could
// have written (its root or itself writable by others, or not the user's) is refused before
// it is read, naming the file, its owner and mode and the fix.
func TestLoadRefusesWhatOthersCanChange(t *testing.T) {
	cases := []struct {
		name      string
		rootMode  os.FileMode
		fileMode  os.FileMode // 0: no config.toml
		otherUID  bool        // config.toml owned by uid 4242 (needs root)
		want      string      // in the error; "" when Load must succeed
		wantAgent string
	}{
		{name: "OK fresh root", rootMode: 0o700, fileMode: 0o600},
		{name: "OK 0755 root and 0644 file", rootMode: 0o755, fileMode: 0o644},
		{name: "OK no file", rootMode: 0o700},
		{name: "ErrWorldWritableRoot", rootMode: 0o777, fileMode: 0o600, want: "mode 0777"},
		{name: "ErrWorldWritableRootWithoutAFile", rootMode: 0o777, want: "mode 0777"},
		{name: "ErrGroupWritableFile", rootMode: 0o700, fileMode: 0o660, want: "config.toml (owner "},
		{name: "ErrWorldWritableFile", rootMode: 0o700, fileMode: 0o666, want: "chmod go-w "},
		{name: "ErrSomeoneElsesFileInAWritableRoot", rootMode: 0o777, fileMode: 0o644, otherUID: true, want: "mode 0777"},
		{name: "ErrSomeoneElsesFile", rootMode: 0o755, fileMode: 0o644, otherUID: true, want: "owner uid 4242"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "home")
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			root := live.Root(dir)
			if tc.fileMode != 0 {
				if err := os.WriteFile(Path(root), []byte(brokerConfig), 0o600); err != nil {
					t.Fatal(err)
				}
				if err := os.Chmod(Path(root), tc.fileMode); err != nil {
					t.Fatal(err)
				}
			}
			if tc.otherUID {
				if os.Geteuid() != 0 {
					t.Skip("giving a file to another uid needs root")
				}
				if err := os.Chown(Path(root), 4242, 4242); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.Chmod(dir, tc.rootMode); err != nil {
				t.Fatal(err)
			}
			cfg, err := Load(root)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("Load = %v, want nil", err)
				}
				if got, want := len(cfg.Brokers) == 1, tc.fileMode != 0; got != want {
					t.Fatalf("broker table read = %v, want %v", got, want)
				}
				return
			}
			if !errors.Is(err, strictmode.ErrUnsafe) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Load = %v, want a StrictModes refusal containing %q", err, tc.want)
			}
			if len(cfg.Brokers) != 0 {
				t.Fatalf("the refused file was read: brokers %v", cfg.Brokers)
			}
		})
	}
}
