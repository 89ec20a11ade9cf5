package session

import (
	"errors"
	"io/fs"
	"path/filepath"

	"cockpit/config"
	"cockpit/internal/strictmode"
	"cockpit/live"
	"cockpit/live/halt"
	"cockpit/store"
)

// CheckRoot refuses a runtime root that someone other than the user running cockpit (or
// root) owns or may write, like OpenSSH's StrictModes (issue 27 item 5): the root and the
// directories above it, config.toml, the store (cockpit.db, its WAL and shared memory, the
// chain-head anchor: the audit trail and the approvals), and live/ with each broker's
// directory, whose sentinels another user could otherwise remove. What does not exist yet
// passes (cockpit makes it 0700/0600); the directories on the way to it are checked.
func CheckRoot(root live.Root) error {
	paths := []string{config.Path(root), root.LiveDir()}
	for _, f := range []string{"cockpit.db", "cockpit.db-wal", "cockpit.db-shm", store.AnchorFile} {
		paths = append(paths, filepath.Join(root.Dir(), f))
	}
	brokers, _ := halt.BrokerDirs(root)
	for _, b := range brokers {
		paths = append(paths, root.BrokerDir(b))
	}
	if err := strictmode.Root(root.Dir()); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	for _, p := range paths {
		if err := strictmode.Check(root.Dir(), p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}
