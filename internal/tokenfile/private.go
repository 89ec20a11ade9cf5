package tokenfile

import (
	"fmt"
	"os"
)

// ReadPrivate returns the content of a private file (a NATS creds file, a fleet authority):
// a file that group or others may read is refused, as Read refuses a token file.
func ReadPrivate(path string) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("%s is mode %v: want 0600 (chmod 600 it)", path, fi.Mode().Perm())
	}
	return os.ReadFile(path)
}
