// Package tokenfile keeps a bearer token in a private file: made once (0600, 32 random bytes
// in hex), refused when group or others may read it, when it is too short, or when someone
// other than the user or root owns it or could have swapped it (strictmode). serve-mcp's and
// the fleet server's tokens are such files.
package tokenfile

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"cockpit/internal/strictmode"
	"cockpit/live/atomicfile"
)

// MinLen is the shortest token accepted from a file (32 random bytes are 64 hex digits).
const MinLen = 32

// Read returns the token in path (fs.ErrNotExist when there is none). A file readable by
// group or others, a short token, or one the StrictModes check refuses (the file or a
// directory above it someone else owns or may write) is refused; a missing file in such a
// directory is refused too, so Ensure makes none there.
func Read(path string) (string, error) {
	if err := strictmode.File(path); err != nil {
		return "", err
	}
	fi, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return "", fmt.Errorf("%s is mode %v: want 0600 (chmod 600 it)", path, fi.Mode().Perm())
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	tok := strings.TrimSpace(string(data))
	if len(tok) < MinLen {
		return "", fmt.Errorf("%s: the token is shorter than %d characters", path, MinLen)
	}
	return tok, nil
}

// Ensure returns the token in path, creating it (0600, 32 random bytes in hex) when missing.
func Ensure(path string) (string, error) {
	tok, err := Read(path)
	if err == nil || !errors.Is(err, fs.ErrNotExist) {
		return tok, err
	}
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	tok = hex.EncodeToString(b)
	if err := atomicfile.WriteFile(path, []byte(tok+"\n"), 0o600); err != nil {
		return "", err
	}
	return tok, nil
}
