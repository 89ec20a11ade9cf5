package wasmplugin_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"cockpit/engine/agents/wasmplugin"
	"cockpit/internal/strictmode"
	"cockpit/live/auditsink"
)

// TestLoadRefusesFilesOthersCouldChange is issue 27 item 5: a module or manifest someone
// other than the user or root owns or may write, or one in a directory others may write, is
// refused before it is read; the pin is no help for the manifest, whose grants are read first.
func TestLoadRefusesFilesOthersCouldChange(t *testing.T) {
	manifest, err := os.ReadFile("../../../examples/plugins/meanrev/meanrev.plugin.toml")
	if err != nil {
		t.Fatal(err)
	}
	module := []byte("\x00asm not really") // pinned, so only the compiler refuses it
	cases := []struct {
		name    string
		dirMode os.FileMode
		chmod   string // "module" or "manifest" made 0666
		chown   string // "module" or "manifest" given to uid 4242 (needs root)
		bad     string // the path the refusal names: "dir", "module", "manifest"; "" when it is not a StrictModes refusal
	}{
		{name: "OK safe files reach the compiler", dirMode: 0o700},
		{name: "ErrDirectory0777", dirMode: 0o777, bad: "dir"},
		{name: "ErrManifest0666", dirMode: 0o755, chmod: "manifest", bad: "manifest"},
		{name: "ErrModule0666", dirMode: 0o755, chmod: "module", bad: "module"},
		{name: "ErrSomeoneElsesManifest", dirMode: 0o755, chown: "manifest", bad: "manifest"},
		{name: "ErrSomeoneElsesModule", dirMode: 0o755, chown: "module", bad: "module"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "plugins")
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			paths := map[string]string{"dir": dir, "module": filepath.Join(dir, "p.wasm")}
			paths["manifest"] = wasmplugin.ManifestPath(paths["module"])
			for _, f := range []struct {
				path string
				data []byte
			}{{paths["module"], module}, {paths["manifest"], manifest}} {
				if err := os.WriteFile(f.path, f.data, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			if tc.chmod != "" {
				if err := os.Chmod(paths[tc.chmod], 0o666); err != nil {
					t.Fatal(err)
				}
			}
			if tc.chown != "" {
				if os.Geteuid() != 0 {
					t.Skip("giving a file to another uid needs root")
				}
				if err := os.Chown(paths[tc.chown], 4242, 4242); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.Chmod(dir, tc.dirMode); err != nil {
				t.Fatal(err)
			}
			a, err := wasmplugin.Load(context.Background(), wasmplugin.Config{File: paths["module"], SHA256: wasmplugin.Digest(module),
				ManifestSHA256: wasmplugin.Digest(manifest), Audit: &auditsink.Memory{}})
			if err == nil {
				a.Close(context.Background())
				t.Fatal("Load of a module that is not WASM succeeded")
			}
			var e *strictmode.Error
			if tc.bad == "" {
				if errors.As(err, &e) {
					t.Fatalf("Load = %v, want the compiler's refusal, not StrictModes'", err)
				}
				return
			}
			if !errors.As(err, &e) || e.Path != paths[tc.bad] {
				t.Fatalf("Load = %v, want a StrictModes refusal naming %s", err, paths[tc.bad])
			}
		})
	}
}
