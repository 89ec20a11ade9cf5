package tokenfile

import (
	"fmt"
	"os"

	"cockpit/internal/strictmode"
)

// ReadPrivate returns the content of a private file (a NATS creds file, a fleet authority):
// a file someone else owns or could have swapped (strictmode), or that group or others may
// read, is refused, as Read refuses a token file.
func ReadPrivate(path string) ([]byte, error) {
	if err := strictmode.File(path); err != nil {
		return nil, err
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("%s is mode %v: want 0600 (chmod 600 it)", path, fi.Mode().Perm())
	}
	return os.ReadFile(path)
}
