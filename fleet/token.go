package fleet

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"cockpit/live/atomicfile"
)

// TokenFile is the embedded server's client token, under the runtime root of `fleet serve`.
const TokenFile = "fleet.token"

// minToken is the shortest token accepted from the file (32 random bytes are 64 hex digits).
const minToken = 32

// EnsureToken returns the token in dir/fleet.token, creating it (0600, 32 random bytes in hex)
// when missing.
func EnsureToken(dir string) (string, error) {
	tok, err := ReadToken(dir)
	if err == nil || !errors.Is(err, fs.ErrNotExist) {
		return tok, err
	}
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	tok = hex.EncodeToString(b)
	if err := atomicfile.WriteFile(filepath.Join(dir, TokenFile), []byte(tok+"\n"), 0o600); err != nil {
		return "", err
	}
	return tok, nil
}

// ReadToken reads dir/fleet.token (fs.ErrNotExist when there is none). A file readable by
// group or others, or a short token, is refused.
func ReadToken(dir string) (string, error) {
	path := filepath.Join(dir, TokenFile)
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
	if len(tok) < minToken {
		return "", fmt.Errorf("%s: the token is shorter than %d characters", path, minToken)
	}
	return tok, nil
}

// LoopbackURL reports whether every server of a (comma-separated) fleet url is on loopback:
// the embedded server of this machine, whose token file a root may hold.
func LoopbackURL(u string) bool {
	seen := false
	for _, s := range strings.Split(u, ",") {
		p, err := url.Parse(strings.TrimSpace(s))
		if err != nil || p.Hostname() == "" {
			return false
		}
		ip := net.ParseIP(p.Hostname())
		if p.Hostname() != "localhost" && (ip == nil || !ip.IsLoopback()) {
			return false
		}
		seen = true
	}
	return seen
}
